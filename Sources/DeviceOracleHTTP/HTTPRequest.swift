/// One complete request as a handler sees it.
public struct HTTPRequest: Sendable {
    public let method: HTTPMethod
    /// The path without the query, exactly as sent (not percent-decoded).
    public let path: String
    /// The query after `?`, without it; empty when there is none.
    public let query: String
    public let version: HTTPVersion
    public let headers: HTTPHeaders
    public let body: [UInt8]

    public init(method: HTTPMethod, path: String, query: String = "", version: HTTPVersion = .http1_1,
                headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.method = method
        self.path = path
        self.query = query
        self.version = version
        self.headers = headers
        self.body = body
    }
}

/// One response. The server adds `Date`, `Content-Length` and `Connection`.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var contentType: String?
    /// Extra header fields, sent in this order.
    public var headers: [(String, String)]
    public var body: [UInt8]
    /// Extra members of the access-log line, such as `("verdict", "pass")`.
    public var logFields: [(String, String)]

    public init(status: Int, contentType: String? = nil, headers: [(String, String)] = [],
                body: [UInt8] = [], logFields: [(String, String)] = []) {
        self.status = status
        self.contentType = contentType
        self.headers = headers
        self.body = body
        self.logFields = logFields
    }

    /// A JSON answer (`application/json`, UTF-8 by definition: RFC 8259 §8.1).
    public static func json(_ status: Int, _ body: [UInt8], headers: [(String, String)] = [],
                            logFields: [(String, String)] = []) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "application/json", headers: headers, body: body, logFields: logFields)
    }
}
