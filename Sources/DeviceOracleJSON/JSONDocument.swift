/// A parsed JSON text kept as a flat tape of nodes in document order (the idea of
/// simdjson's tape): one allocation for the whole tree, containers know where they
/// end, strings point into the input. Validators walk it by `JSONValue` handles
/// and allocate only for what they keep.
public struct JSONDocument: Sendable {
    /// Immutable once handed out; one reference, so passing a document or iterating
    /// it retains one object rather than each array. A `JSONLineReader` parses the
    /// next text into the same storage when no document holds it any more (no other
    /// reference), so a long NDJSON body reuses one tape instead of allocating one per
    /// line; the fields are `var` for that alone.
    @usableFromInline final class Storage: @unchecked Sendable {
        // @unchecked: written only by its parse, while no document shares it; `nodes`
        // is owned here and freed in deinit. Unchecked exclusivity: every read of a
        // string or node goes through these fields, and the runtime's access tracking
        // would cost more than the read.
        /// Holds the text in its first `inputBytes.count` bytes (a reused storage's
        /// is as long as the longest text it held).
        @exclusivity(unchecked) private var input: [UInt8]
        /// The tape, written by the parser (a plain buffer: reading a node is a load).
        @usableFromInline @exclusivity(unchecked) private(set) var nodes: UnsafeMutablePointer<JSONNode>
        @usableFromInline @exclusivity(unchecked) private(set) var nodeCount: Int
        @exclusivity(unchecked) private(set) var nodeCapacity: Int
        @usableFromInline @exclusivity(unchecked) private(set) var decoded: [UInt8]
        @usableFromInline @exclusivity(unchecked) private(set) var duplicateKeys: [JSONValue]
        /// Where `input`'s and `decoded`'s bytes are. Both arrays are held here and
        /// changed only by `refill`, which sets these again, and an array of bytes is
        /// always stored natively (never bridged), so their storage stays where it is
        /// between refills. Reading a string through them instead retained and
        /// released the array every time: a long log reads every key and string that way.
        @usableFromInline @exclusivity(unchecked) private(set) var inputBytes: UnsafeBufferPointer<UInt8>
        @usableFromInline @exclusivity(unchecked) private(set) var decodedBytes: UnsafeBufferPointer<UInt8>
        /// `input`'s memory when `refill` allocated it, so no one else holds that array
        /// and the next text is copied straight in: writing through the array asked
        /// whether it was shared, a call a line. Nil for an input handed over whole.
        @exclusivity(unchecked) private var refillBase: UnsafeMutableRawPointer?

        init(input: [UInt8], nodes: consuming JSONNodeBuffer, decoded: [UInt8], duplicateKeys: [JSONValue]) {
            self.input = input
            nodeCount = nodes.count
            nodeCapacity = nodes.capacity
            self.nodes = nodes.release()
            self.decoded = decoded
            self.duplicateKeys = duplicateKeys
            inputBytes = self.input.withUnsafeBufferPointer { $0 }
            decodedBytes = self.decoded.withUnsafeBufferPointer { $0 }
        }

        deinit { nodes.deallocate() }

