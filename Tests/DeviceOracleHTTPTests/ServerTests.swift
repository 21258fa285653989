import DeviceOracleHTTP
import Foundation
import HTTPTestSupport
import XCTest

/// The server over real loopback sockets, with the test routes of `TestServer`.
final class ServerTests: XCTestCase {
    private let hello = "GET /hello HTTP/1.1\r\nHost: t\r\n\r\n"

    private func post(_ path: String, _ body: String, extra: String = "") -> String {
        "POST \(path) HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n\(extra)Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
    }

    // MARK: Persistent connections and pipelining

    func testKeepAliveServesSeveralRequestsOnOneConnection() throws {
        let server = try TestServer()
        let connection = try server.connect()
        for _ in 0..<3 {
            connection.send(hello)
            let response = try XCTUnwrap(connection.readResponse())
            XCTAssertEqual(response.status, 200)
            XCTAssertEqual(response.text, "hello")
            XCTAssertNil(response.header("Connection"))
        }
    }

    func testPipelinedRequestsAreAnsweredInOrder() throws {
        let server = try TestServer()
        let connection = try server.connect()
        connection.send(hello + post("/echo", "[1]") + "GET /missing HTTP/1.1\r\nHost: t\r\n\r\n" + post("/echo", "[2]"))
        XCTAssertEqual(connection.readResponse()?.text, "hello")
        XCTAssertEqual(connection.readResponse()?.text, "[1]")
        XCTAssertEqual(connection.readResponse()?.status, 404)
        XCTAssertEqual(connection.readResponse()?.text, "[2]")
    }

    /// A request's head and body are written in the memory of the one answered before
    /// (`RecycledBuffers`): every body arrives as sent, longer or shorter than the last,
    /// over the recycling bound or not, one by one or pipelined.
    func testEachRequestGetsItsOwnBodyWhateverTheOneBeforeHeld() throws {
        let server = try TestServer()
        let connection = try server.connect()
        let bodies = [300, 10, 5_000, 40_000, 2, 17_000, 16_384, 700].map { length in
            "[" + String(repeating: "1,", count: length / 2) + "0]"
        }
        for body in bodies {
            connection.send(post("/echo", body, extra: "X-Long: \(String(repeating: "h", count: body.utf8.count % 900))\r\n"))
            XCTAssertEqual(connection.readResponse()?.text, body)
        }
        connection.send(bodies.reversed().map { post("/echo", $0) }.joined())
        for body in bodies.reversed() { XCTAssertEqual(connection.readResponse()?.text, body) }
    }

    func testPipelinedLargeAnswersAreAllDeliveredInOrder() throws {
        let server = try TestServer()
        let connection = try server.connect()
        connection.send(String(repeating: "GET /megabyte HTTP/1.1\r\nHost: t\r\n\r\n", count: 12) + hello)
        for _ in 0..<12 {
            XCTAssertEqual(connection.readResponse(timeout: 10)?.body.count, 1 << 20)
        }
        XCTAssertEqual(connection.readResponse()?.text, "hello")
    }

    // MARK: Streamed bodies

    func testAStreamedBodyThatEndsInItsFirstPieceIsSentWithContentLength() throws {
        let server = try TestServer()
        let connection = try server.connect()
        connection.send("GET /stream?bytes=1000 HTTP/1.1\r\nHost: t\r\n\r\n")
        let response = try XCTUnwrap(connection.readResponse())
        XCTAssertEqual(response.header("Content-Length"), "1000")
        XCTAssertNil(response.header("Transfer-Encoding"))
        XCTAssertEqual(response.body, CountingStream.expected(1000))
    }

    func testALongStreamedBodyIsSentChunkedAndArrivesWholeAndInOrder() throws {
        let server = try TestServer()
        let connection = try server.connect()
        let byteCount = 3_000_001
        connection.send("GET /stream?bytes=\(byteCount) HTTP/1.1\r\nHost: t\r\n\r\n")
        let response = try XCTUnwrap(connection.readResponse(timeout: 10))
        XCTAssertEqual(response.header("Transfer-Encoding"), "chunked")
        XCTAssertNil(response.header("Content-Length"))
        XCTAssertEqual(response.body, CountingStream.expected(byteCount))
    }

