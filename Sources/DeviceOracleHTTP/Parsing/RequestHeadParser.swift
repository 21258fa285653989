/// Limits of a request head (http.md "Limits and timeouts"), checked while reading.
package struct HeadLimits: Sendable, Equatable {
    /// Request line plus header section, CRLFs included: over it is `431`.
    package var maxHeadBytes = 16 * 1024
    /// Header fields: more is `431`.
    package var maxFields = 100
    /// The request target: longer is `414`.
    package var maxTargetBytes = 8 * 1024
    /// No known method is longer than 7 bytes; a longer token is refused as malformed
    /// (`400`) instead of being buffered up to the head limit for a `501`.
    package var maxMethodBytes = 32

    package init() {}
}

/// A range of a request head's bytes in 8 bytes rather than `Range<Int>`'s 16. A
/// `RequestHead` is moved a few times between the parser and the handler; kept small,
/// each move is a few register moves instead of a call to `memcpy`. (The parser never
/// accepts a head longer than `UInt32.max` bytes.)
struct HeadRange: Equatable, Sendable {
    private var start: UInt32
    private var end: UInt32

    init(_ range: Range<Int>) {
        start = UInt32(truncatingIfNeeded: range.lowerBound)
        end = UInt32(truncatingIfNeeded: range.upperBound)
    }

    var range: Range<Int> { Int(start)..<Int(end) }
}

/// A syntactically valid request head, before its meaning is checked. Byte ranges
/// point into `bytes`, which holds the head from its first byte. Its fields are the
/// parser's `fields` (kept there, so no field table is allocated per request).
struct RawRequestHead {
    struct Field: Sendable {
        var name: Range<Int>
        var value: Range<Int>
    }

    var bytes: [UInt8]
    var method: Range<Int>
    var target: Range<Int>
    var version: Range<Int>
    /// Where the first field line starts (just after the request line).
    var fieldsStart: Int
}

/// The field lines of the head being read: each one's name and value ranges, in order.
/// Not an array: each append to one checked that its storage was not shared, a call
/// per field. This memory is the parser's alone, so it is written in place. Noncopyable,
/// as are the parser and the framer that hold it: a copy would share the memory.
struct FieldLines: ~Copyable {
    private typealias Field = RawRequestHead.Field
    /// How many fields it holds, and room for how many (`ManagedBuffer.capacity` asks
    /// the allocator each time).
    private struct Header {
        var count: Int
        var capacity: Int
    }

    private var buffer = Self.buffer(capacity: Self.keptCapacity, count: 0)

    /// Memory for more fields than this is let go once their head has been read.
    private static let keptCapacity = 16

    private static func buffer(capacity: Int, count: Int) -> ManagedBuffer<Header, Field> {
        ManagedBuffer<Header, Field>.create(minimumCapacity: capacity) { _ in Header(count: count, capacity: capacity) }
    }

    /// Through pointers only: `ManagedBuffer.header` is a class's stored property, each
    /// access to it checked for exclusivity at run time.
    private var header: Header { buffer.withUnsafeMutablePointerToHeader { $0.pointee } }

    var count: Int { header.count }

    /// Forgets the fields, keeping their memory unless it grew past `keptCapacity`.
    mutating func removeAll() {
        if header.capacity > Self.keptCapacity {
            buffer = Self.buffer(capacity: Self.keptCapacity, count: 0)
        } else {
            buffer.withUnsafeMutablePointerToHeader { $0.pointee.count = 0 }
        }
    }

    mutating func append(_ field: RawRequestHead.Field) {
        let header = self.header
        if header.count == header.capacity {
            let old = buffer
            buffer = Self.buffer(capacity: 2 * header.count, count: header.count)
            buffer.withUnsafeMutablePointerToElements { new in
                old.withUnsafeMutablePointerToElements { new.initialize(from: $0, count: header.count) }
            }
        }
        buffer.withUnsafeMutablePointers { header, fields in
            (fields + header.pointee.count).initialize(to: field)
            header.pointee.count += 1
        }
    }

    func withUnsafeBufferPointer<R>(_ body: (UnsafeBufferPointer<RawRequestHead.Field>) -> R) -> R {
        buffer.withUnsafeMutablePointers { header, fields in body(UnsafeBufferPointer(start: fields, count: header.pointee.count)) }
    }
}

/// The incremental RFC 9112 §2-5 request-head parser: fed bytes as they arrive, it
/// validates each byte once, keeps the bytes of a head that spans reads (never more
/// than the head limit), and never rescans what it has consumed.
///
/// Strict on purpose: bare LF, bare CR, obs-fold, whitespace before a colon or at the
/// start of a line, control bytes in values and non-token names are all `400`.
struct RequestHeadParser: ~Copyable {
    enum Result {
        case needMore
        case complete(RawRequestHead)
        case failure(HTTPError)
    }

