import Foundation
import HTTPTestSupport
import XCTest

/// The unified-log form over HTTP and in the CLI (oslog.md), against the real binary,
/// with the captures of Tests/Fixtures/oslog.
final class UnifiedLogEndToEndTests: OracleProcessTestCase {
    private static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/oslog")

    private func capture(_ name: String) throws -> String {
        try String(contentsOf: Self.fixtures.appendingPathComponent(name + ".ndjson"), encoding: .utf8)
    }

    private func summary(_ exchange: RawExchange) throws -> [String: Any] {
        let payload = try XCTUnwrap(exchange.payload, "not a complete chunked answer: \(exchange.head)")
        let last = try XCTUnwrap(String(decoding: payload, as: UTF8.self).split(separator: "\n").last)
        return try json(Data(last.utf8))
    }

    private func trailer(_ exchange: RawExchange) -> String? {
        ChunkedBody.trailerFields(exchange.body).first { $0.0.lowercased() == "oracle-verdict" }?.1
    }

    func testEachRulesetsCaptureIsCheckedWithItsVerdictInTheBodyAndTheTrailer() throws {
        let (_, port) = try startServer()
        for (name, path, verdict) in [("playback", "/playback/apply", "pass"), ("haptics", "/haptics/contract", "inconclusive"),
                                      ("refresh", "/refresh/run", "inconclusive"), ("audio-session", "/audio-session/run", "fail")] {
            let exchange = try XCTUnwrap(post(path + "?from=oslog", try capture(name), port: port, contentType: "application/x-ndjson"))
            XCTAssertEqual(exchange.status, 200, name)
            let summary = try summary(exchange)
            XCTAssertEqual(summary["verdict"] as? String, verdict, name)
            XCTAssertEqual(trailer(exchange), verdict, name)
            let log = try XCTUnwrap(summary["log"] as? [String: Any], name)
            XCTAssertEqual((log["skipped"] as? [String: Any])?["notRecord"] as? Int, 2, "the filter line and the cut last line")
        }
    }

    func testTheQueryIsCheckedBeforeTheMediaType() throws {
        let (_, port) = try startServer()
        for query in ["from=os_log", "from=oslog&from=oslog", "category=DeviceOracle", "from=oslog&category=",
                      "from=oslog&subsystem=a&subsystem=b", "subsystem=com.example.player"] {
            let exchange = try XCTUnwrap(post("/playback/apply?" + query, "{}", port: port))
            XCTAssertEqual(exchange.status, 400, query)
            XCTAssertTrue(String(decoding: exchange.body, as: UTF8.self).contains("/problems/invalid-query"), query)
        }
        let json = try XCTUnwrap(post("/playback/apply?from=oslog", #"{"events":[]}"#, port: port))
        XCTAssertEqual(json.status, 415)
        XCTAssertTrue(String(decoding: json.body, as: UTF8.self).contains("--style ndjson"))
    }

    func testCategoryAndSubsystemSelectTheAppsMessages() throws {
        let (_, port) = try startServer()
        let exchange = try XCTUnwrap(post("/playback/apply?from=oslog&category=Network&subsystem=com.example.player",
                                          try capture("playback"), port: port, contentType: "application/x-ndjson"))
        let summary = try summary(exchange)
        XCTAssertEqual(summary["verdict"] as? String, "inconclusive", "nothing of the app's was checked")
        XCTAssertEqual((summary["log"] as? [String: Any])?["selected"] as? Int, 6)
    }

    func testTheCLIReadsACaptureFromAPipeAndExitsThreeWhenInconclusive() throws {
        let (_, port) = try startServer()
        let cli = try check(["playback", "--from", "oslog"], stdin: try capture("playback"))
        XCTAssertEqual(cli.waitForExit(), 0)
        let http = try XCTUnwrap(post("/playback/apply?from=oslog", try capture("playback"), port: port, contentType: "application/x-ndjson"))
        XCTAssertEqual(cli.stdoutText.split(separator: "\n").last.map(String.init),
                       String(decoding: try XCTUnwrap(http.payload), as: UTF8.self).split(separator: "\n").last.map(String.init))

        let inconclusive = try check(["haptics", "--from", "oslog", "--steps", "none", "-"], stdin: try capture("haptics"))
        XCTAssertEqual(inconclusive.waitForExit(), 3)
        let failing = try check(["audio-session", "--from=oslog", "--category", "DeviceOracle"], stdin: try capture("audio-session"))
        XCTAssertEqual(failing.waitForExit(), 1)
        let textLog = try check(["playback", "--from", "oslog"], stdin: "2026-12-06 10:23:01.442117-0700  0x1a2b3  Default  0x0  412  0  Player: [com.example.player:DeviceOracle] {\"type\":\"userPaused\"}\n")
        XCTAssertEqual(textLog.waitForExit(), 3)
        XCTAssertTrue(textLog.stdoutText.contains("notACapture"))
    }

    /// oslog.md, live: records fed one at a time, each step line seen before the next record is sent.
    func testEachStepLineArrivesBeforeTheNextRecordIsSent() throws {
        let (_, port) = try startServer()
        let socket = try XCTUnwrap(RawSocket(port: port))
        socket.send("POST /haptics/contract?from=oslog HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-ndjson\r\nTransfer-Encoding: chunked\r\n\r\n")
        func chunk(_ line: String) -> String { String(line.utf8.count, radix: 16) + "\r\n" + line + "\r\n" }
        socket.send(chunk(#"Filtering the log data using "category == "DeviceOracle""# + "\n"))
        var received = Data()
        for (position, event) in [#"{\"type\":\"saveTapped\"}"#, #"{\"type\":\"saveSucceeded\"}"#, #"{\"type\":\"saveTapped\"}"#].enumerated() {
            let record = #"{"timestamp":"2026-12-06 10:23:0\#(position).5-0700","eventType":"logEvent","category":"DeviceOracle","processID":412,"eventMessage":"\#(event)"}"#
            socket.send(chunk(record + "\n"))
            let (data, _) = socket.read(timeout: 5) { data in (received + data).range(of: Data("\"index\":\(position),".utf8)) != nil }
            received += data
            XCTAssertNotNil(received.range(of: Data("\"index\":\(position),\"id\":\"line-\(position + 2)\"".utf8)),
                            "step \(position) answered before the next record")
        }
        socket.send("0\r\n\r\n")
        received += socket.read(timeout: 5) { $0.range(of: Data("Oracle-Verdict: unchecked".utf8)) != nil }.0
        XCTAssertNotNil(received.range(of: Data("\"stepCount\":3".utf8)))
    }
}
