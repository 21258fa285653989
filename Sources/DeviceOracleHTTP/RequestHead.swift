/// How the body of a request is delimited (RFC 9112 §6.3).
public enum BodyFraming: Sendable, Equatable {
    case none
    case length(Int)
    case chunked
}

/// A request head whose meaning has been checked: everything the server decides
/// before reading a body (routing, 100-continue, keep-alive) comes from here.
struct RequestHead {
    enum Target: Equatable {
        /// origin-form or absolute-form, reduced to path and query.
        case path(String, query: String)
        /// `*` (asterisk-form), valid with OPTIONS only.
        case asterisk
    }

    var method: HTTPMethod
    var target: Target
    var version: HTTPVersion
    var headers: HTTPHeaders
    var framing: BodyFraming
    var keepAlive: Bool
    /// `Expect: 100-continue` on an HTTP/1.1 request (never answered to HTTP/1.0).
    var expectsContinue: Bool
    /// An `Expect` member other than `100-continue` (`417`).
    var hasUnsupportedExpectation: Bool
    var contentType: String?
    var userAgent: String?

    var path: String {
        switch target {
        case .path(let path, _): path
        case .asterisk: "*"
        }
    }
}

/// What the access line can say about a refused head.
struct HeadSummary {
    var method: String?
    var path: String?
    var userAgent: String?
}

/// Checks a syntactically valid head in the precedence order of http.md "More protocol
/// decisions": malformed fields (400) → unknown method (501) → version (505) →
/// framing (400, or 413 for a valid but too large length).
enum RequestHeadValidator {
    static func validate(_ raw: RawRequestHead, maxBodyBytes: Int) -> Result<RequestHead, HeadFailure> {
        raw.bytes.withUnsafeBytes { bytes in
            var checker = Checker(raw: raw, bytes: bytes, maxBodyBytes: maxBodyBytes)
            return checker.run()
        }
    }

    struct HeadFailure: Error {
        var error: HTTPError
        var summary: HeadSummary
    }

    private struct Checker {
        let raw: RawRequestHead
        let bytes: UnsafeRawBufferPointer
        let maxBodyBytes: Int

        func slice(_ range: Range<Int>) -> UnsafeRawBufferPointer {
            UnsafeRawBufferPointer(rebasing: bytes[range])
        }

        func string(_ range: Range<Int>) -> String {
            String(decoding: slice(range), as: UTF8.self)
        }