    /// In the order a head is read: on the usual path each state falls through to the next.
    private enum State {
        case startLF, start, method, targetStart, target, version, requestLineLF
        case lineStart, name, valueStart, value, fieldLF, finalLF
    }

    let limits: HeadLimits
    private var state = State.start
    /// Bytes of this head seen so far (head coordinates), leading empty lines included.
    private var position = 0
    /// The head's bytes when it spans reads.
    private var saved: [UInt8] = []
    private var method = 0..<0
    private var target = 0..<0
    private var version = 0..<0
    /// The fields of the head being read; after `.complete`, those of the complete head
    /// until the next head's request line has been read. Reused from head to head.
    private(set) var fields = FieldLines()
    private var fieldsStart = 0
    private var nameStart = 0, nameEnd = 0, valueStart = 0, valueEnd = 0

    init(limits: HeadLimits) {
        self.limits = limits
    }

    /// True once a byte of a request line has arrived (a header timeout then answers
    /// `408`; before it, the connection is closed silently).
    var hasStarted: Bool {
        switch state {
        case .start, .startLF: false
        default: true
        }
    }

    /// Consumes bytes of `input` from `index` on. On `.complete` and `.failure`, `index`
    /// is just past the last byte used; on `.needMore` every byte was consumed. A
    /// complete head's bytes are written in `recycled`'s memory (then left empty).
    ///
    /// Each state consumes what it can and, on the usual path, falls through to the next
    /// one instead of going back through the switch (an indirect jump per state change
    /// cost more than the byte checks); so every state begins by checking that a byte is there.
    mutating func parse(_ input: UnsafeRawBufferPointer, index: inout Int, recycling recycled: inout [UInt8]) -> Result {
        let start = index
        let base = position - start  // head coordinate of input[i] is base + i
        var i = index
        let end = input.count
        // The input index of the first byte past the head limit: no byte there is examined.
        let limit = min(end, min(limits.maxHeadBytes, Int(UInt32.max)) - base)
        parsing: while i < limit {
            switch state {
            case .startLF:
                // RFC 9112 §2.2: empty lines before the request line are ignored.
                guard input[i] == 0x0A else { return fail("a bare CR before the request line", at: i, &index) }
                state = .start
                i += 1
            case .start:
                let byte = input[i]
                if byte == 0x0D {
                    state = .startLF
                    i += 1
                    continue parsing
                }
                guard ByteClass.isToken(byte) else { return fail("the request line does not start with a method", at: i, &index) }
                method = (base + i)..<(base + i)
                state = .method
                i += 1
                fallthrough
            case .method:
                while i < limit, ByteClass.isToken(input[i]) {
                    if base + i - method.lowerBound >= limits.maxMethodBytes {
                        return fail("the method is longer than \(limits.maxMethodBytes) bytes", at: i, &index)
                    }
                    i += 1
                }
                guard i < limit else { continue parsing }
                guard input[i] == 0x20 else { return fail("the method is not a token followed by one space", at: i, &index) }
                method = method.lowerBound..<(base + i)
                state = .targetStart
                i += 1
                fallthrough
            case .targetStart:
                guard i < limit else { continue parsing }
                guard input[i] > 0x20 && input[i] < 0x7F else {
                    return fail("the request target must start right after one space with a visible ASCII character", at: i, &index)
                }
                target = (base + i)..<(base + i)
                state = .target
                i += 1
                fallthrough
            case .target:
                // The longest target bounds the loop: no check of its length per byte.
                let tooLong = target.lowerBound - base + limits.maxTargetBytes  // the input index past it
                let bound = min(limit, tooLong)
                i = ByteClass.endOfVisibleASCII(input, from: i, to: bound)
                if i == tooLong, i < limit, input[i] > 0x20 && input[i] < 0x7F {
                    index = i
                    return .failure(HTTPError(status: 414, detail: "the request target is longer than \(limits.maxTargetBytes) bytes"))
                }
                guard i < limit else { continue parsing }
                guard input[i] == 0x20 else {
                    return fail("the request target holds a byte that is not visible ASCII, or the request line has no version", at: i, &index)
                }
                target = target.lowerBound..<(base + i)
                version = (base + i + 1)..<(base + i + 1)
                state = .version
                i += 1
                fallthrough
            case .version:
                // At most 8 visible bytes, then the CR: the bound is the input index past them.
                let longest = min(limit, version.lowerBound - base + 8)
                while i < longest, input[i] > 0x20 && input[i] < 0x7F { i += 1 }
                guard i < limit else { continue parsing }
                guard input[i] == 0x0D else { return fail("the HTTP version is malformed", at: i, &index) }
                version = version.lowerBound..<(base + i)
                state = .requestLineLF
                i += 1
                fallthrough
            case .requestLineLF:
                guard i < limit else { continue parsing }
                guard input[i] == 0x0A else { return fail("the request line does not end with CRLF", at: i, &index) }
                fields.removeAll()
                fieldsStart = base + i + 1
                state = .lineStart
                i += 1
                fallthrough
            case .lineStart:
                guard i < limit else { continue parsing }
                let byte = input[i]
                if byte == 0x0D {
                    state = .finalLF
                    i += 1
                    continue parsing
                }
                guard ByteClass.isToken(byte) else {
                    if ByteClass.isWhitespace(byte) {
                        return fail("a header line starts with whitespace (obs-fold is not accepted)", at: i, &index)
                    }
                    return fail("a header field name is empty or not a token", at: i, &index)
                }
                nameStart = base + i
                state = .name
                i += 1
                fallthrough
            case .name:
                while i < limit, ByteClass.isToken(input[i]) { i += 1 }
                guard i < limit else { continue parsing }
                guard input[i] == UInt8(ascii: ":") else {
                    return fail("a header field name is not a token followed by a colon", at: i, &index)
                }
                nameEnd = base + i
                state = .valueStart
                i += 1
                fallthrough
            case .valueStart:
                while i < limit, ByteClass.isWhitespace(input[i]) { i += 1 }
                guard i < limit else { continue parsing }
                guard input[i] == 0x0D || ByteClass.isFieldVisible(input[i]) else {
                    return fail("a header field value holds a control byte", at: i, &index)
                }
                // An empty value ends at once: `.value` stops at the CR.
                valueStart = base + i
                valueEnd = base + i
                state = .value
                fallthrough
            case .value:
                // Kept in a register while the value is read, stored once after it. A run of
                // visible bytes is one test a byte; the value's end moves once a run.
                var end = valueEnd
                while i < limit {
                    let run = i
                    i = ByteClass.endOfFieldVisible(input, from: i, to: limit)
                    if i > run { end = base + i }
                    guard i < limit, ByteClass.isWhitespace(input[i]) else { break }
                    i += 1
                }
                valueEnd = end
                guard i < limit else { continue parsing }
                guard input[i] == 0x0D else { return fail("a header field value holds a control byte", at: i, &index) }
                state = .fieldLF
                i += 1
                fallthrough
            case .fieldLF:
                guard i < limit else { continue parsing }
                guard input[i] == 0x0A else { return fail("a header field value holds a bare CR", at: i, &index) }
                if fields.count == limits.maxFields {
                    index = i
                    return .failure(HTTPError(status: 431, detail: "more than \(limits.maxFields) header fields"))
                }
                fields.append(RawRequestHead.Field(name: nameStart..<nameEnd, value: valueStart..<valueEnd))
                state = .lineStart
                i += 1
            case .finalLF:
                guard input[i] == 0x0A else { return fail("the header section does not end with CRLF", at: i, &index) }
                i += 1
                index = i
                return .complete(finish(input, start: start, end: i, recycling: &recycled))
            }
        }
        if i < end {
            index = i
            return .failure(HTTPError(status: 431, detail: "the request line and header fields exceed \(limits.maxHeadBytes) bytes"))
        }
        if start < end {
            saved.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[start..<end]))
        }
        position = base + end
        index = end
        return .needMore
    }

    private mutating func finish(_ input: UnsafeRawBufferPointer, start: Int, end: Int,
                                 recycling recycled: inout [UInt8]) -> RawRequestHead {
        var bytes: [UInt8]
        if saved.isEmpty {
            if recycled.capacity >= end - start {
                bytes = []
                swap(&bytes, &recycled)
                bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[start..<end]))
            } else {
                bytes = Array(UnsafeRawBufferPointer(rebasing: input[start..<end]))
            }
        } else {
            bytes = saved
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[start..<end]))
        }
        let head = RawRequestHead(bytes: bytes, method: method, target: target, version: version, fieldsStart: fieldsStart)
        reset()
        return head
    }

    private mutating func fail(_ detail: String, at i: Int, _ index: inout Int) -> Result {
        index = i
        return .failure(.badRequest(detail))
    }

    /// Ready for the next head on the same connection.
    mutating func reset() {
        state = .start
        position = 0
        if !saved.isEmpty { saved = [] }  // the usual head was never saved: nothing to release
    }
}
