/// Limits of a request head (http.md "Limits and timeouts"), checked while reading.
public struct HeadLimits: Sendable, Equatable {
    /// Request line plus header section, CRLFs included: over it is `431`.
    public var maxHeadBytes = 16 * 1024
    /// Header fields: more is `431`.
    public var maxFields = 100
    /// The request target: longer is `414`.
    public var maxTargetBytes = 8 * 1024
    /// No known method is longer than 7 bytes; a longer token is refused as malformed
    /// (`400`) instead of being buffered up to the head limit for a `501`.
    public var maxMethodBytes = 32

    public init() {}
}

/// A syntactically valid request head, before its meaning is checked. Byte ranges
/// point into `bytes`, which holds the head from its first byte.
struct RawRequestHead {
    struct Field: Sendable {
        var name: Range<Int>
        var value: Range<Int>
    }

    var bytes: [UInt8]
    var method: Range<Int>
    var target: Range<Int>
    var version: Range<Int>
    var fields: [Field]
}

/// The incremental RFC 9112 §2-5 request-head parser: fed bytes as they arrive, it
/// validates each byte once, keeps the bytes of a head that spans reads (never more
/// than the head limit), and never rescans what it has consumed.
///
/// Strict on purpose: bare LF, bare CR, obs-fold, whitespace before a colon or at the
/// start of a line, control bytes in values and non-token names are all `400`.
struct RequestHeadParser {
    enum Result {
        case needMore
        case complete(RawRequestHead)
        case failure(HTTPError)
    }

