import DeviceOracleJSON

/// Writes a response head and body to an output queue, so it leaves in one `send`
/// (a large body follows its head by reference, in the same `sendmsg`).
enum ResponseSerializer {
    enum ConnectionField {
        /// HTTP/1.1 keep-alive: nothing to say.
        case none
        case close
        /// An HTTP/1.0 client asked to keep the connection.
        case keepAlive
    }

    /// How the body follows the head.
    enum BodyFraming: Equatable {
        /// `response.body`, with its Content-Length.
        case whole
        /// `Transfer-Encoding: chunked`; the caller appends the pieces and the last chunk.
        case chunked
        /// A Content-Length of this many bytes; the caller appends them, as pieces.
        case length(Int)
        /// No length: the body ends when the connection closes (an HTTP/1.0 client's
        /// streamed answer, RFC 9112 §6.3 rule 8); the caller appends the pieces.
        case closeDelimited
    }

    static let continueResponse: StaticString = "HTTP/1.1 100 Continue\r\n\r\n"

    /// On every final answer, the server's own problems included: no browser reads a
    /// JSON, XML or problem body as HTML or script, whatever it holds.
    static let noSniff: StaticString = "X-Content-Type-Options: nosniff\r\n"
    /// `noSniff` and the Content-Type of the most frequent answers, JSON, in one copy.
    static let noSniffJSON: StaticString = "X-Content-Type-Options: nosniff\r\nContent-Type: application/json\r\n"
    /// `noSniff`, the Content-Type of the most frequent answers, JSON, and the name of
    /// their Content-Length, in one copy.
    static let noSniffJSONLength: StaticString =
        "X-Content-Type-Options: nosniff\r\nContent-Type: application/json\r\nContent-Length: "
    private static let json = "application/json"

    /// Appends the response; `omitBody` for HEAD (same headers, no body).
    ///
    /// The head is written in one piece, its fixed parts as few literals as it can (a
    /// JSON answer's fields up to its length's digits are one): each append is a call
    /// and a copy, about 50 instructions.
    static func append(_ response: HTTPResponse, to out: inout OutputQueue, date: UnsafeRawBufferPointer, omitBody: Bool,
                       connection: ConnectionField, framing: BodyFraming = .whole) {
        let status = response.status
        let statusLine = HTTPStatusText.statusLine(status)
        let reason = HTTPStatusText.reason(status)
        // RFC 9110 §8.6: no Content-Length on 1xx and 204 (nor a body on 304).
        let mayHaveBody = status >= 200 && status != 204 && status != 304
        // The length the head states, if any.
        var length: Int?
        if mayHaveBody {
            switch framing {
            case .whole: length = response.body.count
            case .length(let declared): length = declared
            case .chunked, .closeDelimited: break
            }
        }
        // JSON, the most frequent answers: its fields up to the length's digits are one literal.
        let isJSON = mayHaveBody && response.contentType == Self.json
        // An upper bound of the head's size, so it is written in one piece.
        var headBytes = 9 + 20 + 1 + reason.utf8CodeUnitCount + 2 + date.count + Self.noSniff.utf8CodeUnitCount + 24 + 2
        if mayHaveBody {
            headBytes += 28 + 20 + 2
            if let contentType = response.contentType { headBytes += 14 + contentType.utf8.count + 2 }
        }
        for (name, value) in response.headers { headBytes += name.utf8.count + 2 + value.utf8.count + 2 }
        out.append(maxCount: headBytes) { head in
            if let statusLine {
                head.append(statusLine)
            } else {
                head.append("HTTP/1.1 ")
                head.appendDecimal(status)
                head.append(" ")
                head.append(reason)
                head.append("\r\n")
            }
            head.append(date)
            if isJSON {
                // The length's name ends the literal when a length follows.
                head.append(length == nil ? Self.noSniffJSON : Self.noSniffJSONLength)
            } else if mayHaveBody, let contentType = response.contentType {
                head.append(Self.noSniff)
                head.append("Content-Type: ")
                head.append(utf8: contentType)
                head.append("\r\n")
            } else {
                head.append(Self.noSniff)
            }
            if let length {
                if !isJSON { head.append("Content-Length: ") }
                head.appendDecimal(length)
                head.append("\r\n")
            } else if mayHaveBody, framing == .chunked {
                head.append("Transfer-Encoding: chunked\r\n")
            }
            for (name, value) in response.headers {
                head.append(utf8: name)
                head.append(": ")
                head.append(utf8: value)
                head.append("\r\n")
            }
            switch connection {
            case .none: head.append("\r\n")
            case .close: head.append("Connection: close\r\n\r\n")
            case .keepAlive: head.append("Connection: keep-alive\r\n\r\n")
            }
        }
        if mayHaveBody && !omitBody && framing == .whole {
            out.append(body: response.body)
        }
    }

    /// One piece of a streamed body: a chunk, or the bytes as they are.
    static func appendPiece(_ piece: OutputQueue.Body, to out: inout OutputQueue, chunked: Bool) {
        if chunked { appendChunk(piece, to: &out) } else { out.append(body: piece) }
    }

    /// One chunk of a chunked body (RFC 9112 §7.1): its size in hex, the bytes, CRLF.
    static func appendChunk(_ piece: OutputQueue.Body, to out: inout OutputQueue) {
        guard piece.count > 0 else { return }  // a zero-size chunk would end the body
        out.append(maxCount: 18) { line in
            withHexDigits(UInt64(piece.count)) { line.append(UnsafeRawBufferPointer($0)) }
            line.append("\r\n")
        }
        out.append(body: piece)
        out.append("\r\n")
    }

    /// The last chunk and the empty trailer section that end a chunked body.
    static func appendLastChunk(to out: inout OutputQueue) {
        out.append("0\r\n\r\n")
    }

    /// The last chunk and a trailer section with `trailers` (RFC 9112 §7.1.2).
    static func appendLastChunk(trailers: [(String, String)], to out: inout OutputQueue) {
        guard !trailers.isEmpty else { return appendLastChunk(to: &out) }
        out.append(maxCount: 5 + trailers.reduce(0) { $0 + $1.0.utf8.count + $1.1.utf8.count + 4 }) { section in
            section.append("0\r\n")
            for (name, value) in trailers {
                section.append(utf8: name)
                section.append(": ")
                section.append(utf8: value)
                section.append("\r\n")
            }
            section.append("\r\n")
        }
    }
}

/// `value` in lowercase hexadecimal without leading zeros, handed to `body` from the
/// stack: a request id in an access line, a chunk's size.
func withHexDigits<Result>(_ value: UInt64, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 16) { text in
        var count = 0
        var rest = value
        repeat {
            count += 1
            let digit = UInt8(truncatingIfNeeded: rest & 0xF)
            text[16 - count] = digit < 10 ? 48 + digit : UInt8(ascii: "a") + digit - 10
            rest >>= 4
        } while rest != 0
        return body(UnsafeBufferPointer(rebasing: text[(16 - count)...]))
    }
}
