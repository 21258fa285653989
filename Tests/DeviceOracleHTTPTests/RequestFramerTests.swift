@testable import DeviceOracleHTTP
import XCTest

/// The decoder as a pure function of bytes: what it yields, whatever way the bytes are split.
final class RequestFramerTests: XCTestCase {
    /// A readable summary of decoder elements: "head GET /p", "body 5", "end", "error 400".
    private func decode(_ chunks: [[UInt8]], maxBodyBytes: Int = 1 << 20, limits: HeadLimits = HeadLimits()) -> [String] {
        var decoder = RequestFramer(limits: limits, maxBodyBytes: maxBodyBytes)
        var summary: [String] = []
        var body: [UInt8] = []
        for chunk in chunks {
            for element in decoder.feed(chunk) {
                switch element {
                case .head(let head):
                    var line = "head \(head.method.rawValue) \(head.path)"
                    if case .path(_, let query) = head.target, !query.isEmpty { line += "?\(query)" }
                    summary.append(line)
                case .body(let bytes):
                    body += bytes
                case .end:
                    if !body.isEmpty { summary.append("body " + String(decoding: body, as: UTF8.self)) }
                    body = []
                    summary.append("end")
                case .failure(let error):
                    summary.append("error \(error.status)")
                }
            }
        }
        return summary
    }

    private func decode(_ text: String, maxBodyBytes: Int = 1 << 20, limits: HeadLimits = HeadLimits()) -> [String] {
        decode([Array(text.utf8)], maxBodyBytes: maxBodyBytes, limits: limits)
    }

    private func status(_ text: String, maxBodyBytes: Int = 1 << 20, limits: HeadLimits = HeadLimits()) -> Int? {
        for line in decode(text, maxBodyBytes: maxBodyBytes, limits: limits) where line.hasPrefix("error ") {
            return Int(line.dropFirst(6))
        }
        return nil
    }

    static let pipelined = "POST /echo?x=1 HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello"
        + "POST /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
        + "3;name=value;q=\"quoted \\\" string\"\r\nabc\r\n2 ; ext\r\nde\r\n0\r\nX-Checksum: 1\r\n\r\n"
        + "\r\nGET /last HTTP/1.1\r\nHost: a\r\n\r\n"
    static let expected = ["head POST /echo?x=1", "body hello", "end", "head POST /echo", "body abcde", "end", "head GET /last", "end"]

    func testPipelinedRequestsDecodeInOrder() {
        XCTAssertEqual(decode(Self.pipelined), Self.expected)
    }

    func testSplittingAtEveryPointGivesTheSameRequests() {
        let bytes = Array(Self.pipelined.utf8)
        for split in 0...bytes.count {
            XCTAssertEqual(decode([Array(bytes[..<split]), Array(bytes[split...])]), Self.expected, "split at \(split)")
        }
    }

    func testOneByteAtATimeGivesTheSameRequests() {
        XCTAssertEqual(decode(Self.pipelined.utf8.map { [$0] }), Self.expected)
    }

    func testRandomSplitsGiveTheSameRequests() {
        var generator = SystemRandomNumberGenerator()
        let bytes = Array(Self.pipelined.utf8)
        for _ in 0..<200 {
            var chunks: [[UInt8]] = []
            var start = 0
            while start < bytes.count {
                let length = Int.random(in: 1...17, using: &generator)
                chunks.append(Array(bytes[start..<min(bytes.count, start + length)]))
                start += length
            }
            XCTAssertEqual(decode(chunks), Self.expected)
        }
    }

    func testMalformedRequestsSplitByteByByteGetTheSameStatus() {
        for (request, expected) in Self.malformed {
            let whole = decode(request)
            let bytewise = decode(request.utf8.map { [$0] })
            XCTAssertEqual(whole, bytewise, request.debugDescription)
            XCTAssertEqual(whole.last, "error \(expected)", request.debugDescription)
        }
    }