        /// Makes this storage another text's: `fill` gets the parts (the input already
        /// replaced by `text`, the tape, decoded strings and duplicate keys emptied with
        /// their memory kept) and gives them back filled, whether it succeeded or threw.
        /// Called only while no document shares this storage. Returns whether a part may
        /// have grown (`allocatedBytes` is then worth asking again; memory is kept when emptied).
        @discardableResult
        func refill<Failure: Error>(
            _ text: UnsafeRawBufferPointer,
            _ fill: (_ input: UnsafeBufferPointer<UInt8>, inout JSONNodeBuffer, inout [UInt8], inout [JSONValue]) throws(Failure) -> Void
        ) throws(Failure) -> Bool {
            // `input` keeps its length (its capacity, for the next texts); the text is
            // its first bytes, copied in one go: emptying and appending to the array
            // cost ten times the copy on short lines.
            var grew = false
            if refillBase == nil || input.count < text.count {
                input = [UInt8](repeating: 0, count: max(text.count, 2 * input.count))
                refillBase = input.withUnsafeMutableBytes { $0.baseAddress }
                grew = true
            }
            if let refillBase, let source = text.baseAddress {
                refillBase.copyMemory(from: source, byteCount: text.count)
            }
            inputBytes = UnsafeBufferPointer(start: refillBase?.assumingMemoryBound(to: UInt8.self), count: text.count)
            var tape = JSONNodeBuffer(adopting: nodes, capacity: nodeCapacity)
            if !decoded.isEmpty { decoded.removeAll(keepingCapacity: true) }
            if !duplicateKeys.isEmpty { duplicateKeys.removeAll(keepingCapacity: true) }
            var failure: Failure?
            do throws(Failure) {
                try fill(inputBytes, &tape, &decoded, &duplicateKeys)
            } catch {
                failure = error
            }
            nodeCount = tape.count
            grew = grew || tape.capacity != nodeCapacity || !decoded.isEmpty || !duplicateKeys.isEmpty
            nodeCapacity = tape.capacity
            nodes = tape.release()
            decodedBytes = decoded.withUnsafeBufferPointer { $0 }
            if let failure { throw failure }
            return grew
        }

        /// The memory this storage holds, in bytes: what a reused one keeps between texts.
        var allocatedBytes: Int {
            input.capacity + nodeCapacity * MemoryLayout<JSONNode>.stride + decoded.capacity
                + duplicateKeys.capacity * MemoryLayout<JSONValue>.stride
        }
    }

    @usableFromInline let storage: Storage

    init(input: [UInt8], nodes: consuming JSONNodeBuffer, decoded: [UInt8], duplicateKeys: [JSONValue]) {
        storage = Storage(input: input, nodes: nodes, decoded: decoded, duplicateKeys: duplicateKeys)
    }

    init(storage: Storage) {
        self.storage = storage
    }

    /// The bytes that were parsed; unescaped strings point into them. (A copy: a
    /// document read by a `JSONLineReader` holds them in memory kept for the next line.)
    public var input: [UInt8] { Array(storage.inputBytes) }

    /// About the memory this document needs, in bytes: its text and its tape (what a
    /// server counts against its memory budget).
    public var heldBytes: Int { storage.inputBytes.count + nodeCount * MemoryLayout<JSONNode>.stride }
    /// Calls `body` with the bytes that were parsed, in place.
    @inlinable @inline(__always)
    func withInput<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R { body(storage.inputBytes) }
    /// Key nodes that repeat an earlier key of the same object, in document order
    /// (RFC 8259 leaves duplicates undefined; we reject them at their pointer).
    public var duplicateKeys: [JSONValue] { storage.duplicateKeys }
    /// Whether `duplicateKeys` has any, read in place.
    @inlinable public var hasDuplicateKeys: Bool { !storage.duplicateKeys.isEmpty }
    @usableFromInline var nodes: UnsafeMutablePointer<JSONNode> { storage.nodes }
    /// Strings that held escapes, decoded.
    @usableFromInline var decoded: [UInt8] { _read { yield storage.decoded } }

    /// The top-level value.
    public var root: JSONValue { JSONValue(index: 0) }

    /// Number of nodes on the tape (values and object keys).
    public var nodeCount: Int { storage.nodeCount }
}

/// A handle to one value (or object key) of a `JSONDocument`. Its `index` is the
/// value's position in document order, so sorting by it sorts by position.
///
/// Stored in 32 bits (the reader takes texts under 4 GiB, so fewer nodes than that):
/// a long log's per-event records hold several optional handles, and at half the
/// size they are copied, stored and read back in half the bytes.
public struct JSONValue: Hashable, Comparable, Sendable {
    @usableFromInline let position: UInt32
    @inlinable public var index: Int { Int(position) }
    @inlinable public init(index: Int) { position = UInt32(truncatingIfNeeded: index) }
    @inlinable public static func < (a: JSONValue, b: JSONValue) -> Bool { a.position < b.position }
}

