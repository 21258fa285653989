/// Decodes one request body incrementally: a fixed length, or the chunked coding of
/// RFC 9112 §7.1 with its extension grammar and trailer section checked byte by byte.
/// Body bytes are handed out as ranges of the input, never copied here.
struct BodyDecoder {
    enum Step {
        /// Body bytes: this range of the input.
        case data(Range<Int>)
        /// The body is complete.
        case end
        case failure(HTTPError)
        /// Every byte of the input was consumed.
        case needMore
    }

    /// A chunk-size line (size and extensions) longer than this is refused.
    static let maxChunkLineBytes = 4096
    /// Trailer fields whose meaning would change how the request is framed, routed,
    /// authenticated or read (RFC 9110 §6.5.1): a sender putting them in trailers is
    /// broken or smuggling, so they are refused rather than silently dropped.
    static let forbiddenTrailers: [StaticString] = [
        "content-length", "transfer-encoding", "host", "authorization", "content-type",
        "content-encoding", "content-range", "trailer", "expect", "connection", "cookie",
        "proxy-authorization", "te", "upgrade",
    ]

    private enum ChunkState {
        case size
        /// After the size, an extension name or value: whitespace must lead to ";".
        case afterToken(sawWhitespace: Bool, mayTakeValue: Bool)
        case extensionNameStart
        case extensionName
        case extensionValueStart
        case extensionToken
        case extensionQuoted
        case extensionQuotedEscape
        case sizeLF
        case data(remaining: Int)
        case dataCR
        case dataLF
        case trailerLineStart
        case trailerName
        case trailerValue
        case trailerLF
        case finalLF
    }

    private enum Mode {
        case length(remaining: Int)
        case chunked(ChunkState)
        case done
    }

    private var mode: Mode
    /// Raised for a body handled as it arrives (`--max-stream-bytes`).
    var maxBodyBytes: Int
    private let limits: HeadLimits
    /// What a chunked body has counted so far; all zero when a body starts.
    private struct ChunkedCounts {
        var received = 0
        var chunkSize = 0
        var chunkDigits = 0
        var lineBytes = 0
        var trailerBytes = 0
        var trailerFields = 0
    }

    private var counts = ChunkedCounts()
    /// The first bytes of the trailer name being read, lowercased, to spot forbidden ones.
    private var trailerName: [UInt8] = []

    init(framing: BodyFraming, maxBodyBytes: Int, limits: HeadLimits = HeadLimits()) {
        mode = Self.mode(of: framing)
        self.maxBodyBytes = maxBodyBytes
        self.limits = limits
    }

    private static func mode(of framing: BodyFraming) -> Mode {
        switch framing {
        case .none: .done
        case .length(let length): length == 0 ? .done : .length(remaining: length)
        case .chunked: .chunked(.size)
        }
    }

    /// Decodes the next request's body, framed as `framing`, as a new decoder would: in
    /// place, since a new one assigned over this destroyed it (its trailer name's array
    /// released) once a request. The trailer name is emptied when the next one starts.
    mutating func restart(framing: BodyFraming, maxBodyBytes: Int) {
        mode = Self.mode(of: framing)
        self.maxBodyBytes = maxBodyBytes
        counts = ChunkedCounts()
    }

    /// Consumes input from `index` on and returns the next step.
    mutating func decode(_ input: UnsafeRawBufferPointer, index: inout Int) -> Step {
        switch mode {
        case .done:
            return .end
        case .length(let remaining):
            guard index < input.count else { return .needMore }
            let take = min(remaining, input.count - index)
            let range = index..<(index + take)
            index += take
            mode = remaining == take ? .done : .length(remaining: remaining - take)
            return .data(range)
        case .chunked(let state):
            return decodeChunked(input, index: &index, state: state)
        }
    }

