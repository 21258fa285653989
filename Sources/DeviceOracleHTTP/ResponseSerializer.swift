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

    static let continueResponse: StaticString = "HTTP/1.1 100 Continue\r\n\r\n"

    /// Appends the response; `omitBody` for HEAD (same headers, no body).
    static func append(_ response: HTTPResponse, to out: inout OutputQueue, date: [UInt8], omitBody: Bool,
                       connection: ConnectionField) {
        let status = response.status
        out.reserveCapacity(out.count + 160 + response.body.count)
        if let statusLine = HTTPStatusText.statusLine(status) {
            out.append(statusLine)
        } else {
            out.append("HTTP/1.1 ")
            out.appendDecimal(status)
            out.append(0x20)
            out.append(HTTPStatusText.reason(status))
            out.append("\r\n")
        }
        out.append(date)
        // RFC 9110 §8.6: no Content-Length on 1xx and 204 (nor a body on 304).
        let mayHaveBody = status >= 200 && status != 204 && status != 304
        if mayHaveBody {
            if let contentType = response.contentType {
                out.append("Content-Type: ")
                out.append(utf8: contentType)
                out.append("\r\n")
            }
            out.append("Content-Length: ")
            out.appendDecimal(response.body.count)
            out.append("\r\n")
        }
        for (name, value) in response.headers {
            out.append(utf8: name)
            out.append(": ")
            out.append(utf8: value)
            out.append("\r\n")
        }
        switch connection {
        case .none: break
        case .close: out.append("Connection: close\r\n")
        case .keepAlive: out.append("Connection: keep-alive\r\n")
        }
        out.append("\r\n")
        if mayHaveBody && !omitBody {
            out.append(body: response.body)
        }
    }
}

/// One access line: `ts`, `level`, `msg`, `id`, `method`, `path`, `status`, `bytes`,
/// `ms`, the response's log fields, `userAgent`. No bodies, queries or other header values.
enum AccessLine {
    static func append(to out: inout [UInt8], timestampPrefix: [UInt8], milliseconds: Int, id: UInt64,
                       method: String?, path: String?, status: Int, bytes: Int, elapsedNanoseconds: Int64,
                       fields: [(String, String)], userAgent: String?) {
        var timestamp: [UInt8] = [0x22]
        timestamp += timestampPrefix
        timestamp += [UInt8(48 + milliseconds / 100), UInt8(48 + milliseconds / 10 % 10), UInt8(48 + milliseconds % 10)]
        timestamp += [UInt8(ascii: "Z"), 0x22]
        var writer = JSONWriter(capacity: 192)
        writer.beginObject()
        writer.key("ts")
        writer.raw(timestamp)
        writer.key("level")
        writer.string("info")
        writer.key("msg")
        writer.string("request")
        writer.key("id")
        writer.string(escaping: String(id, radix: 16))
        if let method {
            writer.key("method")
            writer.string(escaping: method)
        }
        if let path {
            writer.key("path")
            writer.string(escaping: path)
        }
        writer.key("status")
        writer.integer(status)
        writer.key("bytes")
        writer.integer(bytes)
        writer.key("ms")
        writer.number(Double(elapsedNanoseconds / 1000) / 1000)
        for (name, value) in fields {
            writer.key(escaping: name)
            writer.string(escaping: value)
        }
        if let userAgent {
            writer.key("userAgent")
            writer.string(escaping: userAgent)
        }
        writer.endObject()
        out += writer.bytes
        out.append(0x0A)
    }
}
