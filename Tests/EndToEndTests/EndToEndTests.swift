import Foundation
import HTTPTestSupport
import XCTest

/// The real binary, started with `--port 0`, as an operator or a container runs it.
final class EndToEndTests: XCTestCase {
    /// Servers started by the current test, kept running until it ends.
    private var servers: [ServerProcess] = []

    override func tearDown() {
        servers = []
        super.tearDown()
    }

    private func startServer(_ arguments: [String] = [], environment: [String: String] = [:]) throws -> (ServerProcess, Int) {
        let server = try ServerProcess(["--host", "127.0.0.1", "--port", "0"] + arguments, environment: environment)
        servers.append(server)
        let port = try XCTUnwrap(server.port, "no startup line; stderr: \(server.stderrText)")
        return (server, port)
    }

    private func get(_ path: String, port: Int, extra: String = "") -> RawExchange? {
        RawExchange.send("GET \(path) HTTP/1.1\r\nHost: localhost\r\n\(extra)Connection: close\r\n\r\n", port: port)
    }

    func testTheStartupLineNamesTheBoundAddressVersionAndLimits() throws {
        let (server, port) = try startServer(["--max-body-bytes", "1000", "--header-timeout", "2.5"])
        let line = try XCTUnwrap(server.startupLine())
        XCTAssertEqual(line["msg"] as? String, "listening")
        XCTAssertEqual(line["host"] as? String, "127.0.0.1")
        XCTAssertGreaterThan(port, 0)
        XCTAssertNotNil(line["version"] as? String)
        XCTAssertEqual(line["maxBodyBytes"] as? Int, 1000)
        XCTAssertEqual(line["headerTimeout"] as? Double, 2.5)
        XCTAssertEqual(line["maxConnections"] as? Int, 10000)
        XCTAssertNotNil(line["ts"] as? String)
    }

    func testHealthzAnswersOK() throws {
        let (_, port) = try startServer()
        let response = try XCTUnwrap(get("/healthz", port: port))
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.header("Content-Type"), "application/json")
        XCTAssertEqual(String(decoding: response.body, as: UTF8.self), #"{"status":"ok"}"#)
        XCTAssertNotNil(response.header("Date"))
    }