        mutating func run() -> Result<RequestHead, HeadFailure> {
            var summary = HeadSummary()
            summary.method = string(raw.method)
            func fail(_ status: Int, _ detail: String) -> Result<RequestHead, HeadFailure> {
                .failure(HeadFailure(error: HTTPError(status: status, detail: detail), summary: summary))
            }

            // The version's syntax is part of the request line: HTTP-version = "HTTP/" DIGIT "." DIGIT.
            let versionBytes = slice(raw.version)
            guard versionBytes.count == 8,
                  asciiEqual(UnsafeRawBufferPointer(rebasing: versionBytes[0..<5]), "HTTP/"),
                  ByteClass.isDigit(versionBytes[5]), versionBytes[6] == UInt8(ascii: "."), ByteClass.isDigit(versionBytes[7])
            else { return fail(400, "the HTTP version is malformed") }
            let major = Int(versionBytes[5] - 48), minor = Int(versionBytes[7] - 48)
            let atLeast11 = major > 1 || (major == 1 && minor >= 1)

            // Fields the server interprets. Singletons are never merged: a second one is an error.
            var hostRange: Range<Int>?
            var hostCount = 0
            var contentLengthRanges: [Range<Int>] = []
            var transferEncodingRanges: [Range<Int>] = []
            var contentTypeRange: Range<Int>?
            var contentTypeCount = 0
            var close = false, keepAliveToken = false
            var expectsContinue = false, unsupportedExpectation = false
            var userAgentRange: Range<Int>?
            for field in raw.fields {
                let name = slice(field.name)
                switch name.count {
                case 4 where asciiCaseInsensitiveEqual(name, "host"):
                    hostCount += 1
                    hostRange = field.value
                case 6 where asciiCaseInsensitiveEqual(name, "expect"):
                    forEachListMember(field.value) { member in
                        if asciiCaseInsensitiveEqual(member, "100-continue") { expectsContinue = true } else { unsupportedExpectation = true }
                    }
                case 10 where asciiCaseInsensitiveEqual(name, "connection"):
                    forEachListMember(field.value) { member in
                        if asciiCaseInsensitiveEqual(member, "close") { close = true }
                        if asciiCaseInsensitiveEqual(member, "keep-alive") { keepAliveToken = true }
                    }
                case 10 where asciiCaseInsensitiveEqual(name, "user-agent"):
                    userAgentRange = userAgentRange ?? field.value
                case 12 where asciiCaseInsensitiveEqual(name, "content-type"):
                    contentTypeCount += 1
                    contentTypeRange = field.value
                case 14 where asciiCaseInsensitiveEqual(name, "content-length"):
                    contentLengthRanges.append(field.value)
                case 17 where asciiCaseInsensitiveEqual(name, "transfer-encoding"):
                    transferEncodingRanges.append(field.value)
                default:
                    break
                }
            }
            summary.userAgent = userAgentRange.map(string)  // only logged: cheap enough, and bounded by the head limit

            // Host (RFC 9112 §3.2): exactly one on HTTP/1.1, a valid uri-host [":" port].
            if hostCount > 1 { return fail(400, "more than one Host field") }
            if let hostRange, !isValidHost(slice(hostRange)) {
                return fail(400, "the Host field is empty or not a valid host[:port]")
            }
            if hostRange == nil && atLeast11 { return fail(400, "HTTP/1.1 requires a Host field") }
            if contentTypeCount > 1 { return fail(400, "more than one Content-Type field") }

            // The target (RFC 9112 §3.2): origin-form, absolute-form naming this Host, or `*`.
            let target: RequestHead.Target
            let targetBytes = slice(raw.target)
            let methodBytes = slice(raw.method)
            if targetBytes.count == 1 && targetBytes[0] == UInt8(ascii: "*") {
                guard asciiEqual(methodBytes, "OPTIONS") else { return fail(400, "the target * is only valid with OPTIONS") }
                target = .asterisk
            } else if targetBytes[0] == UInt8(ascii: "/") {
                guard let form = originForm(raw.target) else { return fail(400, "the request target is not a valid path and query") }
                target = form
            } else if let (authority, pathStart) = absoluteFormAuthority(raw.target) {
                guard let hostRange, asciiCaseInsensitiveEqual(slice(authority), slice(hostRange)) else {
                    return fail(400, "the absolute-form target names another host than the Host field")
                }
                if pathStart == raw.target.upperBound {
                    target = .path("/", query: "")
                } else if let form = originForm(pathStart..<raw.target.upperBound) {
                    target = form
                } else {
                    return fail(400, "the request target is not a valid path and query")
                }
            } else {
                return fail(400, "the request target is not origin-form, absolute-form or *")
            }
            if case .path(let path, _) = target { summary.path = path } else { summary.path = "*" }

            guard let method = HTTPMethod(token: methodBytes) else {
                return fail(501, "the method \(string(raw.method)) is not implemented")
            }
            guard major == 1 && minor <= 1 else {
                return fail(505, "HTTP/\(major).\(minor) is not supported; use HTTP/1.1")
            }
            let version: HTTPVersion = minor == 0 ? .http1_0 : .http1_1

            // Framing (RFC 9112 §6): chunked alone, or one plain decimal length, never both.
            var framing = BodyFraming.none
            if !transferEncodingRanges.isEmpty {
                if version == .http1_0 { return fail(400, "Transfer-Encoding is not allowed in an HTTP/1.0 request") }
                if !contentLengthRanges.isEmpty { return fail(400, "both Content-Length and Transfer-Encoding (request smuggling)") }
                guard transferEncodingRanges.count == 1, asciiCaseInsensitiveEqual(slice(transferEncodingRanges[0]), "chunked") else {
                    return fail(400, "Transfer-Encoding other than a single chunked is not accepted")
                }
                framing = .chunked
            } else if !contentLengthRanges.isEmpty {
                if contentLengthRanges.count > 1 { return fail(400, "more than one Content-Length field") }
                guard let length = plainDecimal(slice(contentLengthRanges[0])) else {
                    return fail(400, "Content-Length is not a plain decimal number that fits in 63 bits")
                }
                if length > maxBodyBytes {
                    return fail(413, "the body of \(length) bytes is over the limit of \(maxBodyBytes) bytes")
                }
                if length > 0 { framing = .length(length) }
            }

            let keepAlive = version == .http1_1 ? !close : (keepAliveToken && !close)
            return .success(RequestHead(
                method: method, target: target, version: version, headers: HTTPHeaders(head: raw.bytes, fields: raw.fields), framing: framing,
                keepAlive: keepAlive, expectsContinue: expectsContinue && version == .http1_1,
                hasUnsupportedExpectation: unsupportedExpectation, contentType: contentTypeRange.map(string),
                userAgent: summary.userAgent))
        }

