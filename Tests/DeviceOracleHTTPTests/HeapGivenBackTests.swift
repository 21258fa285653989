@testable import DeviceOracleHTTP
import Foundation
import HTTPTestSupport
import Synchronization
import XCTest

/// Freed megabytes are given back a quiet period after whatever held them let go, not
/// only after a large request: issue 16's memory kept after a send timeout, and after
/// heavy load of small requests with large answers.
final class HeapGivenBackTests: XCTestCase {
    private final class TrimCounter: Sendable {
        let trims = Atomic<Int>(0)

        func waitForATrim(after count: Int, within seconds: Double = 3) -> Bool {
            eventually(within: seconds) { trims.load(ordering: .relaxed) > count }
        }
    }

    private func server(_ counter: TrimCounter, configure: (inout ServerConfiguration) -> Void = { _ in }) throws
        -> (HTTPServer, Int) {
        var configuration = ServerConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configure(&configuration)
        let trimming = HeapTrimming(quietPeriod: 100_000_000) { counter.trims.add(1, ordering: .relaxed) }
        let server = HTTPServer(configuration: configuration, routes: TestServer.routes,
                                logger: Logger(level: .warn, fileDescriptor: open("/dev/null", O_WRONLY)), heapTrimming: trimming)
        return (server, try server.start().port)
    }

    func testAWholeAnswerCutByTheSendTimeoutIsGivenBack() throws {
        let counter = TrimCounter()
        let (server, port) = try server(counter) { $0.sendTimeout = 1 }
        defer { server.shutdown() }
        let connection = try TestConnection(port: port)
        connection.send("GET /big HTTP/1.0\r\n\r\n")  // 32 MiB it does not read
        // Unsent output is counted in the budget: it is held until the send timeout cuts
        // the answer, a second after the trim that followed its making.
        XCTAssertTrue(eventually { server.memoryBudgetInUse > 0 }, "the answer waits for the peer")
        XCTAssertTrue(eventually { server.memoryBudgetInUse == 0 }, "the send timeout cut it")
        let beforeTheCut = counter.trims.load(ordering: .relaxed)
        XCTAssertTrue(counter.waitForATrim(after: beforeTheCut), "a trim follows the cut answer")
        XCTAssertTrue(connection.waitForClose(timeout: 10))
    }

    func testALargeAnswerToASmallRequestIsGivenBack() throws {
        let counter = TrimCounter()
        let (server, port) = try server(counter)
        defer { server.shutdown() }
        XCTAssertTrue(counter.waitForATrim(after: 0), "the trim a quiet period after start")
        let connection = try TestConnection(port: port)
        connection.send("GET /megabyte HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertEqual(connection.readResponse()?.body.count, 1 << 20)
        XCTAssertTrue(counter.waitForATrim(after: 1), "a megabyte answer without a large body schedules a trim")
    }

    func testSmallAnswersScheduleNoTrim() throws {
        let counter = TrimCounter()
        let (server, port) = try server(counter)
        defer { server.shutdown() }
        XCTAssertTrue(counter.waitForATrim(after: 0), "the trim a quiet period after start")
        let connection = try TestConnection(port: port)
        for _ in 0..<20 {
            connection.send("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
            XCTAssertEqual(connection.readResponse()?.text, "hello")
        }
        XCTAssertFalse(counter.waitForATrim(after: 1, within: 0.4), "four quiet periods and no trim")
    }
}
