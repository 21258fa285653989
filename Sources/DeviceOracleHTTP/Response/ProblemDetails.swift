import DeviceOracleJSON

/// An RFC 9457 problem document, written as `application/problem+json` with its
/// members in a fixed order: type, title, status, detail, the extra members, errors.
package struct ProblemDetails: Sendable {
    /// One entry of `errors`: an RFC 6901 JSON Pointer and what is wrong there, and
    /// for a body of lines (NDJSON) the 1-based line the pointer is into.
    package struct FieldError: Sendable, Equatable {
        package let pointer: String
        package let detail: String
        package let line: Int?

        package init(pointer: String, detail: String, line: Int? = nil) {
            self.pointer = pointer
            self.detail = detail
            self.line = line
        }
    }

    /// A relative URI, stable per kind of problem (`/problems/invalid-json`).
    package var type: String
    package var title: String
    package var status: Int
    package var detail: String
    /// Extra integer members such as `offset`, `line`, `column`, in this order.
    package var extraIntegers: [(String, Int)]
    /// Listed as `errors` when not nil (an empty list is written as `[]`).
    package var errors: [FieldError]?

    package init(type: String, title: String, status: Int, detail: String,
                extraIntegers: [(String, Int)] = [], errors: [FieldError]? = nil) {
        self.type = type
        self.title = title
        self.status = status
        self.detail = detail
        self.extraIntegers = extraIntegers
        self.errors = errors
    }

    /// The problem the server raises itself for a status (http.md "Problem types").
    package init(status: Int, detail: String) {
        let (type, title) = Self.kind(of: status)
        self.init(type: type, title: title, status: status, detail: detail)
    }

    static func kind(of status: Int) -> (type: String, title: String) {
        switch status {
        case 400: ("/problems/bad-request", "Bad request")
        case 404: ("/problems/not-found", "Not found")
        case 405: ("/problems/method-not-allowed", "Method not allowed")
        case 408: ("/problems/request-timeout", "Request timeout")
        case 413: ("/problems/body-too-large", "Body too large")
        case 414: ("/problems/uri-too-long", "URI too long")
        case 415: ("/problems/unsupported-media-type", "Unsupported media type")
        case 417: ("/problems/expectation-failed", "Expectation failed")
        case 431: ("/problems/headers-too-large", "Header fields too large")
        case 501: ("/problems/not-implemented", "Not implemented")
        case 503: ("/problems/overloaded", "Overloaded")
        case 505: ("/problems/version-not-supported", "HTTP version not supported")
        default: ("/problems/internal-error", "Internal error")
        }
    }

    package var json: [UInt8] {
        var writer = JSONWriter(capacity: 256)
        writer.beginObject()
        writer.key("type")
        writer.string(escaping: type)
        writer.key("title")
        writer.string(escaping: title)
        writer.key("status")
        writer.integer(status)
        writer.key("detail")
        writer.string(escaping: detail)
        for (name, value) in extraIntegers {
            writer.key(escaping: name)
            writer.integer(value)
        }
        if let errors {
            writer.key("errors")
            writer.beginArray()
            for error in errors {
                writer.beginObject()
                writer.key("pointer")
                writer.string(escaping: error.pointer)
                writer.key("detail")
                writer.string(escaping: error.detail)
                if let line = error.line {
                    writer.key("line")
                    writer.integer(line)
                }
                writer.endObject()
            }
            writer.endArray()
        }
        writer.endObject()
        return writer.bytes
    }

    package var response: HTTPResponse {
        HTTPResponse(status: status, contentType: "application/problem+json", body: json)
    }
}
