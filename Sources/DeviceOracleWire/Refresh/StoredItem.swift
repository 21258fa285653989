import DeviceOracleJSON
import DeviceOracleRules

/// An item as the service's store keeps it: the request's object (compared by
/// content with observed items) and its canonical text, rendered once however
/// many steps repeat it.
struct StoredItem {
    let value: JSONValue
    let text: [UInt8]

    init(_ value: JSONValue, in document: JSONDocument) {
        var writer = JSONWriter(capacity: 64)
        writer.value(value, of: document)
        self.value = value
        text = writer.finish()
    }
}

typealias ServiceStore = RefreshStore<StoredItem>

extension RefreshStore where Content == StoredItem {
    /// `{"items": [...], "cursor": ..., "lastSuccessAt": ...}`, the shape of the request's `store`.
    func json(capacity: Int) -> [UInt8] {
        var writer = JSONWriter(capacity: capacity)
        writer.beginObject()
        writer.key("items")
        writer.beginArray()
        for item in items { writer.raw(item.content.text) }
        writer.endArray()
        writer.key("cursor")
        if let cursor { writer.string(escaping: cursor) } else { writer.null() }
        writer.key("lastSuccessAt")
        if let lastSuccessAt { writer.number(lastSuccessAt) } else { writer.null() }
        writer.endObject()
        return writer.finish()
    }
}

/// Every step repeats the store twice (`before`, `after`), so a small request can
/// ask for an answer thousands of times its size: 100 000 empty runs over a store
/// of 100 000 items. The budget turns that into a `422` before memory runs out.
struct AnswerBudget {
    static let refreshBytes = 64 << 20

    let limit: Int
    private(set) var spent = 0

    /// Whether the answer still fits after `bytes` more.
    mutating func spend(_ bytes: Int) -> Bool {
        spent += bytes
        return spent <= limit
    }

    var limitDescription: String { "\(limit >> 20) MiB" }
}

/// A number as the answer spells it (`1.0` → `1`), for details and messages.
func canonicalText(_ number: Double) -> String {
    var writer = JSONWriter(capacity: 32)
    writer.number(number)
    return String(decoding: writer.finish(), as: UTF8.self)
}
