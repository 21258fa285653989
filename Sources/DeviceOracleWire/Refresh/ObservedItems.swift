import DeviceOracleJSON
import DeviceOracleRules

/// An observed `items`: the ids (strings) or the items (objects) the device's
/// store held, compared with the canonical store as a set by id — and by content
/// when objects are given. A repeated id is always a mismatch: the store never
/// holds an id twice.
struct ObservedItems {
    let mismatch: Mismatch
    /// What writing the mismatch's `expected` costs the answer budget.
    let expectedBytes: Int

    /// `nil` when the device's items equal the store's.
    init?(_ observed: JSONValue, store: ServiceStore, index: Int?, field: String, document: JSONDocument) {
        let elements = document.kind(observed) == .array ? Array(document.elements(observed)) : []
        // The device's shape decides the shape of `expected`: ids unless it sent objects.
        let objects = elements.first.map { document.kind($0) == .object } ?? false
        var seen = LiteralKeySet(), missing: [String] = [], extra: [String] = [], repeated: [String] = []
        var changed: [String] = [], reportedRepeats = LiteralKeySet(), unreadable = 0
        for element in elements {
            let idValue = objects ? (document.kind(element) == .object ? document.member(element, "id") : nil) : element
            guard let idValue, let id = document.string(idValue) else {
                unreadable += 1
                continue
            }
            let key = LiteralKey(id)
            guard seen.insert(key) else {
                if reportedRepeats.insert(key) { repeated.append(id) }
                continue
            }
            if let stored = store.item(withID: id) {
                if objects, !stored.content.document.isEqual(stored.content.value, to: element, in: document) { changed.append(id) }
            } else {
                extra.append(id)
            }
        }
        for item in store.items where !seen.contains(LiteralKey(item.id)) { missing.append(item.id) }

        var parts: [String] = []
        if document.kind(observed) != .array { parts.append("expected an array of ids or of items") }
        if !missing.isEmpty { parts.append("missing " + Self.list(missing)) }
        if !extra.isEmpty { parts.append("extra " + Self.list(extra)) }
        if !repeated.isEmpty { parts.append("duplicate " + Self.list(repeated)) }
        if !changed.isEmpty { parts.append("different content " + Self.list(changed)) }
        if unreadable > 0 {
            let what = objects ? "not an item with a string id" : "not an id (a string)"
            parts.append(unreadable == 1 ? "1 element is \(what)" : "\(unreadable) elements are \(what)")
        }
        guard !parts.isEmpty else { return nil }

        let expected: [FieldValue]
        if objects {
            expected = store.items.map { .value($0.content.value, of: $0.content.document) }
            expectedBytes = store.items.reduce(0) { $0 + $1.content.textCount + 1 }
        } else {
            expected = store.items.map { .string($0.id) }
            expectedBytes = store.items.reduce(0) { $0 + $1.id.utf8.count + 3 }
        }
        mismatch = Mismatch(index: index, field: field, expected: .array(expected), observed: .requestValue(observed),
                            detail: parts.joined(separator: "; "))
    }

    /// "'1', '2'"
    private static func list(_ ids: [String]) -> String {
        ids.map { "'\($0)'" }.joined(separator: ", ")
    }
}
