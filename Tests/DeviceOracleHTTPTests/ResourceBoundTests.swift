import DeviceOracleHTTP
import Foundation
import HTTPTestSupport
import XCTest

/// The bounds a hostile or careless client meets: the minimum receive rate and the
/// memory budget (http.md limits; issue 16's slow-body lockout and unbounded memory).
final class ResourceBoundTests: XCTestCase {
    private func postHead(_ length: Int, extra: String = "") -> String {
        "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n\(extra)Content-Length: \(length)\r\n\r\n"
    }

    /// A server with a budget of `budget` bytes, and a connection holding 600 kB of it
    /// with a body begun and not finished (`finishHolding` ends it).
    private func serverWithTheBudgetHeld(budget: Int = 1_000_000, memoryWait: Double) throws -> (TestServer, TestConnection) {
        let server = try TestServer {
            $0.maxMemoryBytes = budget
            $0.memoryWait = memoryWait
        }
        let holder = try server.connect()
        holder.send(postHead(600_000) + "[")
        XCTAssertTrue(eventually { server.server.memoryBudgetInUse > 0 }, "the holder's body has begun")
        return (server, holder)
    }

    private func finishHolding(_ holder: TestConnection, file: StaticString = #filePath, line: UInt = #line) {
        holder.send(String(repeating: " ", count: 599_998) + "]")
        XCTAssertEqual(holder.readResponse(timeout: 10)?.status, 200, "the request that held the budget is unaffected",
                       file: file, line: line)
    }

    /// Sends `text` a byte every 100 ms, until the server answers (or closes).
    private func trickle(_ text: String, to connection: TestConnection) {
        for byte in text.utf8 {
            connection.send([byte])
            if connection.receivesBytes(within: 0.1) { return }
        }
    }

    /// Waits up to 5 s for the budget to be given back whole.
    private func assertBudgetReturnsToZero(_ server: TestServer, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertTrue(eventually(within: 5) { server.server.memoryBudgetInUse == 0 },
                      "budget still held: \(server.server.memoryBudgetInUse)", file: file, line: line)
    }

    // MARK: Minimum rate

    func testABodyTrickledAByteAtATimeGets408OnceItFallsBelowTheMinimumRate() throws {
        let server = try TestServer {
            $0.minReceiveRate = 200
            $0.minReceiveRateGrace = 0.3
        }
        let connection = try server.connect()
        let start = Date()
        connection.send(postHead(1000))
        // One byte every 100 ms never trips the 30 s body timeout between bytes.
        trickle(String(repeating: "1", count: 40), to: connection)
        let response = try XCTUnwrap(connection.readResponse())
        XCTAssertEqual(response.status, 408)
        XCTAssertTrue(response.text.contains("bytes/s"), response.text)
        XCTAssertLessThan(Date().timeIntervalSince(start), 3, "cut soon after the grace period")
        XCTAssertTrue(connection.waitForClose())
    }

    // MARK: Memory budget

