/// Reads one JSON text after another (the lines of an NDJSON body) into the same
/// memory: the next text is parsed into the storage of the document it gave last
/// when nothing holds that document any more, so a long body costs one tape, one
/// copy of a line and one storage object, not an allocation of each per line. A
/// document still held (a head line, a line kept for the summary) is left alone, and
/// the next text gets storage of its own. Documents are values either way: what a
/// caller holds never changes.
public struct JSONLineReader {
    /// Storage kept for the next text; larger ones than this are given back rather than
    /// kept, so what stays between lines is bounded whatever one line was.
    public static let keptBytes = 256 << 10

    private let maxDepth: Int
    /// The storage of the last document handed out, or nil when it was too large to keep.
    private var last: JSONDocument.Storage?
    /// `last`'s memory, in bytes: measured again only when a text may have grown it
    /// (its parts keep their memory when emptied), not for each line.
    private var lastBytes = 0

    public init(maxDepth: Int = JSONReader.defaultMaxDepth) {
        self.maxDepth = maxDepth
    }

    /// The document of `text`, valid and unchanged for as long as it is held.
    public mutating func parse(_ text: UnsafeRawBufferPointer) throws(JSONSyntaxError) -> JSONDocument {
        // Whether `lastBytes` is this storage's.
        var measured = last != nil
        var storage = last.take() ?? Self.emptyStorage()
        if !isKnownUniquelyReferenced(&storage) {
            storage = Self.emptyStorage()
            measured = false
        }
        do {
            let grew = try JSONReader.parse(text, into: storage, maxDepth: maxDepth)
            keep(storage, measure: grew || !measured)
        } catch {
            keep(storage, measure: true)
            throw error
        }
        return JSONDocument(storage: storage)
    }

    /// The memory kept for the next text, in bytes.
    public var heldBytes: Int { last == nil ? 0 : lastBytes }

    private mutating func keep(_ storage: JSONDocument.Storage, measure: Bool) {
        if measure { lastBytes = storage.allocatedBytes }
        last = lastBytes <= Self.keptBytes ? storage : nil
    }

    private static func emptyStorage() -> JSONDocument.Storage {
        JSONDocument.Storage(input: [], nodes: JSONNodeBuffer(capacity: 0), decoded: [], duplicateKeys: [])
    }
}