        /// origin-form = absolute-path [ "?" query ], with valid percent-encoding and no
        /// percent-encoded control bytes in the path (a `%00` or `%0d%0a` there is an attack).
        func originForm(_ range: Range<Int>) -> RequestHead.Target? {
            var queryStart: Int?
            var i = range.lowerBound
            while i < range.upperBound {
                let byte = bytes[i]
                guard ByteClass.isTarget(byte) else { return nil }
                if byte == UInt8(ascii: "?") && queryStart == nil {
                    queryStart = i
                } else if byte == UInt8(ascii: "%") {
                    guard i + 2 < range.upperBound, let high = ByteClass.hexValue(bytes[i + 1]),
                          let low = ByteClass.hexValue(bytes[i + 2]) else { return nil }
                    let decoded = high << 4 | low
                    if queryStart == nil && (decoded < 0x20 || decoded == 0x7F) { return nil }
                    i += 2
                }
                i += 1
            }
            guard let queryStart else { return .path(string(range), query: "") }
            let query = queryStart + 1 == range.upperBound ? "" : string((queryStart + 1)..<range.upperBound)
            return .path(string(range.lowerBound..<queryStart), query: query)
        }

        /// `http://authority/...` or `https://...`: the authority's range and where the path starts.
        func absoluteFormAuthority(_ range: Range<Int>) -> (Range<Int>, Int)? {
            let target = slice(range)
            let schemeLength: Int
            if target.count > 7, asciiCaseInsensitiveEqual(UnsafeRawBufferPointer(rebasing: target[0..<7]), "http://") {
                schemeLength = 7
            } else if target.count > 8, asciiCaseInsensitiveEqual(UnsafeRawBufferPointer(rebasing: target[0..<8]), "https://") {
                schemeLength = 8
            } else {
                return nil
            }
            let authorityStart = range.lowerBound + schemeLength
            var end = authorityStart
            while end < range.upperBound && bytes[end] != UInt8(ascii: "/") && bytes[end] != UInt8(ascii: "?") { end += 1 }
            guard end > authorityStart, isValidHost(slice(authorityStart..<end)) else { return nil }
            if end < range.upperBound && bytes[end] == UInt8(ascii: "?") { return nil }
            return (authorityStart..<end, end)
        }

        func forEachListMember(_ range: Range<Int>, _ body: (UnsafeRawBufferPointer) -> Void) {
            var memberStart = range.lowerBound
            for i in range.lowerBound...range.upperBound where i == range.upperBound || bytes[i] == UInt8(ascii: ",") {
                var a = memberStart, b = i
                while a < b && ByteClass.isWhitespace(bytes[a]) { a += 1 }
                while b > a && ByteClass.isWhitespace(bytes[b - 1]) { b -= 1 }
                if a < b { body(slice(a..<b)) }
                memberStart = i + 1
            }
        }
    }

    /// uri-host [ ":" port ] (RFC 9110 §7.2): a reg-name without userinfo, path or
    /// comma, or an IP-literal in brackets.
    static func isValidHost(_ value: UnsafeRawBufferPointer) -> Bool {
        guard !value.isEmpty else { return false }
        var i = 0
        if value[0] == UInt8(ascii: "[") {
            while i < value.count && value[i] != UInt8(ascii: "]") {
                let byte = value[i]
                guard i == 0 || ByteClass.hexValue(byte) != nil || byte == UInt8(ascii: ":") || byte == UInt8(ascii: ".") else { return false }
                i += 1
            }
            guard i < value.count else { return false }
            i += 1
        } else {
            while i < value.count && value[i] != UInt8(ascii: ":") {
                guard ByteClass.isHostName(value[i]) else { return false }
                i += 1
            }
            guard i > 0 else { return false }
        }
        if i == value.count { return true }
        guard value[i] == UInt8(ascii: ":") else { return false }
        i += 1
        while i < value.count {
            guard ByteClass.isDigit(value[i]) else { return false }
            i += 1
        }
        return true
    }
}

/// 1*DIGIT that fits in 63 bits (RFC 9110 §8.6); `+5`, `0x5`, `5 5`, `-0` and `""` are not.
func plainDecimal(_ bytes: UnsafeRawBufferPointer) -> Int? {
    guard !bytes.isEmpty else { return nil }
    var value = 0
    for byte in bytes {
        guard ByteClass.isDigit(byte) else { return nil }
        let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
        let (sum, overflow2) = times10.addingReportingOverflow(Int(byte - UInt8(ascii: "0")))
        if overflow1 || overflow2 { return nil }
        value = sum
    }
    return value
}

func asciiEqual(_ bytes: UnsafeRawBufferPointer, _ text: StaticString) -> Bool {
    bytes.count == text.utf8CodeUnitCount && bytes.elementsEqual(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
}