    func testABodyOverTheMemoryBudgetWaitsUnreadThenGets503WithRetryAfter() throws {
        let server = try TestServer {
            $0.maxMemoryBytes = 1_000_000
            $0.memoryWait = 0.3
        }
        let holder = try server.connect()
        holder.send(postHead(600_000) + "[")  // holds 600 kB of the budget, body unfinished
        XCTAssertTrue(eventually { server.server.memoryBudgetInUse > 0 }, "the holder's body has begun")
        let refused = try server.connect()
        let start = Date()
        refused.send(postHead(600_000))
        let response = try XCTUnwrap(refused.readResponse())
        XCTAssertEqual(response.status, 503)
        XCTAssertEqual(response.header("Retry-After"), "1")
        XCTAssertEqual(response.header("Content-Type"), "application/problem+json")
        XCTAssertTrue(response.text.contains("/problems/overloaded"), response.text)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(start), 0.25, "it waited for room first")
        XCTAssertTrue(refused.waitForClose())
        finishHolding(holder)
        assertBudgetReturnsToZero(server)
    }

    func testARefusedClientThatSendsItsBodyAnywayReadsThe503NotAReset() throws {
        let (server, holder) = try serverWithTheBudgetHeld(memoryWait: 0.2)
        let refused = try server.connect()
        XCTAssertTrue(refused.send(postHead(600_000) + "[" + String(repeating: " ", count: 599_998) + "]"))
        XCTAssertEqual(refused.readResponse()?.status, 503)
        finishHolding(holder)
    }

    func testABodyWaitingForTheBudgetIsServedOnceRoomFrees() throws {
        let (server, holder) = try serverWithTheBudgetHeld(memoryWait: 10)
        let waiting = try server.connect()
        let body = "[" + String(repeating: " ", count: 599_998) + "]"
        waiting.send(postHead(600_000))
        XCTAssertFalse(waiting.receivesBytes(within: 0.2), "no answer while it waits")
        finishHolding(holder)
        waiting.send(body)
        XCTAssertEqual(waiting.readResponse(timeout: 10)?.body.count, 600_000)
        assertBudgetReturnsToZero(server)
    }

    func testExpectContinueGetsNo100WhileTheBodyWaitsForTheBudget() throws {
        let (server, holder) = try serverWithTheBudgetHeld(memoryWait: 0.3)
        let waiting = try server.connect()
        waiting.send(postHead(600_000, extra: "Expect: 100-continue\r\n"))
        let response = try XCTUnwrap(waiting.readResponse())
        XCTAssertEqual(response.status, 503, "the final answer, never a 100 Continue first")
        XCTAssertEqual(response.header("Connection"), "close")
        finishHolding(holder)
    }

    func testAChunkedBodyTakesTheBudgetAsItGrowsAndIsRefusedPastIt() throws {
        let (server, holder) = try serverWithTheBudgetHeld(budget: 1_500_000, memoryWait: 0.3)
        // The first megabyte fits beside the holder; the next step does not.
        let chunked = try server.connect()
        chunked.send("POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n")
        let piece = String(repeating: " ", count: 100_000)
        var refused = false
        for _ in 0..<12 where !refused {
            chunked.send("186a0\r\n\(piece)\r\n")
            refused = chunked.receivesBytes(within: 0.05)
        }
        XCTAssertEqual(chunked.readResponse()?.status, 503)
        finishHolding(holder)
        assertBudgetReturnsToZero(server)
    }

    func testTheBudgetIsGivenBackWhenClientsVanishMidBodyOrMidAnswer() throws {
        let server = try TestServer { $0.sendTimeout = 0.3 }
        let gateName = UUID().uuidString
        let gate = HandlerGate.named(gateName)
        do {
            let vanishing = try server.connect()
            vanishing.send(postHead(500_000) + "[1,")
            let slowReader = try server.connect()
            slowReader.send("GET /big HTTP/1.1\r\nHost: t\r\n\r\n")  // 32 MiB it never reads
            let offloaded = try server.connect()
            offloaded.send(postHead(100_000).replacingOccurrences(of: "/echo", with: "/gate?name=\(gateName)")
                           + "[" + String(repeating: " ", count: 99_998) + "]")
            XCTAssertTrue(gate.handlerWaits(), "the offloaded handler runs")
            XCTAssertGreaterThan(server.server.memoryBudgetInUse, 0)
        }  // every connection closes here, two of them mid-request, one mid-handler
        gate.open()
        assertBudgetReturnsToZero(server)
    }

    // MARK: HTTP/1.0 answers

    func testAnHTTP10ClientGetsALongStreamedBodyAsItIsWrittenWithItsContentLength() throws {
        let server = try TestServer()
        let connection = try server.connect()
        let byteCount = 3_000_001
        connection.send("GET /stream?bytes=\(byteCount) HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        let response = try XCTUnwrap(connection.readResponse(timeout: 10))
        XCTAssertEqual(response.header("Content-Length"), "\(byteCount)")
        XCTAssertNil(response.header("Transfer-Encoding"))
        XCTAssertEqual(response.body, CountingStream.expected(byteCount))
        connection.send("GET /hello HTTP/1.0\r\n\r\n")
        XCTAssertEqual(connection.readResponse()?.text, "hello", "the connection is kept as asked")
    }
}
