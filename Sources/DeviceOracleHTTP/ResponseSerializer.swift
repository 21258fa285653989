import DeviceOracleJSON

/// Writes a response head and body into one buffer, so it leaves in one `send`.
enum ResponseSerializer {
    enum ConnectionField {
        /// HTTP/1.1 keep-alive: nothing to say.
        case none
        case close
        /// An HTTP/1.0 client asked to keep the connection.
        case keepAlive
    }

    static let continueResponse = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    /// Appends the response; `omitBody` for HEAD (same headers, no body).
    static func append(_ response: HTTPResponse, to out: inout [UInt8], date: [UInt8], omitBody: Bool,
                       connection: ConnectionField) {
        let status = response.status
        out.reserveCapacity(out.count + 160 + response.body.count)
        out += "HTTP/1.1 ".utf8
        appendDecimal(status, to: &out)
        out.append(0x20)
        out += HTTPStatusText.reason(status).utf8
        out += "\r\n".utf8
        out += date
        // RFC 9110 §8.6: no Content-Length on 1xx and 204 (nor a body on 304).
        let mayHaveBody = status >= 200 && status != 204 && status != 304
        if mayHaveBody {
            if let contentType = response.contentType {
                out += "Content-Type: ".utf8
                out += contentType.utf8
                out += "\r\n".utf8
            }
            out += "Content-Length: ".utf8
            appendDecimal(response.body.count, to: &out)
            out += "\r\n".utf8
        }
        for (name, value) in response.headers {
            out += name.utf8
            out += ": ".utf8
            out += value.utf8
            out += "\r\n".utf8
        }
        switch connection {
        case .none: break
        case .close: out += "Connection: close\r\n".utf8
        case .keepAlive: out += "Connection: keep-alive\r\n".utf8
        }
        out += "\r\n".utf8
        if mayHaveBody && !omitBody {
            out += response.body
        }
    }

    static func appendDecimal(_ value: Int, to out: inout [UInt8]) {
        if value < 10 {
            out.append(UInt8(48 + max(value, 0)))
            return
        }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        var count = 0
        var rest = value
        withUnsafeMutableBytes(of: &digits) { scratch in
            while rest > 0 {
                count += 1
                scratch[24 - count] = UInt8(48 + rest % 10)
                rest /= 10
            }
            out.append(contentsOf: scratch[(24 - count)...])
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
