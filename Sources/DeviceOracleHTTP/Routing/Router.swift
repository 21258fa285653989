import Glibc

/// One endpoint: a path, the methods it answers, what it does with a body, and a handler.
package struct Route: Sendable {
    package enum Body: Sendable {
        /// A JSON body: `application/json`, any `+json` type, no Content-Type, or
        /// `application/x-www-form-urlencoded` (what `curl -d` sends); else `415`.
        case json
        /// A JSON body, or one of these media types, read whole before the handler
        /// runs (a log in its NDJSON form that the handler needs at once).
        case jsonOr([String])
        /// Any correctly framed body is read and thrown away (GET routes).
        case discarded
    }

    package let path: String
    package let methods: [HTTPMethod]
    package let body: Body
    /// Bodies of these media types are handled as they arrive (`StreamedRequestHandler`).
    package let streamed: StreamedBody?
    /// A problem of the request's query (`nil`: none), answered before its media type
    /// is looked at and before any body byte is read. Asked only when the request has a
    /// query: no query is never a problem.
    package let queryProblem: (@Sendable (String) -> HTTPResponse?)?
    package let handler: @Sendable (HTTPRequest) -> HTTPResponse

    package init(path: String, methods: [HTTPMethod], body: Body = .discarded, streamed: StreamedBody? = nil,
                 queryProblem: (@Sendable (String) -> HTTPResponse?)? = nil,
                 handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse) {
        self.path = path
        self.methods = methods
        self.body = body
        self.streamed = streamed
        self.queryProblem = queryProblem
        self.handler = handler
    }
}