    /// Every malformed case of http.md, with the status the spec gives it.
    static let malformed: [(String, Int)] = [
        ("GET / HTTP/1.1\r\n Host: a\r\n\r\n", 400),                       // whitespace-led line
        ("GET / HTTP/1.1\r\nHost: a\r\nX: a\r\n b\r\n\r\n", 400),         // obs-fold
        ("GET / HTTP/1.1\r\nHost: a\r\nX Y: a\r\n\r\n", 400),             // space in a name
        ("GET / HTTP/1.1\r\nHost: a\r\nX : a\r\n\r\n", 400),              // space before colon
        ("GET / HTTP/1.1\r\nHost: a\r\nX\u{1}: a\r\n\r\n", 400),          // control byte in a name
        ("GET / HTTP/1.1\r\nHost: a\r\n: a\r\n\r\n", 400),                // empty name
        ("GET / HTTP/1.1\r\nHost: a\r\nNoColon\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: a\r\nX: a\u{0}b\r\n\r\n", 400),        // NUL in a value
        ("GET / HTTP/1.1\r\nHost: a\r\nX: a\rb\r\n\r\n", 400),            // bare CR in a value
        ("GET / HTTP/1.1\nHost: a\r\n\r\n", 400),                          // bare LF
        ("GET /\u{0}x HTTP/1.1\r\nHost: a\r\n\r\n", 400),                 // NUL in the target
        ("GET /a b HTTP/1.1\r\nHost: a\r\n\r\n", 400),                    // space in the target
        ("GET /caf\u{e9} HTTP/1.1\r\nHost: a\r\n\r\n", 400),              // raw non-ASCII in the target
        ("GET /a#frag HTTP/1.1\r\nHost: a\r\n\r\n", 400),
        ("GET /a%zz HTTP/1.1\r\nHost: a\r\n\r\n", 400),                   // bad percent-encoding
        ("GET /a%00 HTTP/1.1\r\nHost: a\r\n\r\n", 400),                   // encoded NUL in the path
        ("GET  / HTTP/1.1\r\nHost: a\r\n\r\n", 400),                       // two spaces
        ("GET\t/ HTTP/1.1\r\nHost: a\r\n\r\n", 400),
        ("GET / HTTP/1.1 \r\nHost: a\r\n\r\n", 400),
        ("GET /\r\n\r\n", 400),                                             // HTTP/0.9
        ("GET / HTTP/1\r\nHost: a\r\n\r\n", 400),
        ("GET / HTTP/01.1\r\nHost: a\r\n\r\n", 400),
        ("GET / http/1.1\r\nHost: a\r\n\r\n", 400),
        ("   \r\n\r\n", 400),
        ("GET / HTTP/1.1\r\n\r\n", 400),                                   // HTTP/1.1 without Host
        ("GET / HTTP/1.1\r\nHost: a\r\nHost: a\r\n\r\n", 400),            // two Host fields
        ("GET / HTTP/1.1\r\nHost: \r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: u@a\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: a/b\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: a, b\r\n\r\n", 400),
        ("GET http://b/ HTTP/1.1\r\nHost: a\r\n\r\n", 400),                // absolute-form for another host
        ("GET * HTTP/1.1\r\nHost: a\r\n\r\n", 400),                        // * with a method other than OPTIONS
        ("CONNECT a:443 HTTP/1.1\r\nHost: a:443\r\n\r\n", 400),            // authority-form: not a proxy
        ("GET / HTTP/1.1\r\nHost: a\r\nContent-Type: a/b\r\nContent-Type: a/c\r\n\r\n", 400),
        ("FOO / HTTP/1.1\r\nHost: a\r\n\r\n", 501),
        ("get / HTTP/1.1\r\nHost: a\r\n\r\n", 501),                        // methods are case-sensitive
        ("GET / HTTP/2.0\r\nHost: a\r\n\r\n", 505),
        ("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: +5\r\n\r\nhello", 400),
        ("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 0x5\r\n\r\nhello", 400),
        ("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 1e3\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 1 0\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 5, 5\r\n\r\nhello", 400),
        ("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: \r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 99999999999999999999\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello", 400),
        ("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\nhello", 400),
        ("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked, chunked\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n", 400),
        ("GET / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 2000000\r\n\r\n", 413),
    ]

