/// How the body of a request is delimited (RFC 9112 §6.3).
package enum BodyFraming: Sendable, Equatable {
    case none
    case length(Int)
    case chunked
}

/// A request head whose meaning has been checked: everything the server decides
/// before reading a body (routing, 100-continue, keep-alive) comes from here.
///
/// Path, query, Content-Type and User-Agent stay byte ranges of the head (held by
/// `headers`) until someone asks for them as `String`s: most requests need only the
/// path as text, and only once.
struct RequestHead {
    enum Target: Equatable {
        /// origin-form or absolute-form, reduced to path and query.
        case path(String, query: String)
        /// `*` (asterisk-form), valid with OPTIONS only.
        case asterisk
    }

    /// Where the target's path and query are in the head's bytes.
    enum TargetRanges {
        /// An origin-form target, or the path and query of an absolute-form one.
        case path(HeadRange, query: HeadRange)
        /// An absolute-form target with an empty path: the path is `/`.
        case root
        case asterisk
    }

    var method: HTTPMethod
    var targetRanges: TargetRanges
    var version: HTTPVersion
    var headers: HTTPHeaders
    var framing: BodyFraming
    var keepAlive: Bool
    /// `Expect: 100-continue` on an HTTP/1.1 request (never answered to HTTP/1.0).
    var expectsContinue: Bool
    /// An `Expect` member other than `100-continue` (`417`).
    var hasUnsupportedExpectation: Bool
    var contentTypeRange: HeadRange?
    var userAgentRange: HeadRange?

    var target: Target {
        switch targetRanges {
        case .path(let path, let query): .path(headers.string(path.range), query: headers.string(query.range))
        case .root: .path("/", query: "")
        case .asterisk: .asterisk
        }
    }

    var path: String { Self.path(of: targetRanges, in: headers) }

    var query: String { Self.query(of: targetRanges, in: headers) }

    /// The path `target` names in the head `headers` holds.
    static func path(of target: TargetRanges, in headers: HTTPHeaders) -> String {
        switch target {
        case .path(let path, _): headers.string(path.range)
        case .root: "/"
        case .asterisk: "*"
        }
    }

    /// The query `target` names in the head `headers` holds; empty when there is none.
    static func query(of target: TargetRanges, in headers: HTTPHeaders) -> String {
        if case .path(_, let query) = target { return headers.string(query.range) }
        return ""
    }

    var contentType: String? { contentTypeRange.map { headers.string($0.range) } }

    /// What a handler gets: this head's method, target, version and fields, and `body`.
    /// Its path and query stay ranges of the head until the handler asks for them.
    func request(body: [UInt8]) -> HTTPRequest {
        HTTPRequest(method: method, target: targetRanges, version: version, headers: headers, body: body)
    }
    var userAgent: String? { userAgentRange.map { headers.string($0.range) } }

    /// Calls `body` with the path's bytes (as `path` spells them), the Content-Type
    /// value's (nil without one) and the query's (as `query` spells them), without making
    /// `String`s: what routing needs. A caller's closures need not capture the head
    /// (each capture was a copy of it: its fields' storage retained and released).
    @inline(__always)  // into the connection's routing: out of line, the router was copied into its closure
    func withPathAndContentType<R>(
        _ body: (_ path: UnsafeRawBufferPointer, _ contentType: UnsafeRawBufferPointer?, _ query: UnsafeRawBufferPointer) -> R
    ) -> R {
        headers.withHeadBytes { bytes in
            let contentType = contentTypeRange.map { UnsafeRawBufferPointer(rebasing: bytes[$0.range]) }
            switch targetRanges {
            case .path(let path, let query):
                return body(UnsafeRawBufferPointer(rebasing: bytes[path.range]), contentType,
                            UnsafeRawBufferPointer(rebasing: bytes[query.range]))
            case .root: return body(UnsafeRawBufferPointer(start: Self.root.utf8Start, count: 1), contentType, Self.noBytes)
            case .asterisk: return body(UnsafeRawBufferPointer(start: Self.asterisk.utf8Start, count: 1), contentType, Self.noBytes)
            }
        }
    }

    private static var noBytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: nil, count: 0) }

    private static let root: StaticString = "/"
    private static let asterisk: StaticString = "*"
}

/// What the access line can say about a refused head.
struct HeadSummary {
    var method: String?
    var path: String?
    var userAgent: String?
}
