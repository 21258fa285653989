import DeviceOracleJSON

/// What is kept of each answer: nothing, the counts `/metrics` reads, or the access log's
/// whole line too, whose method, path and user agent are `String`s made per request.
enum AnswerRecording {
    case nothing, counts, lines
}

/// A member of an answer's access line, such as `"verdict": "pass"`. One made by the
/// counter that counts it (`ServerMetrics.AnswerCounter.field(_:)`, once, not per answer)
/// carries where `/metrics` counts it: no string is compared per answer.
package struct LogField: Sendable {
    package let name: String
    package let value: String
    /// The counter that made it (its `name`) and the place of `value` among its `values`.
    let counted: (counter: String, value: Int)?

    package init(_ name: String, _ value: String) {
        self.init(name, value, counted: nil)
    }

    init(_ name: String, _ value: String, counted: (counter: String, value: Int)?) {
        self.name = name
        self.value = value
        self.counted = counted
    }
}

/// What an access line (and `/metrics`) says of a request besides its size: known once its answer is
/// decided, written once the answer's body has been sent (a streamed one later). Method
/// and path are missing when the request was refused before its head was read.
struct AccessLineFields {
    var method: String?
    var path: String?
    let status: Int
    let startedAt: Int64
    var fields: [LogField] = []
    var userAgent: String?
    /// For `/metrics`: the route that answered, and why a `503` was one.
    var routeIndex: Int?
    var overload: ServerMetrics.OverloadCause?
}

extension AccessLineFields {
    /// The record of an answer to `head`, as much of it as `recording` keeps; `nil` when nothing is.
    init?(_ recording: AnswerRecording, head: borrowing RequestHead, status: Int, startedAt: Int64,
          fields: consuming [LogField] = [], routeIndex: Int?, overload: ServerMetrics.OverloadCause? = nil) {
        switch recording {
        case .nothing:
            return nil
        case .counts:
            self.init(status: status, startedAt: startedAt, fields: consume fields, routeIndex: routeIndex,
                      overload: overload)
        case .lines:
            self.init(method: head.method.rawValue, path: head.path, status: status, startedAt: startedAt,
                      fields: consume fields, userAgent: head.userAgent, routeIndex: routeIndex, overload: overload)
        }
    }
}

/// One access line: `ts`, `level`, `msg`, `id`, `method`, `path`, `status`, `bytes`,
/// `ms`, the response's log fields, `userAgent`. No bodies, queries or other header values.
enum AccessLine {
    /// Written straight into the loop's batch of lines: a writer per line cost an
    /// allocation and a copy per request.
    static func append(_ line: AccessLineFields, bytes: Int, elapsedNanoseconds: Int64, id: UInt64,
                       timestampPrefix: [UInt8], milliseconds: Int, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("ts")
        // The timestamp and the hexadecimal id are put together on the stack: building
        // them as arrays and Strings cost more than the rest of the line.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { text in
            var count = 0
            for byte in timestampPrefix.prefix(27) {
                text[count] = byte
                count += 1
            }
            text[count] = UInt8(48 + milliseconds / 100)
            text[count + 1] = UInt8(48 + milliseconds / 10 % 10)
            text[count + 2] = UInt8(48 + milliseconds % 10)
            text[count + 3] = UInt8(ascii: "Z")
            writer.string(utf8: UnsafeBufferPointer(rebasing: text[0..<(count + 4)]))
        }
        writer.key("level")
        writer.string("info")
        writer.key("msg")
        writer.string("request")
        writer.key("id")
        withHexDigits(id) { writer.string(utf8: $0) }
        if let method = line.method {
            writer.key("method")
            writer.string(escaping: method)
        }
        if let path = line.path {
            writer.key("path")
            writer.string(escaping: path)
        }
        writer.key("status")
        writer.integer(line.status)
        writer.key("bytes")
        writer.integer(bytes)
        writer.key("ms")
        writer.number(thousandths: Int(elapsedNanoseconds / 1000))
        for field in line.fields {
            writer.key(escaping: field.name)
            writer.string(escaping: field.value)
        }
        if let userAgent = line.userAgent {
            writer.key("userAgent")
            writer.string(escaping: userAgent)
        }
        writer.endObject()
        writer.endLine()
    }
}
