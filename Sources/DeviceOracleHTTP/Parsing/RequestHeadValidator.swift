/// Checks a syntactically valid head in the precedence order of http.md "More protocol
/// decisions": malformed fields (400) → unknown method (501) → version (505) →
/// framing (400, or 413 for a valid but too large length).
enum RequestHeadValidator {
    static func validate(_ raw: RawRequestHead, fields: borrowing FieldLines, maxBodyBytes: Int) -> Result<RequestHead, HeadFailure> {
        // The checker borrows the head's bytes and fields (no reference counting on the way).
        raw.bytes.withUnsafeBytes { bytes in
            fields.withUnsafeBufferPointer { fields in
                var checker = Checker(methodRange: raw.method, targetRange: raw.target, versionRange: raw.version, fields: fields,
                                      bytes: bytes, maxBodyBytes: maxBodyBytes)
                return checker.run(head: raw.bytes, fieldsStart: raw.fieldsStart)
            }
        }
    }

    struct HeadFailure: Error {
        var error: HTTPError
        var summary: HeadSummary
    }

    private struct Checker {
        let methodRange: Range<Int>
        let targetRange: Range<Int>
        let versionRange: Range<Int>
        let fields: UnsafeBufferPointer<RawRequestHead.Field>
        let bytes: UnsafeRawBufferPointer
        let maxBodyBytes: Int

        func slice(_ range: Range<Int>) -> UnsafeRawBufferPointer {
            UnsafeRawBufferPointer(rebasing: bytes[range])
        }

        func string(_ range: Range<Int>) -> String {
            String(decoding: slice(range), as: UTF8.self)
        }