    private enum State {
        case start, startLF, method, targetStart, target, version, requestLineLF
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
    private var fields: [RawRequestHead.Field] = []
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
    /// is just past the last byte used; on `.needMore` every byte was consumed.
    mutating func parse(_ input: UnsafeRawBufferPointer, index: inout Int) -> Result {
        let start = index
        let base = position - start  // head coordinate of input[i] is base + i
        var i = index
        let end = input.count
        while i < end {
            let byte = input[i]
            let p = base + i
            if p >= limits.maxHeadBytes {
                index = i
                return .failure(HTTPError(status: 431, detail: "the request line and header fields exceed \(limits.maxHeadBytes) bytes"))
            }
            switch state {
            case .start:
                if byte == 0x0D {
                    state = .startLF
                } else if ByteClass.isToken(byte) {
                    method = p..<p
                    state = .method
                } else {
                    return fail("the request line does not start with a method", at: i, &index)
                }
            case .startLF:
                // RFC 9112 §2.2: empty lines before the request line are ignored.
                guard byte == 0x0A else { return fail("a bare CR before the request line", at: i, &index) }
                state = .start
            case .method:
                if ByteClass.isToken(byte) {
                    if p - method.lowerBound >= limits.maxMethodBytes {
                        return fail("the method is longer than \(limits.maxMethodBytes) bytes", at: i, &index)
                    }
                } else if byte == 0x20 {
                    method = method.lowerBound..<p
                    state = .targetStart
                } else {
                    return fail("the method is not a token followed by one space", at: i, &index)
                }
            case .targetStart:
                guard byte > 0x20 && byte < 0x7F else {
                    return fail("the request target must start right after one space with a visible ASCII character", at: i, &index)
                }
                target = p..<p
                state = .target
            case .target:
                if byte > 0x20 && byte < 0x7F {
                    if p - target.lowerBound >= limits.maxTargetBytes {
                        index = i
                        return .failure(HTTPError(status: 414, detail: "the request target is longer than \(limits.maxTargetBytes) bytes"))
                    }
                } else if byte == 0x20 {
                    target = target.lowerBound..<p
                    version = (p + 1)..<(p + 1)
                    state = .version
                } else {
                    return fail("the request target holds a byte that is not visible ASCII, or the request line has no version", at: i, &index)
                }
            case .version:
                if byte == 0x0D {
                    version = version.lowerBound..<p
                    state = .requestLineLF
                } else if byte <= 0x20 || byte >= 0x7F || p - version.lowerBound >= 8 {
                    return fail("the HTTP version is malformed", at: i, &index)
                }
            case .requestLineLF:
                guard byte == 0x0A else { return fail("the request line does not end with CRLF", at: i, &index) }
                state = .lineStart
            case .lineStart:
                if byte == 0x0D {
                    state = .finalLF
                } else if ByteClass.isToken(byte) {
                    nameStart = p
                    state = .name
                } else if ByteClass.isWhitespace(byte) {
                    return fail("a header line starts with whitespace (obs-fold is not accepted)", at: i, &index)
                } else {
                    return fail("a header field name is empty or not a token", at: i, &index)
                }
            case .name:
                // Scan the rest of the name without going back through the switch.
                var j = i
                while j < end, ByteClass.isToken(input[j]), base + j < limits.maxHeadBytes { j += 1 }
                if j == end || base + j >= limits.maxHeadBytes {
                    i = j
                    continue
                }
                guard input[j] == UInt8(ascii: ":") else {
                    return fail("a header field name is not a token followed by a colon", at: j, &index)
                }
                nameEnd = base + j
                state = .valueStart
                i = j
            case .valueStart:
                if ByteClass.isWhitespace(byte) {
                    break
                } else if byte == 0x0D {
                    valueStart = p
                    valueEnd = p
                    state = .fieldLF
                } else if ByteClass.isFieldVisible(byte) {
                    valueStart = p
                    valueEnd = p + 1
                    state = .value
                } else {
                    return fail("a header field value holds a control byte", at: i, &index)
                }
            case .value:
                var j = i
                while j < end, base + j < limits.maxHeadBytes {
                    let b = input[j]
                    if ByteClass.isFieldVisible(b) {
                        valueEnd = base + j + 1
                    } else if !ByteClass.isWhitespace(b) {
                        break
                    }
                    j += 1
                }
                if j == end || base + j >= limits.maxHeadBytes {
                    i = j
                    continue
                }
                guard input[j] == 0x0D else {
                    return fail("a header field value holds a control byte", at: j, &index)
                }
                state = .fieldLF
                i = j
            case .fieldLF:
                guard byte == 0x0A else { return fail("a header field value holds a bare CR", at: i, &index) }
                if fields.count == limits.maxFields {
                    index = i
                    return .failure(HTTPError(status: 431, detail: "more than \(limits.maxFields) header fields"))
                }
                fields.append(RawRequestHead.Field(name: nameStart..<nameEnd, value: valueStart..<valueEnd))
                state = .lineStart
            case .finalLF:
                guard byte == 0x0A else { return fail("the header section does not end with CRLF", at: i, &index) }
                i += 1
                index = i
                return .complete(finish(input, start: start, end: i))
            }
            i += 1
        }
        if start < end {
            saved.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[start..<end]))
        }
        position = base + end
        index = end
        return .needMore
    }

    private mutating func finish(_ input: UnsafeRawBufferPointer, start: Int, end: Int) -> RawRequestHead {
        var bytes: [UInt8]
        if saved.isEmpty {
            let count = end - start
            bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
                UnsafeMutableRawBufferPointer(buffer).copyMemory(from: UnsafeRawBufferPointer(rebasing: input[start..<end]))
                initialized = count
            }
        } else {
            bytes = saved
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[start..<end]))
        }
        let head = RawRequestHead(bytes: bytes, method: method, target: target, version: version, fields: fields)
        reset()
        return head
    }

    private mutating func fail(_ detail: String, at i: Int, _ index: inout Int) -> Result {
        index = i
        return .failure(.badRequest(detail))
    }

    /// Ready for the next head on the same connection; keeps the field list's storage.
    mutating func reset() {
        state = .start
        position = 0
        saved = []
        fields.removeAll(keepingCapacity: fields.capacity <= 16)
    }
}