    private mutating func decodeChunked(_ input: UnsafeRawBufferPointer, index: inout Int, state initial: ChunkState) -> Step {
        var state = initial
        var i = index
        defer { index = i }
        func fail(_ detail: String) -> Step {
            mode = .done
            return .failure(.badRequest(detail))
        }
        while i < input.count {
            if case .data(let remaining) = state {
                let take = min(remaining, input.count - i)
                let range = i..<(i + take)
                i += take
                mode = .chunked(remaining == take ? .dataCR : .data(remaining: remaining - take))
                return .data(range)
            }
            let byte = input[i]
            i += 1
            switch state {
            case .size, .afterToken, .extensionNameStart, .extensionName, .extensionValueStart,
                 .extensionToken, .extensionQuoted, .extensionQuotedEscape, .sizeLF:
                counts.lineBytes += 1
                if counts.lineBytes > Self.maxChunkLineBytes { return fail("a chunk-size line is longer than \(Self.maxChunkLineBytes) bytes") }
            default:
                break
            }
            switch state {
            case .size:
                if let digit = ByteClass.hexValue(byte) {
                    counts.chunkDigits += 1
                    // 15 hex digits fit in 63 bits; leading zeros do not count.
                    if counts.chunkSize > (Int.max >> 4) { return fail("a chunk size does not fit in 63 bits") }
                    counts.chunkSize = counts.chunkSize << 4 | digit
                } else if counts.chunkDigits == 0 {
                    return fail("a chunk size is not hexadecimal digits")
                } else if byte == 0x0D {
                    state = .sizeLF
                } else if byte == UInt8(ascii: ";") {
                    state = .extensionNameStart
                } else if ByteClass.isWhitespace(byte) {
                    state = .afterToken(sawWhitespace: true, mayTakeValue: false)
                } else {
                    return fail("a chunk size is not hexadecimal digits")
                }
            case .afterToken(let sawWhitespace, let mayTakeValue):
                if ByteClass.isWhitespace(byte) {
                    state = .afterToken(sawWhitespace: true, mayTakeValue: mayTakeValue)
                } else if byte == UInt8(ascii: ";") {
                    state = .extensionNameStart
                } else if byte == UInt8(ascii: "=") && mayTakeValue {
                    state = .extensionValueStart
                } else if byte == 0x0D && !sawWhitespace {
                    state = .sizeLF
                } else {
                    return fail("a chunk-size line has whitespace or bytes the chunk-ext grammar does not allow")
                }
            case .extensionNameStart:
                if ByteClass.isWhitespace(byte) { break }
                guard ByteClass.isToken(byte) else { return fail("a chunk extension name is not a token") }
                state = .extensionName
            case .extensionName:
                if ByteClass.isToken(byte) { break }
                if byte == UInt8(ascii: "=") {
                    state = .extensionValueStart
                } else if byte == UInt8(ascii: ";") {
                    state = .extensionNameStart
                } else if byte == 0x0D {
                    state = .sizeLF
                } else if ByteClass.isWhitespace(byte) {
                    state = .afterToken(sawWhitespace: true, mayTakeValue: true)
                } else {
                    return fail("a chunk extension name is not a token")
                }
            case .extensionValueStart:
                if ByteClass.isWhitespace(byte) { break }
                if byte == UInt8(ascii: "\"") {
                    state = .extensionQuoted
                } else if ByteClass.isToken(byte) {
                    state = .extensionToken
                } else {
                    return fail("a chunk extension value is not a token or quoted-string")
                }
            case .extensionToken:
                if ByteClass.isToken(byte) { break }
                if byte == UInt8(ascii: ";") {
                    state = .extensionNameStart
                } else if byte == 0x0D {
                    state = .sizeLF
                } else if ByteClass.isWhitespace(byte) {
                    state = .afterToken(sawWhitespace: true, mayTakeValue: false)
                } else {
                    return fail("a chunk extension value is not a token or quoted-string")
                }
            case .extensionQuoted:
                if byte == UInt8(ascii: "\"") {
                    state = .afterToken(sawWhitespace: false, mayTakeValue: false)
                } else if byte == UInt8(ascii: "\\") {
                    state = .extensionQuotedEscape
                } else if !(byte == 0x09 || (byte >= 0x20 && byte != 0x7F)) {
                    return fail("a chunk extension quoted-string holds a control byte")
                }
            case .extensionQuotedEscape:
                guard byte == 0x09 || (byte >= 0x20 && byte != 0x7F) else {
                    return fail("a chunk extension quoted-pair holds a control byte")
                }
                state = .extensionQuoted
            case .sizeLF:
                guard byte == 0x0A else { return fail("a chunk-size line does not end with CRLF") }
                counts.lineBytes = 0
                counts.chunkDigits = 0
                if counts.chunkSize == 0 {
                    state = .trailerLineStart
                } else {
                    counts.received += counts.chunkSize
                    if counts.chunkSize > maxBodyBytes || counts.received > maxBodyBytes {
                        mode = .done
                        return .failure(HTTPError(status: 413, detail: "the chunked body is over the limit of \(maxBodyBytes) bytes"))
                    }
                    state = .data(remaining: counts.chunkSize)
                    counts.chunkSize = 0
                }
            case .data:
                break  // handled above
            case .dataCR:
                guard byte == 0x0D else { return fail("chunk data is not followed by CRLF") }
                state = .dataLF
            case .dataLF:
                guard byte == 0x0A else { return fail("chunk data is not followed by CRLF") }
                state = .size
            case .trailerLineStart, .trailerName, .trailerValue, .trailerLF, .finalLF:
                counts.trailerBytes += 1
                if counts.trailerBytes > limits.maxHeadBytes {
                    mode = .done
                    return .failure(HTTPError(status: 431, detail: "the trailer section is over \(limits.maxHeadBytes) bytes"))
                }
                switch state {
                case .trailerLineStart:
                    if byte == 0x0D {
                        state = .finalLF
                    } else if ByteClass.isToken(byte) {
                        trailerName.removeAll(keepingCapacity: true)
                        trailerName.append(byte | (isLetter(byte) ? 0x20 : 0))
                        state = .trailerName
                    } else {
                        return fail("a trailer field name is empty, not a token, or starts with whitespace")
                    }
                case .trailerName:
                    if ByteClass.isToken(byte) {
                        if trailerName.count <= 20 { trailerName.append(byte | (isLetter(byte) ? 0x20 : 0)) }
                    } else if byte == UInt8(ascii: ":") {
                        if isForbiddenTrailer() { return fail("the trailer section carries a field that is not allowed in trailers") }
                        state = .trailerValue
                    } else {
                        return fail("a trailer field name is not a token followed by a colon")
                    }
                case .trailerValue:
                    if byte == 0x0D {
                        state = .trailerLF
                    } else if !(byte == 0x09 || (byte >= 0x20 && byte != 0x7F)) {
                        return fail("a trailer field value holds a control byte")
                    }
                case .trailerLF:
                    guard byte == 0x0A else { return fail("a trailer field value holds a bare CR") }
                    counts.trailerFields += 1
                    if counts.trailerFields > limits.maxFields {
                        mode = .done
                        return .failure(HTTPError(status: 431, detail: "more than \(limits.maxFields) trailer fields"))
                    }
                    state = .trailerLineStart
                case .finalLF:
                    guard byte == 0x0A else { return fail("the chunked body does not end with CRLF") }
                    mode = .done
                    return .end
                default:
                    break
                }
            }
        }
        mode = .chunked(state)
        return .needMore
    }

    private func isForbiddenTrailer() -> Bool {
        trailerName.withUnsafeBytes { name in
            Self.forbiddenTrailers.contains { asciiEqual(name, $0) }
        }
    }
}