public enum JSONKind: UInt8, Sendable {
    case null, bool, number, string, array, object

    /// The name a person reads in an error message ("expected a boolean, got a string").
    public var article: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// One tape entry: 16 bytes.
@usableFromInline
struct JSONNode: Sendable {
    @usableFromInline enum Tag: UInt8, Sendable {
        case null, `false`, `true`, number, string, escapedString, array, object
    }
    @usableFromInline var tag: Tag
    /// string: byte length; array/object: element or member count.
    @usableFromInline var count: UInt32
    /// number: the Double's bit pattern; string: byte offset (into `input`, or into
    /// `decoded` for an escaped string); array/object: index of the first node after it.
    @usableFromInline var payload: UInt64

    @inlinable init(tag: Tag, count: UInt32 = 0, payload: UInt64 = 0) {
        self.tag = tag
        self.count = count
        self.payload = payload
    }
}

extension JSONDocument {
    @inlinable public func kind(_ value: JSONValue) -> JSONKind {
        switch nodes[value.index].tag {
        case .null: .null
        case .false, .true: .bool
        case .number: .number
        case .string, .escapedString: .string
        case .array: .array
        case .object: .object
        }
    }

    @inlinable public func isNull(_ value: JSONValue) -> Bool { nodes[value.index].tag == .null }

    @inlinable public func bool(_ value: JSONValue) -> Bool? {
        switch nodes[value.index].tag {
        case .true: true
        case .false: false
        default: nil
        }
    }

    @inlinable public func number(_ value: JSONValue) -> Double? {
        let node = nodes[value.index]
        return node.tag == .number ? Double(bitPattern: node.payload) : nil
    }

    /// The number when it is integral and fits in an `Int`.
    @inlinable public func integer(_ value: JSONValue) -> Int? {
        guard let number = number(value), number.magnitude < 9.2e18,
              Double(Int(number)) == number else { return nil }
        return Int(number)
    }

    /// The decoded string; allocates. Use `withUTF8` or `string(_:equals:)` on hot paths.
    @inlinable public func string(_ value: JSONValue) -> String? {
        guard kind(value) == .string else { return nil }
        return withUTF8(value) { String(decoding: $0, as: UTF8.self) }
    }

    /// Calls `body` with the decoded UTF-8 bytes of a string (or object key) node.
    @inlinable @inline(__always) public func withUTF8<R>(_ value: JSONValue, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        let node = storage.nodes[value.index]
        let start = Int(node.payload), count = Int(node.count)
        switch node.tag {
        case .string:
            return try body(UnsafeBufferPointer(start: storage.inputBytes.baseAddress! + start, count: count))
        case .escapedString:
            return try body(UnsafeBufferPointer(start: storage.decodedBytes.baseAddress! + start, count: count))
        default:
            preconditionFailure("not a string node")
        }
    }

    /// Calls `body` with a string node's decoded bytes and whether its text held
    /// escapes. One without holds no quote, backslash or control byte (the reader
    /// refuses raw control bytes), so a writer copies it without looking.
    @inline(__always) func withString<R>(_ value: JSONValue, _ body: (UnsafeBufferPointer<UInt8>, Bool) -> R) -> R {
        let escaped = storage.nodes[value.index].tag == .escapedString
        return withUTF8(value) { body($0, escaped) }
    }

    /// Whether a string node holds exactly `text`, without allocating.
    @inlinable @inline(__always) public func string(_ value: JSONValue, equals text: StaticString) -> Bool {
        let node = nodes[value.index]
        guard node.tag == .string || node.tag == .escapedString,
              Int(node.count) == text.utf8CodeUnitCount else { return false }
        return withUTF8(value) { $0.hasSameBytes(as: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)) }
    }