    func testRequestsPipelinedBehindAStreamedBodyAreAnsweredAfterIt() throws {
        let server = try TestServer()
        let connection = try server.connect()
        let streamed = "GET /stream?bytes=2000000 HTTP/1.1\r\nHost: t\r\n\r\n"
        connection.send(streamed + hello + streamed + post("/echo", "[3]"))
        XCTAssertEqual(connection.readResponse(timeout: 10)?.body.count, 2_000_000)
        XCTAssertEqual(connection.readResponse()?.text, "hello")
        XCTAssertEqual(connection.readResponse(timeout: 10)?.body, CountingStream.expected(2_000_000))
        XCTAssertEqual(connection.readResponse()?.text, "[3]")
    }

    func testAnHTTP10ClientGetsAStreamedBodyWholeWithContentLength() throws {
        let server = try TestServer()
        let connection = try server.connect()
        connection.send("GET /stream?bytes=700000 HTTP/1.0\r\n\r\n")
        let response = try XCTUnwrap(connection.readResponse(timeout: 10))
        XCTAssertEqual(response.header("Content-Length"), "700000")
        XCTAssertNil(response.header("Transfer-Encoding"))
        XCTAssertEqual(response.body, CountingStream.expected(700_000))
    }

    func testHeadOfAStreamedBodyGetsTheChunkedHeaderAndNoBody() throws {
        let server = try TestServer()
        let connection = try server.connect()
        connection.send("HEAD /stream?bytes=700000 HTTP/1.1\r\nHost: t\r\n\r\n" + hello)
        let response = try XCTUnwrap(connection.readResponse(bodyless: true))
        XCTAssertEqual(response.header("Transfer-Encoding"), "chunked")
        XCTAssertEqual(connection.readResponse()?.text, "hello")
    }

