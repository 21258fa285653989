import DeviceOracleJSON
import DeviceOracleRules

/// An item as the service's store keeps it: the request's object (compared by
/// content with observed items) with the document it is in — an NDJSON log's runs
/// are each a document of their own, gone once read but for the items kept — and
/// its canonical text, rendered once however many steps repeat it.
struct StoredItem {
    let value: JSONValue
    let document: JSONDocument
    private let text: Text

    /// Where its canonical text is: in the request itself when the request spelled the
    /// item canonically, as generated logs do (no copy, no allocation per item), or
    /// rendered.
    private enum Text {
        case source(Range<Int>)
        case rendered([UInt8])
    }

    /// `scratch` is a writer the caller reuses for every item of a page: one
    /// allocation for a rendered text instead of two.
    init(_ value: JSONValue, in document: JSONDocument, scratch: inout JSONWriter) {
        self.value = value
        self.document = document
        if let source = document.canonicalSource(of: value) {
            text = .source(source)
        } else {
            scratch.value(value, of: document)
            text = .rendered(scratch.take())
        }
    }

    /// The length of its canonical text.
    var textCount: Int {
        switch text {
        case .source(let range): range.count
        case .rendered(let bytes): bytes.count
        }
    }

    /// Calls `body` with its canonical text.
    @inline(__always)
    func withText<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        switch text {
        case .source(let range): document.withSource(range, body)
        case .rendered(let bytes): bytes.withUnsafeBufferPointer(body)
        }
    }
}

typealias ServiceStore = RefreshStore<StoredItem>

extension RefreshStore where Content == StoredItem {
    /// `{"items": [...], "cursor": ..., "lastSuccessAt": ...}`, the shape of the request's `store`.
    /// A long log renders a store after every run that committed, so the text is
    /// sized first and filled once: no growing, no copy out of a writer.
    func json() -> [UInt8] {
        var tail = JSONWriter(capacity: 64)
        tail.key("cursor")
        if let cursor { tail.string(escaping: cursor) } else { tail.null() }
        tail.key("lastSuccessAt")
        if let lastSuccessAt { tail.number(lastSuccessAt) } else { tail.null() }
        let itemsOpen: StaticString = #"{"items":["#, itemsClose: StaticString = "],"
        return tail.withBytes { tail in
            let items = self.items
            var size = itemsOpen.utf8CodeUnitCount + max(items.count - 1, 0) + itemsClose.utf8CodeUnitCount + tail.count + 1
            for index in items.indices { size += items[index].content.textCount }
            return [UInt8](unsafeUninitializedCapacity: size) { out, initialized in
                var position = 0
                func copy(_ bytes: UnsafeBufferPointer<UInt8>) {
                    guard let source = bytes.baseAddress else { return }
                    (out.baseAddress! + position).update(from: source, count: bytes.count)
                    position += bytes.count
                }
                copy(UnsafeBufferPointer(start: itemsOpen.utf8Start, count: itemsOpen.utf8CodeUnitCount))
                for index in items.indices {
                    if index > 0 {
                        out[position] = UInt8(ascii: ",")
                        position += 1
                    }
                    items[index].content.withText(copy)
                }
                copy(UnsafeBufferPointer(start: itemsClose.utf8Start, count: itemsClose.utf8CodeUnitCount))
                copy(tail)
                out[position] = UInt8(ascii: "}")
                initialized = position + 1
            }
        }
    }
}