    func testOpenAPIIsByteIdenticalToTheRepositoryCopy() throws {
        let (_, port) = try startServer()
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let expected = try Data(contentsOf: repository.appendingPathComponent("openapi.yaml"))
        let response = try XCTUnwrap(get("/openapi.yaml", port: port))
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.header("Content-Type"), "application/yaml")
        XCTAssertEqual(response.body, expected)
    }

    func testRulesetsListsEveryEndpointWithPathAndSummary() throws {
        let (_, port) = try startServer()
        let response = try XCTUnwrap(get("/rulesets", port: port))
        XCTAssertEqual(response.status, 200)
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: response.body) as? [String: Any])
        let rulesets = try XCTUnwrap(document["rulesets"] as? [[String: Any]])
        let playback = try XCTUnwrap(rulesets.first { $0["name"] as? String == "playback/1" })
        XCTAssertEqual(playback["path"] as? String, "/playback/apply")
        XCTAssertFalse((playback["summary"] as? String ?? "").isEmpty)
    }

    func testOptionsAsteriskListsTheServersMethods() throws {
        let (_, port) = try startServer()
        let response = try XCTUnwrap(RawExchange.send("OPTIONS * HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n", port: port))
        XCTAssertEqual(response.status, 204)
        XCTAssertEqual(response.header("Allow"), "GET, HEAD, POST, OPTIONS")
        XCTAssertNil(response.header("Content-Length"))
    }

    func testBadValuesExitWith2AndOneLineOnStderrBeforeBinding() throws {
        let cases: [([String], [String: String])] = [
            (["--port", "abc"], [:]),
            (["--port=70000"], [:]),
            (["--port"], [:]),
            (["--max-body-bytes", "-5"], [:]),
            (["--max-connections", "0"], [:]),
            (["--worker-threads", "0"], [:]),
            ([], ["WORKER_THREADS": "2000"]),
            (["--header-timeout", "0"], [:]),
            (["--idle-timeout", "soon"], [:]),
            (["--log-level", "loud"], [:]),
            (["--bogus"], [:]),
            (["serve", "--body-timeout", "1e3"], [:]),
            ([], ["PORT": "http"]),
            ([], ["SEND_TIMEOUT": "-1"]),
        ]
        for (arguments, environment) in cases {
            let process = try ServerProcess(arguments, environment: environment)
            XCTAssertEqual(process.waitForExit(), 2, "\(arguments) \(environment)")
            let lines = process.stderrText.split(separator: "\n")
            XCTAssertEqual(lines.count, 1, "\(arguments) \(environment): \(process.stderrText)")
            XCTAssertEqual(process.stdoutText, "", "nothing was bound or logged")
        }
    }

    func testAFlagWinsOverItsEnvironmentVariable() throws {
        let (server, _) = try startServer(["--max-body-bytes", "1000"],
                                          environment: ["MAX_BODY_BYTES": "5", "HOST": "not a host", "IDLE_TIMEOUT": "7"])
        let line = try XCTUnwrap(server.startupLine())
        XCTAssertEqual(line["maxBodyBytes"] as? Int, 1000)
        XCTAssertEqual(line["host"] as? String, "127.0.0.1")
        XCTAssertEqual(line["idleTimeout"] as? Double, 7, "a variable without its flag applies")
    }

    func testFlagsTakeTheEqualsForm() throws {
        let (server, _) = try startServer(["--max-connections=123", "--send-timeout=0.5"])
        let line = try XCTUnwrap(server.startupLine())
        XCTAssertEqual(line["maxConnections"] as? Int, 123)
        XCTAssertEqual(line["sendTimeout"] as? Double, 0.5)
    }

    func testSIGTERMLetsAnInFlightRequestFinishThenExits0() throws {
        let (server, port) = try startServer()
        let socket = try XCTUnwrap(RawSocket(port: port))
        socket.send("GET /healthz HTTP/1.1\r\nHost: localhost\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n")
        let (interim, _) = socket.read(timeout: 10) { String(decoding: $0, as: UTF8.self).contains("\r\n\r\n") }
        XCTAssertTrue(String(decoding: interim, as: UTF8.self).hasPrefix("HTTP/1.1 100 "), "the head has arrived")
        server.terminate()
        XCTAssertTrue(eventually(within: 4) { RawSocket(port: port) == nil }, "the listener closes at once")
        socket.send("body")
        let (answer, _) = socket.read(timeout: 10) { String(decoding: $0, as: UTF8.self).contains(#"{"status":"ok"}"#) }
        let text = String(decoding: answer, as: UTF8.self)
        XCTAssertTrue(text.hasPrefix("HTTP/1.1 200 OK"), text)
        XCTAssertTrue(text.contains("Connection: close"), text)
        XCTAssertEqual(server.waitForExit(), 0)
    }

    func testAccessLinesCarryNoBodiesQueriesOrHeaderValues() throws {
        let (server, port) = try startServer()
        let secret = "s3cr3t-value"
        _ = RawExchange.send("POST /playback/apply?token=\(secret) HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(secret)\r\n"
                             + "User-Agent: harness/1.0\r\nContent-Type: application/json\r\nContent-Length: 30\r\nConnection: close\r\n\r\n"
                             + #"{"events":[],"x":"s3cr3t-value"}"#.prefix(30), port: port)
        _ = get("/healthz", port: port)
        server.terminate()
        XCTAssertEqual(server.waitForExit(), 0)
        XCTAssertFalse(server.stdoutText.contains(secret))
        XCTAssertFalse(server.stdoutText.contains("Bearer"))
        let access = server.logLines.filter { $0["msg"] as? String == "request" }
        XCTAssertEqual(access.count, 2)
        // Two loops may flush their lines in either order.
        let first = try XCTUnwrap(access.first { $0["method"] as? String == "POST" })
        XCTAssertEqual(first["path"] as? String, "/playback/apply")
        XCTAssertEqual(first["userAgent"] as? String, "harness/1.0")
        XCTAssertNotNil(first["status"] as? Int)
        XCTAssertNotNil(first["bytes"] as? Int)
        XCTAssertNotNil(first["ms"] as? Double)
        XCTAssertEqual(first["level"] as? String, "info")
        let ts = try XCTUnwrap(first["ts"] as? String)
        XCTAssertNotNil(ts.range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$"#, options: .regularExpression), ts)
        XCTAssertEqual(Set(access.compactMap { $0["id"] as? String }).count, 2, "request ids are distinct")
    }

    func testLogLevelWarnDropsAccessLines() throws {
        let (server, port) = try startServer(["--log-level", "warn"])
        XCTAssertEqual(get("/healthz", port: port)?.status, 200)
        server.terminate()
        XCTAssertEqual(server.waitForExit(), 0)
        XCTAssertTrue(server.logLines.contains { $0["msg"] as? String == "listening" })
        XCTAssertFalse(server.logLines.contains { $0["msg"] as? String == "request" })
    }

    func testHealthcheckExitCodes() throws {
        let (_, port) = try startServer()
        let healthy = try ServerProcess(["healthcheck", "--port", "\(port)"])
        XCTAssertEqual(healthy.waitForExit(), 0)
        let fromEnvironment = try ServerProcess(["healthcheck"], environment: ["PORT": "\(port)"])
        XCTAssertEqual(fromEnvironment.waitForExit(), 0)
        let nobody = try ServerProcess(["healthcheck", "--port", "1"])
        XCTAssertEqual(nobody.waitForExit(), 1)
        let bad = try ServerProcess(["healthcheck", "--port", "x"])
        XCTAssertEqual(bad.waitForExit(), 2)
    }

    /// One version: the binary's, the startup line's, `openapi.yaml`'s, the library page's
    /// and the startup line docs/operations.md shows agree, so a release changes them together.
    func testOneVersionEverywhere() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardized
        let printed = try ServerProcess(["--version"])
        XCTAssertEqual(printed.waitForExit(), 0)
        let version = String(printed.stdoutText.dropFirst("device-oracle ".count)).trimmingCharacters(in: .whitespacesAndNewlines)
        let (server, _) = try startServer()

        let openapi = try String(contentsOf: root.appendingPathComponent("openapi.yaml"), encoding: .utf8)
        let library = try String(contentsOf: root.appendingPathComponent("docs/library.md"), encoding: .utf8)
        let operations = try String(contentsOf: root.appendingPathComponent("docs/operations.md"), encoding: .utf8)
        XCTAssertTrue(version.split(separator: ".").count == 3 && version.allSatisfy { $0.isNumber || $0 == "." }, version)
        XCTAssertEqual(server.startupLine()?["version"] as? String, version)
        XCTAssertTrue(openapi.contains("\n  version: \(version)\n"), "openapi.yaml's info.version is not \(version)")
        XCTAssertTrue(library.contains("It is \(version) and"), "docs/library.md's Releases does not name \(version)")
        XCTAssertTrue(operations.contains(#""version":"\#(version)""#), "docs/operations.md shows a startup line of another version")
    }

    /// `--help` shows every subcommand's flags, and the startup line names the value of
    /// every `serve` flag `--help` lists (`--max-body-bytes` as `maxBodyBytes`): both come
    /// from one table.
    func testHelpListsEveryFlagAndTheStartupLineNamesEachServeFlag() throws {
        let help = try ServerProcess(["--help"])
        XCTAssertEqual(help.waitForExit(), 0)
        for word in ["--ndjson", "--format json|xctest|swift-testing", "--steps all|failing|none", "--coverage",
                     "--max-length", "--seed", "--count", "--junit REPORT.xml", "--max-memory-bytes", "MAX_MEMORY_BYTES",
                     "--max-line-bytes", "--max-stream-bytes", "--min-rate-grace", "--memory-wait", "--metrics on|off"] {
            XCTAssertTrue(help.stdoutText.contains(word), word)
        }
        let serveSection = help.stdoutText.components(separatedBy: "\nserve:\n").last?.components(separatedBy: "\n\n").first ?? ""
        let flags = serveSection.split(separator: "\n").compactMap { line -> String? in
            let trimmed = line.drop { $0 == " " }
            return trimmed.hasPrefix("--") ? String(trimmed.prefix { $0 != " " }.dropFirst(2)) : nil
        }
        XCTAssertEqual(flags.count, 17, serveSection)
        let (server, _) = try startServer()
        let startup = try XCTUnwrap(server.startupLine())
        for flag in flags {
            let parts = flag.split(separator: "-")
            let key = String(parts[0]) + parts.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
            XCTAssertNotNil(startup[key], "the startup line does not name --\(flag) as \(key)")
        }
    }

    func testTheWorkerPoolsSizeIsAFlagNamedInTheStartupLine() throws {
        let (server, _) = try startServer(["--worker-threads", "3"])
        let startup = try XCTUnwrap(server.startupLine())
        XCTAssertEqual(startup["workerThreads"] as? Int, 3)
    }

    func testVersionAndHelp() throws {
        let version = try ServerProcess(["--version"])
        XCTAssertEqual(version.waitForExit(), 0)
        XCTAssertTrue(version.stdoutText.hasPrefix("device-oracle "))
        let help = try ServerProcess(["--help"])
        XCTAssertEqual(help.waitForExit(), 0)
        for word in ["serve", "check <ruleset> [FILE|-]", "healthcheck", "--host", "--port", "--max-body-bytes",
                     "--max-connections", "--header-timeout", "--body-timeout", "--send-timeout", "--idle-timeout",
                     "--log-level", "PORT", "LOG_LEVEL", "--version"] {
            XCTAssertTrue(help.stdoutText.contains(word), word)
        }
    }
}