    func testShutdownLetsAStreamedBodyEndThenClosesTheConnection() throws {
        // A grace period far longer than the stream needs: under the sanitizers 8 MB
        // took 10-12 s to stream and read, and the default 10 s grace could cut it.
        let server = try TestServer { $0.shutdownGrace = 60 }
        let connection = try server.connect()
        connection.send("GET /stream?bytes=8000000 HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertTrue(connection.receivesBytes(within: 10), "the body has begun; the rest waits to be pulled")
        let finished = Locked<Bool?>(nil), stopped = DispatchSemaphore(value: 0)
        Thread {
            finished.value = server.server.shutdown()
            stopped.signal()
        }.start()
        XCTAssertTrue(eventually { (try? server.connect()) == nil }, "the drain has begun")
        XCTAssertEqual(connection.readResponse(timeout: 60)?.body, CountingStream.expected(8_000_000))
        XCTAssertTrue(connection.waitForClose())
        XCTAssertEqual(stopped.wait(timeout: .now() + 5), .success)
        XCTAssertEqual(finished.value, true, "no request was cut")
    }

    func testHTTP10ClosesUnlessItAsksForKeepAlive() throws {
        let server = try TestServer()
        let closing = try server.connect()
        closing.send("GET /hello HTTP/1.0\r\n\r\n")
        XCTAssertEqual(closing.readResponse()?.header("Connection"), "close")
        XCTAssertTrue(closing.waitForClose())

        let keeping = try server.connect()
        keeping.send("GET /hello HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        XCTAssertEqual(keeping.readResponse()?.header("Connection"), "keep-alive")
        keeping.send("GET /hello HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        XCTAssertEqual(keeping.readResponse()?.status, 200)
    }

    func testConnectionCloseIsHonoured() throws {
        let server = try TestServer()
        let connection = try server.connect()
        connection.send("GET /hello HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        let response = try XCTUnwrap(connection.readResponse())
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.header("Connection"), "close")
        XCTAssertTrue(connection.waitForClose())
    }

    // MARK: Bodies

    func testChunkedBodyWithExtensionsAndTrailersReachesTheHandler() throws {
        let server = try TestServer()
        let connection = try server.connect()
        connection.send("POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n4;a=b\r\n{\"a\"\r\n3\r\n:1}\r\n0\r\nX-Sum: 1\r\n\r\n")
        let response = try XCTUnwrap(connection.readResponse())
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.text, #"{"a":1}"#)
    }

    func testABodyOnAGetRouteIsReadAndDiscarded() throws {
        let server = try TestServer()
        let connection = try server.connect()
        connection.send("GET /hello HTTP/1.1\r\nHost: t\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello" + hello)
        XCTAssertEqual(connection.readResponse()?.text, "hello")
        XCTAssertEqual(connection.readResponse()?.text, "hello")
    }

    func testExpectContinueGets100BeforeTheBodyIsSent() throws {
        let server = try TestServer()
        let connection = try server.connect()
        connection.send("POST /echo HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n")
        XCTAssertEqual(connection.readResponse()?.status, 100)
        connection.send("{}")
        XCTAssertEqual(connection.readResponse()?.text, "{}")
    }

    func testExpectContinueIsRefusedEarlyWithCloseFor404405413And415() throws {
        let server = try TestServer { $0.maxBodyBytes = 100 }
        let cases: [(String, Int)] = [
            ("POST /missing HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n", 404),
            ("POST /hello HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n", 405),
            ("POST /echo HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 101\r\n\r\n", 413),
            ("POST /echo HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\n", 415),
        ]
        for (request, status) in cases {
            let connection = try server.connect()
            connection.send(request)
            let response = try XCTUnwrap(connection.readResponse(), "\(status)")
            XCTAssertEqual(response.status, status)
            XCTAssertEqual(response.header("Connection"), "close")
            XCTAssertEqual(response.header("Content-Type"), "application/problem+json")
            XCTAssertTrue(connection.waitForClose(), "\(status)")
        }
    }

    func testAnHTTP10RequestNeverGets100Continue() throws {
        let server = try TestServer()
        let connection = try server.connect()
        connection.send("POST /echo HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n{}")
        let response = try XCTUnwrap(connection.readResponse())
        XCTAssertEqual(response.status, 200)
        XCTAssertTrue(connection.waitForClose())
        XCTAssertFalse(String(decoding: connection.received, as: UTF8.self).contains("100 Continue"))
    }

    func testEveryAnswerSaysNosniffButA100Continue() throws {
        let server = try TestServer { $0.maxBodyBytes = 100 }
        let connection = try server.connect()
        connection.send("POST /echo HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n")

        let interim = try XCTUnwrap(connection.readResponse())
        connection.send("{}")
        let answered = try XCTUnwrap(connection.readResponse())
        connection.send("OPTIONS * HTTP/1.1\r\nHost: t\r\n\r\n")
        let noContent = try XCTUnwrap(connection.readResponse())
        connection.send("GET /missing HTTP/1.1\r\nHost: t\r\n\r\n")
        let problem = try XCTUnwrap(connection.readResponse())
        connection.send("GET /hello HTTP/1.1\r\nHost: t\r\nBad Name: x\r\n\r\n")
        let refusedHead = try XCTUnwrap(connection.readResponse())

        XCTAssertEqual(interim.status, 100)
        XCTAssertTrue(interim.headers.isEmpty)
        for (response, status) in [(answered, 200), (noContent, 204), (problem, 404), (refusedHead, 400)] {
            XCTAssertEqual(response.status, status)
            XCTAssertEqual(response.headers.filter { $0.0 == "X-Content-Type-Options" }.map(\.1), ["nosniff"], "\(status)")
        }
    }

    func testHeadGetsTheGetHeadersWithoutTheBody() throws {
        let server = try TestServer()
        let connection = try server.connect()
        connection.send("HEAD /hello HTTP/1.1\r\nHost: t\r\n\r\n")
        let response = try XCTUnwrap(connection.readResponse(bodyless: true))
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.header("Content-Length"), "5")
        XCTAssertEqual(response.header("Content-Type"), "text/plain")
        // Had body bytes followed the head, this would read them as a status line.
        connection.send(hello)
        XCTAssertEqual(connection.readResponse()?.text, "hello")
    }

    // MARK: Statuses

    /// Each request on a fresh connection: its status, and whether the server closes after it.
    func testEveryStatusTheServerDecidesItself() throws {
        let server = try TestServer { $0.maxBodyBytes = 100 }
        let cases: [(String, Int, Bool)] = [
            ("GET /hello HTTP/1.1\r\nHost: t\r\nBad Name: x\r\n\r\n", 400, true),
            ("GET /missing HTTP/1.1\r\nHost: t\r\n\r\n", 404, false),
            ("DELETE /hello HTTP/1.1\r\nHost: t\r\n\r\n", 405, false),
            ("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 101\r\n\r\n", 413, true),
            ("GET /" + String(repeating: "a", count: 9000) + " HTTP/1.1\r\nHost: t\r\n\r\n", 414, true),
            ("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\n{}", 415, false),
            ("GET /hello HTTP/1.1\r\nHost: t\r\nX: " + String(repeating: "b", count: 17000) + "\r\n\r\n", 431, true),
            ("BREW /hello HTTP/1.1\r\nHost: t\r\n\r\n", 501, true),
            ("GET /hello HTTP/2.0\r\nHost: t\r\n\r\n", 505, true),
            ("OPTIONS * HTTP/1.1\r\nHost: t\r\n\r\n", 204, false),
        ]
        for (request, status, closes) in cases {
            let connection = try server.connect()
            connection.send(request)
            let response = try XCTUnwrap(connection.readResponse(), "\(status)")
            XCTAssertEqual(response.status, status)
            XCTAssertNotNil(response.header("Date"), "\(status)")
            if status == 204 {
                XCTAssertNil(response.header("Content-Length"))
                XCTAssertEqual(response.header("Allow"), "GET, HEAD, POST, OPTIONS")
            } else {
                XCTAssertEqual(response.header("Content-Type"), "application/problem+json", "\(status)")
                XCTAssertEqual(response.header("Content-Length"), "\(response.body.count)")
            }
            if status == 405 { XCTAssertEqual(response.header("Allow"), "GET, HEAD") }
            if closes {
                XCTAssertEqual(response.header("Connection"), "close", "\(status)")
                XCTAssertTrue(connection.waitForClose(), "\(status)")
            } else {
                connection.send(hello)
                XCTAssertEqual(connection.readResponse()?.text, "hello", "\(status) keeps the connection")
            }
        }
    }

    func testSmugglingAttemptsAreRefusedAndTheSmuggledRequestIsNeverAnswered() throws {
        let server = try TestServer()
        let smuggled = "GET /hello HTTP/1.1\r\nHost: t\r\n\r\n"
        let attempts = [
            "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: \(5 + smuggled.utf8.count)\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + smuggled,
            "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\nContent-Length: \(2 + smuggled.utf8.count)\r\n\r\n{}" + smuggled,
            "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: gzip\r\nContent-Length: 2\r\n\r\n{}" + smuggled,
            "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}XX0\r\n\r\n" + smuggled,
        ]
        for attempt in attempts {
            let connection = try server.connect()
            connection.send(attempt)
            XCTAssertEqual(connection.readResponse()?.status, 400, attempt)
            XCTAssertTrue(connection.waitForClose(), attempt)
            XCTAssertFalse(String(decoding: connection.received, as: UTF8.self).contains("HTTP/1.1"), attempt)
        }
    }

    func testAtMaxConnectionsFurtherAcceptsGet503AndAreClosed() throws {
        let server = try TestServer { $0.maxConnections = 2 }
        let first = try server.connect(), second = try server.connect()
        for connection in [first, second] {
            connection.send(hello)
            XCTAssertEqual(connection.readResponse()?.status, 200)
        }
        let third = try server.connect()
        let response = try XCTUnwrap(third.readResponse())
        XCTAssertEqual(response.status, 503)
        XCTAssertEqual(response.header("Content-Type"), "application/problem+json")
        XCTAssertTrue(third.waitForClose())
        first.send(hello)
        XCTAssertEqual(first.readResponse()?.status, 200, "open connections are unaffected")
    }

    // MARK: Timeouts

    func testAPartialHeadGets408AtTheHeaderTimeout() throws {
        let server = try TestServer { $0.headerTimeout = 0.3 }
        let connection = try server.connect()
        let start = Date()
        connection.send("GET /hello HTTP/1.1\r\nHo")
        let response = try XCTUnwrap(connection.readResponse())
        XCTAssertEqual(response.status, 408)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(start), 0.25)
        XCTAssertTrue(connection.waitForClose())
    }

    func testAnIdleKeepAliveConnectionIsClosedSilently() throws {
        let server = try TestServer { $0.idleTimeout = 0.3 }
        let connection = try server.connect()
        connection.send(hello)
        XCTAssertEqual(connection.readResponse()?.status, 200)
        XCTAssertTrue(connection.waitForClose())
        XCTAssertTrue(connection.received.isEmpty)
    }

    func testAPeerThatDoesNotReadIsClosedAtTheSendTimeout() throws {
        let server = try TestServer { $0.sendTimeout = 0.3 }
        let connection = try server.connect()
        connection.send("GET /big HTTP/1.1\r\nHost: t\r\n\r\n")
        // Unsent output is counted in the budget: it is held while the send stalls,
        // and given back when the connection closes (reading before would unstall it).
        XCTAssertTrue(eventually { server.server.memoryBudgetInUse > 0 }, "the answer waits for the peer")
        XCTAssertTrue(eventually { server.server.memoryBudgetInUse == 0 }, "the server gave up on the stalled send")
        XCTAssertTrue(connection.waitForClose(timeout: 10))
        XCTAssertLessThan(connection.received.count, 32 << 20, "the whole answer cannot have been sent")
    }

    // MARK: Lingering close, concurrency, memory

    func testAfterAFramingErrorThePeerCanFinishSendingAndReadTheAnswer() throws {
        let server = try TestServer()
        let connection = try server.connect()
        connection.send("GET /hello HTTP/1.1\r\nHost: t\r\nContent-Length: abc\r\n\r\n")
        // A client still sending when the answer comes: after a plain close its sends
        // would fail with a reset and it would abort without reading the answer.
        for _ in 0..<10 {
            _ = connection.receivesBytes(within: 0.01)  // sending on while the answer arrives
            XCTAssertTrue(connection.send(String(repeating: "x", count: 4096)), "the server discards, it does not reset")
        }
        XCTAssertEqual(connection.readResponse()?.status, 400)
        XCTAssertTrue(connection.waitForClose())
    }

    func testALargeSlowRequestDoesNotDelaySmallRequestsOnTheSameLoop() throws {
        let server = try TestServer { $0.eventLoops = 1 }
        let large = try server.connect()
        let body = "[" + String(repeating: "1,", count: 2_500_000) + "1]"  // 5 MB, handler waits at its gate
        let gateName = UUID().uuidString
        let gate = HandlerGate.named(gateName)
        let request = post("/gate?name=\(gateName)", body)
        let sender = Thread { large.send(request) }
        sender.start()
        XCTAssertTrue(gate.handlerWaits(), "the large request's handler is running")
        let small = try server.connect()
        let start = Date()
        small.send(hello)
        XCTAssertEqual(small.readResponse()?.status, 200)
        XCTAssertLessThan(Date().timeIntervalSince(start), 0.5)
        gate.open()
        XCTAssertEqual(large.readResponse(timeout: 20)?.text, "\(body.utf8.count)")
    }

    func testThousandsOfIdleKeepAliveConnectionsCostLittleMemory() throws {
        // AddressSanitizer pads every allocation and keeps freed memory in quarantine,
        // so resident memory says nothing about the server's own use.
        try XCTSkipIf(dlsym(nil, "__asan_init") != nil, "resident memory is meaningless under AddressSanitizer")
        let server = try TestServer()
        let before = residentBytes()
        var connections: [TestConnection] = []
        for _ in 0..<2000 {
            let connection = try server.connect()
            connection.send(hello)
            connections.append(connection)
        }
        for connection in connections {
            XCTAssertEqual(connection.readResponse()?.status, 200)
        }
        let perConnection = (residentBytes() - before) / connections.count
        XCTAssertLessThan(perConnection, 8 * 1024, "resident bytes per idle connection (client side included)")
        connections[1234].send(hello)
        XCTAssertEqual(connections[1234].readResponse()?.text, "hello")
    }

    // MARK: Shutdown

    func testShutdownLetsARequestInFlightFinishAndRefusesNewConnections() throws {
        let server = try TestServer()
        let connection = try server.connect()
        connection.send("POST /echo HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 7\r\n\r\n")
        XCTAssertEqual(connection.readResponse()?.status, 100, "the head has arrived: the request is in flight")
        connection.send("[1,")
        let idle = try server.connect()
        let finished = Locked<Bool?>(nil), stopped = DispatchSemaphore(value: 0)
        Thread {
            finished.value = server.server.shutdown()
            stopped.signal()
        }.start()
        XCTAssertTrue(eventually(within: 2) { (try? server.connect()) == nil }, "the listener closes at once")
        XCTAssertTrue(idle.waitForClose(), "idle connections are closed")
        connection.send("2,3]")
        let response = try XCTUnwrap(connection.readResponse())
        XCTAssertEqual(response.text, "[1,2,3]")
        XCTAssertEqual(response.header("Connection"), "close")
        XCTAssertEqual(stopped.wait(timeout: .now() + 5), .success)
        XCTAssertEqual(finished.value, true)
    }

    func testShutdownReportsRequestsCutAtTheEndOfTheGracePeriod() throws {
        let server = try TestServer { $0.shutdownGrace = 0.3 }
        let connection = try server.connect()
        connection.send("POST /echo HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 7\r\n\r\n")
        XCTAssertEqual(connection.readResponse()?.status, 100, "the head has arrived: the request is in flight")
        connection.send("[1,")
        XCTAssertFalse(server.server.shutdown())
        XCTAssertTrue(connection.waitForClose())
    }

    private func residentBytes() -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return (Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0) * 1024
    }
}

/// A value shared with a helper thread.
final class Locked<Value>: @unchecked Sendable {
    // @unchecked: every access goes through the lock.
    private let lock = NSLock()
    private var stored: Value

    init(_ value: Value) { stored = value }

    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }

    func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.withLock { body(&stored) }
    }
}