/// Decides from a head alone what happens to a request: 404, 405 with `Allow`, 415,
/// `OPTIONS *`, or which route runs — before any body byte is read.
package struct Router: Sendable {
    package enum Decision {
        /// Run this route's handler; `keepsBody` says whether the body is collected.
        case handle(Route, keepsBody: Bool)
        /// Hand the body to a handler from this route's `streamed` as it arrives.
        case stream(Route)
        /// Answer this, after discarding a correctly framed body.
        case respond(HTTPResponse)
    }

    /// What the connection does with a head: the same decisions as `Decision`, with
    /// the route named by its index, so nothing of it is copied per request.
    enum Choice {
        case handle(routeIndex: Int, keepsBody: Bool)
        case stream(routeIndex: Int)
        case respond(HTTPResponse)
    }

    /// The methods this server implements, for `OPTIONS *`.
    static let serverAllow = "GET, HEAD, POST, OPTIONS"

    /// One route per path, found by comparing the path's bytes: a handful of length
    /// checks and one `memcmp`, no hashing of a `String`.
    let routes: [Route]
    /// Each route's handler, by index: one read out of `routes` copied the whole route
    /// first (its path, methods, media types and closures retained and released, ~500
    /// instructions a request).
    let handlers: [@Sendable (HTTPRequest) -> HTTPResponse]
    private let paths: [[UInt8]]
    /// What choosing reads of each route, in plain values: reading a `Route` (its
    /// methods, its body's and its stream's media types) retained and released its
    /// arrays and strings on every request.
    private let rules: [Rule]
    /// The media types the rules name, one after the other, and where each is.
    private let mediaTypeBytes: [UInt8]
    private let mediaTypeRanges: [Range<Int>]

    private struct Rule {
        enum Body { case json, jsonOr, discarded }
        /// `HTTPMethod.bit` of each method answered (HEAD with GET).
        var methods: UInt16
        var body: Body
        /// `Route.Body.jsonOr`'s media types and the stream's: indices of `mediaTypeRanges`.
        var jsonOrTypes: Range<Int>
        var streamedTypes: Range<Int>
        var checksQuery: Bool
    }

    /// `routes` must name each path once (`duplicatePaths`): a second route for a
    /// path is a mistake in the program, refused when the server is made, before it
    /// serves anything — never one route silently dropped.
    package init(_ routes: [Route]) {
        let duplicates = Self.duplicatePaths(routes)
        precondition(duplicates.isEmpty, "more than one route for \(duplicates.joined(separator: ", "))")
        self.routes = routes
        handlers = routes.map(\.handler)
        paths = routes.map { Array($0.path.utf8) }
        var bytes: [UInt8] = [], ranges: [Range<Int>] = []
        func listed(_ mediaTypes: [String]) -> Range<Int> {
            let first = ranges.count
            for type in mediaTypes {
                let start = bytes.count
                bytes += type.utf8
                ranges.append(start..<bytes.count)
            }
            return first..<ranges.count
        }
        rules = routes.map { route in
            var methods: UInt16 = 0
            for method in route.methods { methods |= method.bit }
            if route.methods.contains(.GET) { methods |= HTTPMethod.HEAD.bit }
            let body: Rule.Body, jsonOrTypes: Range<Int>
            switch route.body {
            case .json: (body, jsonOrTypes) = (.json, 0..<0)
            case .jsonOr(let types): (body, jsonOrTypes) = (.jsonOr, listed(types))
            case .discarded: (body, jsonOrTypes) = (.discarded, 0..<0)
            }
            return Rule(methods: methods, body: body, jsonOrTypes: jsonOrTypes,
                        streamedTypes: route.streamed.map { listed($0.mediaTypes) } ?? 0..<0,
                        checksQuery: route.queryProblem != nil)
        }
        mediaTypeBytes = bytes
        mediaTypeRanges = ranges
    }

    /// The paths given more than one route, each once, in the order first repeated.
    package static func duplicatePaths(_ routes: [Route]) -> [String] {
        var seen: Set<String> = [], repeated: [String] = []
        for route in routes where !seen.insert(route.path).inserted && !repeated.contains(route.path) {
            repeated.append(route.path)
        }
        return repeated
    }

    package func decide(method: HTTPMethod, path: String, contentType: String?, query: String = "") -> Decision {
        var path = path
        let choice = path.withUTF8 { path in
            guard var contentType else {
                return choose(method: method, path: UnsafeRawBufferPointer(path), contentType: nil,
                              hasQuery: !query.isEmpty) { query }
            }
            return contentType.withUTF8 {
                choose(method: method, path: UnsafeRawBufferPointer(path), contentType: UnsafeRawBufferPointer($0),
                       hasQuery: !query.isEmpty) { query }
            }
        }
        switch choice {
        case .handle(let index, let keepsBody): return .handle(routes[index], keepsBody: keepsBody)
        case .stream(let index): return .stream(routes[index])
        case .respond(let response): return .respond(response)
        }
    }

    /// `query` is made only for a route that checks it, when there is one (`hasQuery`).
    func choose(method: HTTPMethod, path: UnsafeRawBufferPointer, contentType: UnsafeRawBufferPointer?,
                hasQuery: Bool, query: () -> String) -> Choice {
        if path.count == 1 && path[0] == UInt8(ascii: "*") {
            return .respond(HTTPResponse(status: 204, headers: [("Allow", Self.serverAllow)]))
        }
        guard let index = routeIndex(path) else {
            return .respond(ProblemDetails(status: 404, detail: "no resource at \(Self.text(path))").response)
        }
        let rule = rules[index]
        guard rule.methods & method.bit != 0 else {
            var response = ProblemDetails(status: 405, detail: "\(Self.text(path)) does not answer \(method.rawValue)").response
            response.headers.append(("Allow", Self.allow(routes[index])))
            return .respond(response)
        }
        if rule.checksQuery, hasQuery, let check = routes[index].queryProblem, let problem = check(query()) {
            return .respond(problem)
        }
        // Found once: each comparison below reads it.
        let mediaType = contentType.map(Self.mediaType)
        if let mediaType, isAny(of: rule.streamedTypes, mediaType) {
            return .stream(routeIndex: index)
        }
        switch rule.body {
        case .discarded:
            return .handle(routeIndex: index, keepsBody: false)
        case .json:
            guard Self.isJSONCompatible(mediaType: mediaType) else {
                return .respond(Self.unsupported(contentType, accepted: routes[index].body))
            }
            return .handle(routeIndex: index, keepsBody: true)
        case .jsonOr:
            guard Self.isJSONCompatible(mediaType: mediaType) || mediaType.map({ isAny(of: rule.jsonOrTypes, $0) }) == true else {
                return .respond(Self.unsupported(contentType, accepted: routes[index].body))
            }
            return .handle(routeIndex: index, keepsBody: true)
        }
    }

    /// Whether `mediaType` is one of the listed media types (`mediaTypeRanges[listed]`),
    /// compared case-insensitively (RFC 9110 §8.3.1).
    private func isAny(of listed: Range<Int>, _ mediaType: UnsafeRawBufferPointer) -> Bool {
        guard !listed.isEmpty else { return false }
        return mediaTypeBytes.withUnsafeBytes { bytes in
            mediaTypeRanges.withUnsafeBufferPointer { ranges in
                listed.contains { asciiCaseInsensitiveEqual(mediaType, UnsafeRawBufferPointer(rebasing: bytes[ranges[$0]])) }
            }
        }
    }

    /// `415`, saying what the route's body may be.
    private static func unsupported(_ contentType: UnsafeRawBufferPointer?, accepted body: Route.Body) -> HTTPResponse {
        var accepted = "JSON (application/json)"
        if case .jsonOr(let mediaTypes) = body { accepted += " or " + mediaTypes.joined(separator: ", ") }
        return ProblemDetails(status: 415, detail: "the body must be \(accepted); got \(contentType.map(text) ?? "")").response
    }

    private func routeIndex(_ path: UnsafeRawBufferPointer) -> Int? {
        for index in paths.indices where paths[index].count == path.count {
            let equal = path.isEmpty || paths[index].withUnsafeBytes { memcmp($0.baseAddress!, path.baseAddress!, path.count) == 0 }
            if equal { return index }
        }
        return nil
    }

    private static func text(_ bytes: UnsafeRawBufferPointer) -> String {
        String(decoding: bytes, as: UTF8.self)
    }

    static func allow(_ route: Route) -> String {
        var methods = route.methods
        if methods.contains(.GET) && !methods.contains(.HEAD) {
            methods.insert(.HEAD, at: methods.firstIndex(of: .GET).map { $0 + 1 } ?? methods.count)
        }
        return methods.map(\.rawValue).joined(separator: ", ")
    }

    /// A Content-Type value's media type: before any parameters, without the whitespace around it.
    private static func mediaType(_ value: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        guard let base = value.baseAddress else { return value }
        var end = memchr(base, Int32(UInt8(ascii: ";")), value.count).map { $0 - UnsafeMutableRawPointer(mutating: base) } ?? value.count
        var start = 0
        while start < end && ByteClass.isWhitespace(value[start]) { start += 1 }
        while end > start && ByteClass.isWhitespace(value[end - 1]) { end -= 1 }
        return UnsafeRawBufferPointer(rebasing: value[start..<end])
    }

    private static let json: StaticString = "application/json"

    /// A Content-Type's media type (`mediaType(_:)`; nil: no Content-Type) is JSON or
    /// reads as JSON, compared case-insensitively (RFC 9110 §8.3.1).
    static func isJSONCompatible(mediaType: UnsafeRawBufferPointer?) -> Bool {
        guard let mediaType else { return true }
        // As clients send it, mostly: one `memcmp` before the comparisons that ignore case.
        if let base = mediaType.baseAddress, mediaType.count == Self.json.utf8CodeUnitCount,
           memcmp(base, Self.json.utf8Start, mediaType.count) == 0 {
            return true
        }
        if asciiCaseInsensitiveEqual(mediaType, "application/json")
            || asciiCaseInsensitiveEqual(mediaType, "application/x-www-form-urlencoded") {
            return true
        }
        // type "/" subtype, the subtype ending in "+json" (RFC 6839 §3.1).
        guard let slash = mediaType.firstIndex(of: UInt8(ascii: "/")), slash > 0, mediaType.count - slash - 1 > 5 else { return false }
        let suffix = UnsafeRawBufferPointer(rebasing: mediaType[(mediaType.count - 5)...])
        return asciiCaseInsensitiveEqual(suffix, "+json")
            && mediaType[(slash + 1)...].allSatisfy { ByteClass.isToken($0) }
            && mediaType[..<slash].allSatisfy { ByteClass.isToken($0) }
    }
}
