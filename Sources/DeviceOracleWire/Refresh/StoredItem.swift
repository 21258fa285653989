import DeviceOracleJSON
import DeviceOracleRules

/// An item as the service's store keeps it: the request's object (compared by
/// content with observed items) with the document it is in — an NDJSON log's runs
/// are each a document of their own, gone once read but for the items kept — and
/// its canonical text, rendered once however many steps repeat it.
struct StoredItem {
    let value: JSONValue
    let document: JSONDocument
    let text: [UInt8]

    init(_ value: JSONValue, in document: JSONDocument) {
        var writer = JSONWriter(capacity: 64)
        writer.value(value, of: document)
        self.value = value
        self.document = document
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
