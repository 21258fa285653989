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
    /// `last` came back through `giveBack`, which found nothing else holding it: the
    /// next text need not ask again.
    private var lastIsUnique = false

    public init(maxDepth: Int = JSONReader.defaultMaxDepth) {
        self.maxDepth = maxDepth
    }

    /// The document of `text`, valid and unchanged for as long as it is held.
    public mutating func parse(_ text: UnsafeRawBufferPointer) throws(JSONSyntaxError) -> JSONDocument {
        let storage = try take(text)
        keep(storage)
        return JSONDocument(storage: storage)
    }

    /// The document of `text`, as `parse` gives it, whose memory is lent rather than
    /// also kept here: `giveBack` it once done with it, and the next text reuses that
    /// memory unless something still holds the document. (Kept here and handed out, it
    /// was shared for the line's whole life: a retain and a release a line.)
    public mutating func lend(_ text: UnsafeRawBufferPointer) throws(JSONSyntaxError) -> JSONDocument {
        JSONDocument(storage: try take(text))
    }

    /// A document `lend` gave, back once its reader is done with it.
    public mutating func giveBack(_ document: consuming JSONDocument) {
        var storage = (consume document).storage
        if lastBytes <= Self.keptBytes, isKnownUniquelyReferenced(&storage) {
            last = storage
            lastIsUnique = true
        }
    }

    /// The storage of `text`: the last one's when nothing holds that any more, with
    /// `lastBytes` its memory. On a syntax error it is kept for the next text. Inlined,
    /// with the parse and the refill, into one function a line.
    @inline(__always)
    private mutating func take(_ text: UnsafeRawBufferPointer) throws(JSONSyntaxError) -> JSONDocument.Storage {
        // Whether `lastBytes` is this storage's.
        var measured = last != nil
        let knownUnique = lastIsUnique
        lastIsUnique = false
        var storage = last.take() ?? Self.emptyStorage()
        if !knownUnique, !isKnownUniquelyReferenced(&storage) {
            storage = Self.emptyStorage()
            measured = false
        }
        do {
            let grew = try JSONReader.parse(text, into: storage, maxDepth: maxDepth)
            if grew || !measured { lastBytes = storage.allocatedBytes }
        } catch {
            lastBytes = storage.allocatedBytes
            keep(storage)
            throw error
        }
        return storage
    }

    /// Keeps `storage` (of `lastBytes`) for the next text unless it is too large; the
    /// document handed out may share it, so the next text asks.
    @inline(__always)
    private mutating func keep(_ storage: JSONDocument.Storage) {
        last = lastBytes <= Self.keptBytes ? storage : nil
        lastIsUnique = false
    }

    /// The memory kept for the next text, in bytes.
    public var heldBytes: Int { last == nil ? 0 : lastBytes }

    private static func emptyStorage() -> JSONDocument.Storage {
        JSONDocument.Storage(input: [], nodes: JSONNodeBuffer(capacity: 0), decoded: [], duplicateKeys: [])
    }
}