    func testHTTP2ConnectionPrefaceIs505SayingHTTP2IsNotServed() {
        var decoder = RequestFramer(maxBodyBytes: 1 << 20)
        guard case .failure(let error)? = decoder.feed(Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)).first else {
            return XCTFail("the preface was not refused")
        }
        XCTAssertEqual(error.status, 505)
        XCTAssertTrue(error.detail.contains("HTTP/2 is not served"), error.detail)
    }

    func testAVersionThisServerDoesNotSpeakIs505EvenWithoutHost() {
        XCTAssertEqual(status("GET / HTTP/2.0\r\n\r\n"), 505)
        XCTAssertEqual(status("GET / HTTP/3.0\r\n\r\n"), 505)
    }

    func testPrecedenceIsMalformedThenMethodThenVersionThenFraming() {
        XCTAssertEqual(status("FOO / HTTP/2.0\r\nHost: a\r\nX : y\r\n\r\n"), 400)
        XCTAssertEqual(status("FOO / HTTP/2.0\r\nHost: a\r\nContent-Length: x\r\n\r\n"), 501)
        XCTAssertEqual(status("GET / HTTP/2.0\r\nHost: a\r\nContent-Length: x\r\n\r\n"), 505)
        XCTAssertEqual(status("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 99999999\r\nTransfer-Encoding: chunked\r\n\r\n"), 400)
        XCTAssertEqual(status("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 99999999\r\n\r\n"), 413)
    }

    func testChunkedGrammarAcceptsExtensionsQuotedStringsAndTrailers() {
        for chunkLine in ["5", "5;a", "5;a=b", "5 ;a", "5; a", "5;a = b", "5;a=\"x y\"", "5;a=\"\\\"\"", "5;a;b=c", "05", "5;a=b ;c"] {
            let request = "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n\(chunkLine)\r\nhello\r\n0\r\nX-T: 1\r\n\r\n"
            XCTAssertEqual(decode(request), ["head POST /", "body hello", "end"], chunkLine)
        }
    }

    func testChunkedGrammarRejectsEverythingElse() {
        for chunkLine in ["5 ", "5;", "5;a ", "+5", "-5", "0x5", " 5", "5_0", "5;a=", "5;[", "5;a=\"x", "5;a=b c", "g", "5\u{0}", "FFFFFFFFFFFFFFFF0"] {
            let request = "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n\(chunkLine)\r\nhello\r\n0\r\n\r\n"
            XCTAssertEqual(decode(request).last, "error 400", chunkLine.debugDescription)
        }
    }

    func testChunkDataNotFollowedByCRLFIsRefused() {
        let request = "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello!!\r\n0\r\n\r\n"
        XCTAssertEqual(decode(request).last, "error 400")
    }

    func testTrailersThatWouldChangeFramingOrRoutingAreRefused() {
        for trailer in ["Content-Length: 5", "Transfer-Encoding: chunked", "Host: evil", "Authorization: x", "Content-Type: text/x"] {
            let request = "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\n\(trailer)\r\n\r\n"
            XCTAssertEqual(decode(request).last, "error 400", trailer)
        }
    }

    func testChunkedBodyOverTheLimitIs413() {
        let request = "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n8\r\n12345678\r\n8\r\n12345678\r\n0\r\n\r\n"
        XCTAssertEqual(decode(request, maxBodyBytes: 10).last, "error 413")
    }

    func testAChunkLineLongerThan4KiBIsRefused() {
        let request = "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5;e=" + String(repeating: "a", count: 5000) + "\r\n"
        XCTAssertEqual(decode(request).last, "error 400")
    }

    func testHeadLimits() {
        let limits = HeadLimits()
        XCTAssertEqual(status("GET /" + String(repeating: "a", count: 8 * 1024) + " HTTP/1.1\r\n"), 414)
        XCTAssertNil(status("GET /" + String(repeating: "a", count: 8 * 1024 - 2) + " HTTP/1.1\r\nHost: a\r\n\r\n"))
        XCTAssertEqual(status("GET / HTTP/1.1\r\nHost: a\r\nX: " + String(repeating: "b", count: limits.maxHeadBytes) + "\r\n\r\n"), 431)
        let hundred = (0..<99).map { "X-\($0): v\r\n" }.joined()
        XCTAssertNil(status("GET / HTTP/1.1\r\nHost: a\r\n" + hundred + "\r\n"))
        XCTAssertEqual(status("GET / HTTP/1.1\r\nHost: a\r\n" + hundred + "X-100: v\r\n\r\n"), 431)
        XCTAssertEqual(status(String(repeating: "A", count: 33) + " / HTTP/1.1\r\n"), 400)
    }

    /// The parser's field table grows past the size it keeps within one head and is
    /// emptied after it: a field after the sixteenth is still checked (a second Host
    /// there is 400), and the next head on the connection is decoded as if alone.
    func testFieldsPastTheSixteenthAreCheckedAndForgottenAfterTheirHead() {
        let many = (0..<20).map { "X-\($0): v\r\n" }.joined()
        XCTAssertEqual(status("GET / HTTP/1.1\r\nHost: a\r\n" + many + "Host: b\r\n\r\n"), 400)
        XCTAssertEqual(decode("GET /one HTTP/1.1\r\nHost: a\r\n" + many + "\r\nGET /two HTTP/1.1\r\nHost: a\r\n\r\n"),
                       ["head GET /one", "end", "head GET /two", "end"])
        XCTAssertEqual(status("GET /one HTTP/1.1\r\nHost: a\r\n" + many + "\r\nGET /two HTTP/1.1\r\n\r\n"), 400)
    }

    /// A request has a query when its target holds one after "?", which an empty one does not.
    func testARequestHasAQueryOnlyWhenItsTargetHoldsOne() {
        let cases = [("GET /p?x=1 HTTP/1.1", true), ("GET /p HTTP/1.1", false), ("GET /p? HTTP/1.1", false),
                     ("OPTIONS * HTTP/1.1", false), ("GET http://a HTTP/1.1", false), ("GET http://a/p?q HTTP/1.1", true)]
        for (line, hasQuery) in cases {
            var decoder = RequestFramer(maxBodyBytes: 100)
            guard case .head(let head)? = decoder.feed(Array((line + "\r\nHost: a\r\n\r\n").utf8)).first else {
                XCTFail(line)
                continue
            }
            let request = head.request(body: [])
            XCTAssertEqual(request.hasQuery, hasQuery, line)
            XCTAssertEqual(request.hasQuery, !request.query.isEmpty, line)
        }
        XCTAssertTrue(HTTPRequest(method: .GET, path: "/p", query: "x").hasQuery)
        XCTAssertFalse(HTTPRequest(method: .GET, path: "/p").hasQuery)
    }

    func testTheHeadLimitCountsNamesValuesAndLineEndings() {
        var limits = HeadLimits()
        limits.maxHeadBytes = 64
        let request = "GET / HTTP/1.1\r\nHost: a\r\n"  // 25 bytes
        XCTAssertNil(status(request + "X: " + String(repeating: "v", count: 32) + "\r\n\r\n", limits: limits))  // 64 bytes
        XCTAssertEqual(status(request + "X: " + String(repeating: "v", count: 33) + "\r\n\r\n", limits: limits), 431)
    }

    func testHeadersKeepDuplicatesInOrderWithCaseInsensitiveLookup() {
        var decoder = RequestFramer(maxBodyBytes: 100)
        let elements = decoder.feed(Array("GET / HTTP/1.1\r\nHost: a\r\nX-A: 1\r\nx-a: 2\r\nUser-Agent: t/1\r\n\r\n".utf8))
        guard case .head(let head) = elements.first else { return XCTFail("no head") }
        XCTAssertEqual(head.headers["X-A"], "1")
        XCTAssertEqual(head.headers.values(for: "x-A"), ["1", "2"])
        XCTAssertEqual(head.headers.map(\.name), ["Host", "X-A", "x-a", "User-Agent"])
        XCTAssertEqual(head.userAgent, "t/1")
    }

    /// Values and targets are read eight bytes at a time: a refused byte is found at
    /// every place of a long value or target, and every byte a value may hold is kept.
    func testEveryByteOfALongValueOrTargetIsChecked() {
        let plain = Array("abcdefghijklmnopqrstuvwxyz0123456789".utf8)
        for place in plain.indices {
            for refused: UInt8 in [0x00, 0x01, 0x0A, 0x1F, 0x7F] {
                var value = plain
                value[place] = refused
                let request = Array("GET / HTTP/1.1\r\nHost: a\r\nX-V: ".utf8) + value + Array("\r\n\r\n".utf8)
                XCTAssertEqual(decode([request]), ["error 400"], "value byte \(refused) at \(place)")
            }
            for kept: UInt8 in [0x21, 0x7E, 0x80, 0xFF, 0x20, 0x09] where place > 0 && place < plain.count - 1 || kept > 0x20 {
                var value = plain
                value[place] = kept
                var decoder = RequestFramer(maxBodyBytes: 100)
                let elements = decoder.feed(Array("GET / HTTP/1.1\r\nHost: a\r\nX-V: ".utf8) + value + Array("\r\n\r\n".utf8))
                guard case .head(let head) = elements.first else { return XCTFail("value byte \(kept) at \(place)") }
                XCTAssertEqual(head.headers["X-V"].map { Array($0.utf8) }, Array(String(decoding: value, as: UTF8.self).utf8))
            }
            for refused: UInt8 in [0x00, 0x09, 0x7F, 0x80, 0xFF] {
                var target = Array("/".utf8) + plain
                target[place + 1] = refused
                let request = Array("GET ".utf8) + target + Array(" HTTP/1.1\r\nHost: a\r\n\r\n".utf8)
                XCTAssertEqual(decode([request]), ["error 400"], "target byte \(refused) at \(place)")
            }
        }
        XCTAssertEqual(decode("GET /" + String(decoding: plain, as: UTF8.self) + " HTTP/1.1\r\nHost: a\r\n\r\n"),
                       ["head GET /" + String(decoding: plain, as: UTF8.self), "end"])
    }

    /// The byte classes are the grammars' sets, every byte checked.
    func testByteClassesAreTheGrammarsSetsAndNoMore() {
        let alphanumeric = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
        let tchar = Set((alphanumeric + "!#$%&'*+-.^_`|~").utf8)  // RFC 9110 §5.6.2
        let unreserved = alphanumeric + "-._~", subDelims = "!$&'()*+,;="  // RFC 3986 §2
        let target = Set((unreserved + subDelims + ":@" + "/?" + "%").utf8)  // pchar, "/", "?", "%"
        let plainTarget = target.subtracting("?%".utf8)
        let hostName = Set((unreserved + subDelims + "%").utf8).subtracting(",".utf8)
        for byte in UInt8.min...UInt8.max {
            XCTAssertEqual(ByteClass.isToken(byte), tchar.contains(byte), "tchar \(byte)")
            XCTAssertEqual(ByteClass.isTarget(byte), target.contains(byte), "target \(byte)")
            XCTAssertEqual(ByteClass.isPlainTarget(byte), plainTarget.contains(byte), "plain target \(byte)")
            XCTAssertEqual(ByteClass.isHostName(byte), hostName.contains(byte), "host name \(byte)")
        }
    }

    func testHeaderValuesLoseOnlyTheirSurroundingWhitespace() {
        var decoder = RequestFramer(maxBodyBytes: 100)
        let elements = decoder.feed(Array("GET / HTTP/1.1\r\nHost: a\r\nX-A:  a \t b \t\r\nX-E:\r\nX-F: \t \r\nx-a:\tlast\r\n\r\n".utf8))
        guard case .head(let head) = elements.first else { return XCTFail("no head") }
        XCTAssertEqual(head.headers.count, 5)
        XCTAssertEqual(head.headers.values(for: "X-A"), ["a \t b", "last"])
        XCTAssertEqual(head.headers["x-e"], "")
        XCTAssertEqual(head.headers["X-F"], "")
        XCTAssertNil(head.headers["X-G"])
        var headers = head.headers
        headers.add(name: "X-G", value: " kept as given ")
        XCTAssertEqual(headers.map(\.name), ["Host", "X-A", "X-E", "X-F", "x-a", "X-G"])
        XCTAssertEqual(headers["x-g"], " kept as given ")
        XCTAssertEqual(head.headers.count, 5, "the request's own headers are unchanged")
    }

    func testKeepAliveFollowsTheVersionAndConnectionField() {
        func keepAlive(_ text: String) -> Bool? {
            var decoder = RequestFramer(maxBodyBytes: 100)
            guard case .head(let head)? = decoder.feed(Array(text.utf8)).first else { return nil }
            return head.keepAlive
        }
        XCTAssertEqual(keepAlive("GET / HTTP/1.1\r\nHost: a\r\n\r\n"), true)
        XCTAssertEqual(keepAlive("GET / HTTP/1.1\r\nHost: a\r\nConnection: Close\r\n\r\n"), false)
        XCTAssertEqual(keepAlive("GET / HTTP/1.0\r\n\r\n"), false)
        XCTAssertEqual(keepAlive("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"), true)
    }

    func testAbsoluteFormNamingTheHostIsAccepted() {
        XCTAssertEqual(decode("GET http://a:80/x?y HTTP/1.1\r\nHost: a:80\r\n\r\n"), ["head GET /x?y", "end"])
        XCTAssertEqual(decode("OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n"), ["head OPTIONS *", "end"])
    }

    func testNothingIsDecodedAfterAFailure() {
        XCTAssertEqual(decode("GET / HTTP/1.1\r\nHost: a\r\nX : y\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n"), ["error 400"])
    }
}