    /// Whether a string node holds exactly `text`, a value known only at run time. (Its
    /// own label: a literal must reach the `StaticString` overload, which allocates
    /// nothing, and an unlabelled choice would give it this one.)
    public func string(_ value: JSONValue, matches text: String) -> Bool {
        guard kind(value) == .string else { return false }
        var text = text
        return text.withUTF8 { expected in
            withUTF8(value) { $0.hasSameBytes(as: expected) }
        }
    }

    /// Whether `value` is an object of one member, named `key` (an NDJSON body's tail;
    /// asked of every line, so read off the tape: the object, then its member's name).
    @inlinable @inline(__always)
    public func isObject(_ value: JSONValue, withOnlyMember key: StaticString) -> Bool {
        let node = nodes[value.index]
        return node.tag == .object && node.count == 1 && string(JSONValue(index: value.index + 1), equals: key)
    }

    /// Elements of an array or members of an object.
    @inlinable public func count(_ value: JSONValue) -> Int {
        let node = nodes[value.index]
        return node.tag == .array || node.tag == .object ? Int(node.count) : 0
    }

    /// The position just past `value` and everything inside it: where its next
    /// sibling starts, in document order.
    @inlinable public func end(of value: JSONValue) -> Int { next(after: value.index) }

    /// The index just past the node at `index` and everything inside it.
    @inlinable func next(after index: Int) -> Int {
        let node = nodes[index]
        return node.tag == .array || node.tag == .object ? Int(node.payload) : index + 1
    }

    /// The elements of an array (empty for anything else).
    @inlinable @inline(__always) public func elements(_ value: JSONValue) -> Elements {
        let node = nodes[value.index]
        return Elements(document: self, first: value.index + 1, count: node.tag == .array ? Int(node.count) : 0)
    }

    /// The members of an object in document order (empty for anything else).
    @inlinable @inline(__always) public func members(_ value: JSONValue) -> Members {
        let node = nodes[value.index]
        return Members(document: self, first: value.index + 1, count: node.tag == .object ? Int(node.count) : 0)
    }

    /// The value of the first member named `key`, if any.
    @inlinable public func member(_ object: JSONValue, _ key: StaticString) -> JSONValue? {
        for member in members(object) where string(member.key, equals: key) { return member.value }
        return nil
    }

    /// The value of the first member named `key`, a name known only at run time.
    public func member(_ object: JSONValue, named key: String) -> JSONValue? {
        members(object).first { string($0.key, matches: key) }?.value
    }

    public struct Elements: Sequence {
        @usableFromInline let document: JSONDocument
        @usableFromInline let first: Int
        @usableFromInline let count: Int
        @inlinable init(document: JSONDocument, first: Int, count: Int) {
            self.document = document
            self.first = first
            self.count = count
        }
        @inlinable public func makeIterator() -> Iterator { Iterator(document: document, next: first, remaining: count) }

        public struct Iterator: IteratorProtocol {
            @usableFromInline let document: JSONDocument
            @usableFromInline var position: Int
            @usableFromInline var remaining: Int
            @inlinable init(document: JSONDocument, next: Int, remaining: Int) {
                self.document = document
                self.position = next
                self.remaining = remaining
            }
            @inlinable public mutating func next() -> JSONValue? {
                guard remaining > 0 else { return nil }
                remaining -= 1
                let value = JSONValue(index: position)
                position = document.next(after: position)
                return value
            }
        }
    }

    public struct Members: Sequence {
        @usableFromInline let document: JSONDocument
        @usableFromInline let first: Int
        @usableFromInline let count: Int
        @inlinable init(document: JSONDocument, first: Int, count: Int) {
            self.document = document
            self.first = first
            self.count = count
        }
        @inlinable public func makeIterator() -> Iterator { Iterator(document: document, next: first, remaining: count) }