        mutating func run(head: [UInt8], fieldsStart: Int) -> Result<RequestHead, HeadFailure> {
            // What the access line of a refused head says: the method, then the
            // User-Agent and the path once they are known. Made into `String`s only on failure.
            var userAgentRange: Range<Int>?
            var summaryPath: RequestHead.TargetRanges?
            func fail(_ status: Int, _ detail: String) -> Result<RequestHead, HeadFailure> {
                var summary = HeadSummary()
                summary.method = string(methodRange)
                summary.userAgent = userAgentRange.map(string)
                switch summaryPath {
                case .path(let path, _)?: summary.path = string(path.range)
                case .root?: summary.path = "/"
                case .asterisk?: summary.path = "*"
                case nil: break
                }
                return .failure(HeadFailure(error: HTTPError(status: status, detail: detail), summary: summary))
            }

            // The version's syntax is part of the request line: HTTP-version = "HTTP/" DIGIT "." DIGIT.
            let versionBytes = slice(versionRange)
            guard versionBytes.count == 8,
                  asciiEqual(UnsafeRawBufferPointer(rebasing: versionBytes[0..<5]), "HTTP/"),
                  ByteClass.isDigit(versionBytes[5]), versionBytes[6] == UInt8(ascii: "."), ByteClass.isDigit(versionBytes[7])
            else { return fail(400, "the HTTP version is malformed") }
            let major = Int(versionBytes[5] - 48), minor = Int(versionBytes[7] - 48)
            // Host is HTTP/1.1's rule: a head of a version this server does not speak gets
            // the 505 that says so, not a 400 for a field that version has no need of.
            let atLeast11 = major == 1 && minor >= 1
            // `PRI * HTTP/2.0` opens an HTTP/2 connection (RFC 9113 §3.4), whose target and
            // method would otherwise be refused first: say what is wrong.
            if major >= 2 && asciiEqual(slice(methodRange), "PRI") {
                return fail(505, "HTTP/2 is not served here (PRI * HTTP/2.0 is its connection preface); use HTTP/1.1")
            }

            // Fields the server interprets. Singletons are never merged: a second one is an error.
            var hostRange: Range<Int>?
            var hostCount = 0
            var contentLengthRange: Range<Int>?
            var contentLengthCount = 0
            var transferEncodingRange: Range<Int>?
            var transferEncodingCount = 0
            var contentTypeRange: Range<Int>?
            var contentTypeCount = 0
            var close = false, keepAliveToken = false
            var expectsContinue = false, unsupportedExpectation = false
            // An if-chain, most frequent names first: a switch on the name's length
            // compiled to an indirect jump that mispredicted from field to field.
            for field in fields {
                let name = slice(field.name)
                if tokenEqualsLowercase(name, "host") {
                    hostCount += 1
                    hostRange = field.value
                } else if tokenEqualsLowercase(name, "content-length") {
                    contentLengthCount += 1
                    contentLengthRange = contentLengthRange ?? field.value
                } else if tokenEqualsLowercase(name, "content-type") {
                    contentTypeCount += 1
                    contentTypeRange = field.value
                } else if tokenEqualsLowercase(name, "user-agent") {
                    userAgentRange = userAgentRange ?? field.value
                } else if tokenEqualsLowercase(name, "connection") {
                    forEachListMember(field.value) { member in
                        if asciiCaseInsensitiveEqual(member, "close") { close = true }
                        if asciiCaseInsensitiveEqual(member, "keep-alive") { keepAliveToken = true }
                    }
                } else if tokenEqualsLowercase(name, "transfer-encoding") {
                    transferEncodingCount += 1
                    transferEncodingRange = transferEncodingRange ?? field.value
                } else if tokenEqualsLowercase(name, "expect") {
                    forEachListMember(field.value) { member in
                        if asciiCaseInsensitiveEqual(member, "100-continue") { expectsContinue = true } else { unsupportedExpectation = true }
                    }
                }
            }

            // Host (RFC 9112 §3.2): exactly one on HTTP/1.1, a valid uri-host [":" port].
            if hostCount > 1 { return fail(400, "more than one Host field") }
            if let hostRange, !isValidHost(slice(hostRange)) {
                return fail(400, "the Host field is empty or not a valid host[:port]")
            }
            if hostRange == nil && atLeast11 { return fail(400, "HTTP/1.1 requires a Host field") }
            if contentTypeCount > 1 { return fail(400, "more than one Content-Type field") }

            // The target (RFC 9112 §3.2): origin-form, absolute-form naming this Host, or `*`.
            let target: RequestHead.TargetRanges
            let targetBytes = slice(targetRange)
            let methodBytes = slice(methodRange)
            if targetBytes.count == 1 && targetBytes[0] == UInt8(ascii: "*") {
                guard asciiEqual(methodBytes, "OPTIONS") else { return fail(400, "the target * is only valid with OPTIONS") }
                target = .asterisk
            } else if targetBytes[0] == UInt8(ascii: "/") {
                guard let form = originForm(targetRange) else { return fail(400, "the request target is not a valid path and query") }
                target = form
            } else if let (authority, pathStart) = absoluteFormAuthority(targetRange) {
                guard let hostRange, asciiCaseInsensitiveEqual(slice(authority), slice(hostRange)) else {
                    return fail(400, "the absolute-form target names another host than the Host field")
                }
                if pathStart == targetRange.upperBound {
                    target = .root
                } else if let form = originForm(pathStart..<targetRange.upperBound) {
                    target = form
                } else {
                    return fail(400, "the request target is not a valid path and query")
                }
            } else {
                return fail(400, "the request target is not origin-form, absolute-form or *")
            }
            summaryPath = target

            guard let method = HTTPMethod(token: methodBytes) else {
                return fail(501, "the method \(string(methodRange)) is not implemented")
            }
            guard major == 1 && minor <= 1 else {
                return fail(505, "HTTP/\(major).\(minor) is not supported; use HTTP/1.1")
            }
            let version: HTTPVersion = minor == 0 ? .http1_0 : .http1_1

            // Framing (RFC 9112 §6): chunked alone, or one plain decimal length, never both.
            var framing = BodyFraming.none
            if let transferEncodingRange {
                if version == .http1_0 { return fail(400, "Transfer-Encoding is not allowed in an HTTP/1.0 request") }
                if contentLengthRange != nil { return fail(400, "both Content-Length and Transfer-Encoding (request smuggling)") }
                guard transferEncodingCount == 1, asciiCaseInsensitiveEqual(slice(transferEncodingRange), "chunked") else {
                    return fail(400, "Transfer-Encoding other than a single chunked is not accepted")
                }
                framing = .chunked
            } else if let contentLengthRange {
                if contentLengthCount > 1 { return fail(400, "more than one Content-Length field") }
                guard let length = plainDecimal(slice(contentLengthRange)) else {
                    return fail(400, "Content-Length is not a plain decimal number that fits in 63 bits")
                }
                if length > maxBodyBytes {
                    return fail(413, "the body of \(length) bytes is over the limit of \(maxBodyBytes) bytes")
                }
                if length > 0 { framing = .length(length) }
            }

            let keepAlive = version == .http1_1 ? !close : (keepAliveToken && !close)
            return .success(RequestHead(
                method: method, targetRanges: target, version: version, headers: HTTPHeaders(head: head, fieldsStart: fieldsStart),
                framing: framing, keepAlive: keepAlive, expectsContinue: expectsContinue && version == .http1_1,
                hasUnsupportedExpectation: unsupportedExpectation, contentTypeRange: contentTypeRange.map(HeadRange.init),
                userAgentRange: userAgentRange.map(HeadRange.init)))
        }

        /// origin-form = absolute-path [ "?" query ], with valid percent-encoding and no
        /// percent-encoded control bytes in the path (a `%00` or `%0d%0a` there is an attack).
        func originForm(_ range: Range<Int>) -> RequestHead.TargetRanges? {
            var queryStart: Int?
            var i = range.lowerBound
            while i < range.upperBound {
                // A run of plain bytes is one test a byte; "?", "%" and the rest are looked at below.
                while i < range.upperBound, ByteClass.isPlainTarget(bytes[i]) { i += 1 }
                guard i < range.upperBound else { break }
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
            guard let queryStart else { return .path(HeadRange(range), query: HeadRange(range.upperBound..<range.upperBound)) }
            return .path(HeadRange(range.lowerBound..<queryStart), query: HeadRange((queryStart + 1)..<range.upperBound))
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
