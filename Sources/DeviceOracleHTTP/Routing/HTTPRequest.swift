import DeviceOracleJSON

/// One complete request as a handler sees it.
package struct HTTPRequest: Sendable {
    package let method: HTTPMethod
    package let version: HTTPVersion
    package private(set) var headers: HTTPHeaders
    package private(set) var body: [UInt8]
    /// The path and query: ranges of the head `headers` holds, made into `String`s
    /// only when asked for (the ruleset endpoints read the query alone).
    private let target: Target

    private enum Target: Sendable {
        case head(RequestHead.TargetRanges)
        case text(path: String, query: String)
    }

    /// The path without the query, exactly as sent (not percent-decoded).
    package var path: String {
        switch target {
        case .head(let ranges): RequestHead.path(of: ranges, in: headers)
        case .text(let path, _): path
        }
    }

    /// Whether `query` is not empty, without making it.
    package var hasQuery: Bool {
        switch target {
        case .head(.path(_, let query)): !query.range.isEmpty
        case .head(.root), .head(.asterisk): false
        case .text(_, let query): !query.isEmpty
        }
    }

    /// The query after `?`, without it; empty when there is none.
    package var query: String {
        switch target {
        case .head(let ranges): RequestHead.query(of: ranges, in: headers)
        case .text(_, let query): query
        }
    }

    package init(method: HTTPMethod, path: String, query: String = "", version: HTTPVersion = .http1_1,
                headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.method = method
        target = .text(path: path, query: query)
        self.version = version
        self.headers = headers
        self.body = body
    }

    /// Its head's bytes and its body, once it has been answered: their memory is written
    /// again by the connection's next request (`RecycledBuffers`). Swapped out, not
    /// copied: a copy was retained, and the request's own reference released after.
    consuming func takeBuffers() -> (head: [UInt8], body: [UInt8]) {
        var taken: [UInt8] = []
        swap(&taken, &body)
        return (headers.takeStorage(), taken)
    }

    /// A request whose path and query are `target` in the head `headers` holds.
    init(method: HTTPMethod, target: RequestHead.TargetRanges, version: HTTPVersion, headers: HTTPHeaders,
         body: [UInt8]) {
        self.method = method
        self.target = .head(target)
        self.version = version
        self.headers = headers
        self.body = body
    }
}

/// A response body written while it is sent, so a long one is never whole in memory.
/// The server pulls pieces as the socket drains; one owner at a time calls it.
package protocol HTTPBodyStream: AnyObject, Sendable {
    /// Appends the next piece — at least `minimum` bytes unless the body ends first —
    /// to `piece`, which the caller holds the only reference to. Returns false once the
    /// whole body has been appended.
    func next(into piece: WrittenBytes, minimum: Int) -> Bool
    /// The whole body's length, without keeping it (an HTTP/1.0 client has no chunked
    /// coding, so it is told a Content-Length first); leaves `next` where it was.
    func byteCount() -> Int
}

/// One response. The server adds `Date`, `Content-Length` (or `Transfer-Encoding`)
/// and `Connection`.
///
/// 56 bytes: what only a streamed answer has is kept behind one reference (`Streaming`).
/// A value over 64 bytes is moved through memory, each copy and destroy an outlined
/// call, on every move between the handler and the socket.
package struct HTTPResponse: Sendable {
    package var status: Int
    package var contentType: String?
    /// Extra header fields, sent in this order.
    package var headers: [(String, String)]
    package var body: [UInt8]
    /// Extra members of the access-log line, such as `"verdict": "pass"`.
    package var logFields: [LogField]
    /// `bodyStream`, `heldBytes` and `streamLength`; nil while all three are unset.
    private var streaming: Streaming?

    /// Never changed once made (a copy of the answer shares it): a setter makes a new one.
    private final class Streaming: Sendable {
        let bodyStream: (any HTTPBodyStream)?
        let heldBytes: Int
        let streamLength: Int?

        init(bodyStream: (any HTTPBodyStream)?, heldBytes: Int, streamLength: Int?) {
            self.bodyStream = bodyStream
            self.heldBytes = heldBytes
            self.streamLength = streamLength
        }
    }

    /// When set, the body comes from here instead of `body`: sent with `Content-Length`
    /// when it ends within the first piece (or to an HTTP/1.0 client), else chunked.
    package var bodyStream: (any HTTPBodyStream)? {
        get { streaming?.bodyStream }
        set { setStreaming(bodyStream: newValue, heldBytes: heldBytes, streamLength: streamLength) }
    }
    /// What the answer holds in memory until it has been sent: its body or what its
    /// `bodyStream` writes from (a parsed log, its steps, refresh's stores). Counted in
    /// the memory budget while it is sent, beyond the body's reservation.
    package var heldBytes: Int {
        get { streaming?.heldBytes ?? 0 }
        set { setStreaming(bodyStream: bodyStream, heldBytes: newValue, streamLength: streamLength) }
    }
    /// `bodyStream`'s length, counted where the handler ran (an offloaded one's thread,
    /// not the event loop's) for an HTTP/1.0 client.
    var streamLength: Int? {
        get { streaming?.streamLength }
        set { setStreaming(bodyStream: bodyStream, heldBytes: heldBytes, streamLength: newValue) }
    }

    private mutating func setStreaming(bodyStream: (any HTTPBodyStream)?, heldBytes: Int, streamLength: Int?) {
        streaming = bodyStream == nil && heldBytes == 0 && streamLength == nil
            ? nil : Streaming(bodyStream: bodyStream, heldBytes: heldBytes, streamLength: streamLength)
    }

    package init(status: Int, contentType: String? = nil, headers: [(String, String)] = [],
                body: [UInt8] = [], bodyStream: (any HTTPBodyStream)? = nil, logFields: [LogField] = []) {
        self.status = status
        self.contentType = contentType
        self.headers = headers
        self.body = body
        self.logFields = logFields
        streaming = bodyStream.map { Streaming(bodyStream: $0, heldBytes: 0, streamLength: nil) }
    }

    /// A JSON answer (`application/json`, UTF-8 by definition: RFC 8259 §8.1). Its
    /// arrays are taken, not borrowed: borrowed, each was retained into the answer and
    /// released by the caller (across the module boundary the call is not inlined).
    package static func json(_ status: Int, _ body: consuming [UInt8], headers: consuming [(String, String)] = [],
                            logFields: consuming [LogField] = []) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "application/json", headers: headers, body: body, logFields: logFields)
    }
}