        public struct Iterator: IteratorProtocol {
            @usableFromInline let document: JSONDocument
            @usableFromInline var position: Int
            @usableFromInline var remaining: Int
            @inlinable init(document: JSONDocument, next: Int, remaining: Int) {
                self.document = document
                self.position = next
                self.remaining = remaining
            }
            @inlinable public mutating func next() -> (key: JSONValue, value: JSONValue)? {
                guard remaining > 0 else { return nil }
                remaining -= 1
                let key = JSONValue(index: position)
                let value = JSONValue(index: position + 1)
                position = document.next(after: position + 1)
                return (key, value)
            }
        }
    }
}

extension JSONDocument {
    /// Structural equality of two values, possibly of different documents: numbers
    /// by value (`1.0` equals `1`), objects regardless of member order.
    public func isEqual(_ value: JSONValue, to other: JSONValue, in otherDocument: JSONDocument) -> Bool {
        let kind = kind(value)
        guard kind == otherDocument.kind(other) else { return false }
        switch kind {
        case .null: return true
        case .bool: return bool(value) == otherDocument.bool(other)
        case .number: return number(value) == otherDocument.number(other)
        case .string:
            return withUTF8(value) { a in otherDocument.withUTF8(other) { b in a.hasSameBytes(as: b) } }
        case .array:
            guard count(value) == otherDocument.count(other) else { return false }
            return zip(elements(value), otherDocument.elements(other)).allSatisfy {
                isEqual($0, to: $1, in: otherDocument)
            }
        case .object:
            let memberCount = count(value)
            guard memberCount == otherDocument.count(other) else { return false }
            // Keys are unique within an object (duplicates are rejected), so a key
            // index finds each counterpart; a scan would make large objects quadratic.
            guard memberCount > Self.linearScanMembers else {
                return members(value).allSatisfy { member in
                    otherDocument.members(other).contains { candidate in
                        withUTF8(member.key) { a in otherDocument.withUTF8(candidate.key) { b in a.hasSameBytes(as: b) } }
                            && isEqual(member.value, to: candidate.value, in: otherDocument)
                    }
                }
            }
            var otherValues: [[UInt8]: JSONValue] = [:]
            otherValues.reserveCapacity(memberCount)
            for candidate in otherDocument.members(other) {
                otherValues[otherDocument.withUTF8(candidate.key) { Array($0) }] = candidate.value
            }
            return members(value).allSatisfy { member in
                guard let counterpart = otherValues[withUTF8(member.key) { Array($0) }] else { return false }
                return isEqual(member.value, to: counterpart, in: otherDocument)
            }
        }
    }

    /// Up to this many members, comparing objects by scanning beats building an index.
    static let linearScanMembers = 16
}

/// The parser's growing tape: appends are a capacity check and a store. The
/// document takes the memory over when parsing succeeds.
struct JSONNodeBuffer: ~Copyable {
    private var base: UnsafeMutablePointer<JSONNode>
    private(set) var count = 0
    private(set) var capacity: Int

    init(capacity: Int) {
        self.capacity = max(capacity, 16)
        base = .allocate(capacity: self.capacity)
    }

    /// Takes over `base`, of `capacity` nodes, to write a tape from its start again.
    init(adopting base: UnsafeMutablePointer<JSONNode>, capacity: Int) {
        self.base = base
        self.capacity = capacity
    }

    deinit { base.deallocate() }

    @inline(__always) mutating func append(_ node: JSONNode) {
        if count == capacity { grow() }
        (base + count).initialize(to: node)
        count &+= 1
    }

    subscript(index: Int) -> JSONNode {
        @inline(__always) get { base[index] }
        @inline(__always) set { base[index] = newValue }
    }

    /// Room for at least `minimum` nodes.
    mutating func reserve(_ minimum: Int) {
        if minimum > capacity { grow(to: minimum) }
    }

    private mutating func grow() { grow(to: capacity * 2) }

    private mutating func grow(to newCapacity: Int) {
        let newBase = UnsafeMutablePointer<JSONNode>.allocate(capacity: newCapacity)
        newBase.moveInitialize(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }

    /// Hands the memory to its new owner, who deallocates it.
    consuming func release() -> UnsafeMutablePointer<JSONNode> {
        let released = base
        discard self
        return released
    }
}
