import Foundation
import XCTest

/// Plans, diagrams, coverage and batch checks through the real binary: the routes
/// under both names of every ruleset, `device-oracle plan` and `check --junit`.
final class ModelRoutesTests: OracleProcessTestCase {
    private let failingLog = #"{"initial":{"isPlaying":true},"events":[{"type":"routeChanged","reason":2,"observed":{"isPlaying":true}}]}"#

    // MARK: POST /rulesets/{name}/plan

    func testEveryRulesetServesItsModelRoutesUnderBothNames() throws {
        let (_, port) = try startServer()
        let list = try XCTUnwrap(get("/rulesets", port: port))
        let names = try XCTUnwrap(json(list.body)["rulesets"] as? [[String: String]]).compactMap { $0["name"] }
        XCTAssertEqual(names.count, 4)

        for name in names {
            let short = String(name.prefix { $0 != "/" })
            let versioned = try XCTUnwrap(post("/rulesets/\(name)/plan", "", port: port, contentType: nil))
            let shortened = try XCTUnwrap(post("/rulesets/\(short)/plan", "{}", port: port))
            let diagram = try XCTUnwrap(get("/rulesets/\(short)/diagram", port: port))
            let coverage = try XCTUnwrap(post("/rulesets/\(name)/coverage", #"{"logs":[]}"#, port: port))

            XCTAssertEqual([versioned.status, shortened.status, diagram.status, coverage.status], [200, 200, 200, 200], name)
            XCTAssertEqual(versioned.body, shortened.body, name)
            XCTAssertEqual(try json(versioned.body)["ruleset"] as? String, name)
            XCTAssertEqual(try json(versioned.body)["transitionsCovered"] as? Int, try json(versioned.body)["transitions"] as? Int)
            XCTAssertEqual(coverage.header("Oracle-Verdict"), "unchecked", name)
        }
    }

    // MARK: POST /rulesets/{name}/repro

    func testReproIsServedForEveryRulesetUnderBothNamesFromJSONOrNDJSON() throws {
        let (_, port) = try startServer()
        let ndjson = "{\"initial\":{\"isPlaying\":true}}\n" + #"{"type":"routeChanged","reason":2,"observed":{"isPlaying":true}}"# + "\n"

        let versioned = try XCTUnwrap(post("/rulesets/playback/1/repro", failingLog, port: port))
        let shortened = try XCTUnwrap(post("/rulesets/playback/repro", failingLog, port: port))
        let lines = try XCTUnwrap(post("/rulesets/playback/repro", ndjson, port: port, contentType: "application/x-ndjson"))
        let jsonl = try XCTUnwrap(post("/rulesets/playback/repro", ndjson, port: port, contentType: "application/jsonl; charset=utf-8"))
        let refresh = try XCTUnwrap(post("/rulesets/refresh/repro", failingRefreshLog, port: port))
        let refreshLines = try XCTUnwrap(post("/rulesets/refresh/1/repro", failingRefreshNDJSON, port: port,
                                              contentType: "application/x-ndjson"))
        let xml = try XCTUnwrap(post("/rulesets/haptics/repro", "<log/>", port: port, contentType: "application/xml"))

        XCTAssertEqual([versioned.status, shortened.status, lines.status, jsonl.status], [200, 200, 200, 200])
        XCTAssertEqual(shortened.body, versioned.body)
        XCTAssertEqual(lines.body, versioned.body)
        XCTAssertEqual(jsonl.body, versioned.body)
        XCTAssertEqual(try json(versioned.body)["reproLength"] as? Int, 1)
        XCTAssertEqual([refresh.status, refreshLines.status], [200, 200])
        XCTAssertEqual(refreshLines.body, refresh.body)
        XCTAssertEqual(try json(refresh.body)["reproLength"] as? Int, 2)
        XCTAssertEqual(xml.status, 415)
        XCTAssertTrue(String(decoding: xml.body, as: UTF8.self).contains("application/x-ndjson"))
    }

    func testAPassingLogHasNothingToReproduceAndTheCommandSaysSoWithExit1() throws {
        let (_, port) = try startServer()
        let passing = #"{"events":[{"type":"userPlayed","observed":{"isPlaying":true}}]}"#

        let response = try XCTUnwrap(post("/rulesets/playback/repro", passing, port: port))
        let served = try XCTUnwrap(post("/rulesets/audio-session/repro", failingAudioSessionLog, port: port))
        let reproduced = try command(["repro", "audio-session", try temporaryFile(failingAudioSessionLog)])
        let nothing = try command(["repro", "playback", "-"], stdin: passing)
        let invalid = try command(["repro", "playback", "-"], stdin: "{\"events\":[{\"type\":\"nope\"}]}")
        let refresh = try command(["repro", "refresh", "-"], stdin: #"{"runs":[]}"#)

        XCTAssertEqual(response.status, 422)
        XCTAssertEqual(try json(response.body)["type"] as? String, "/problems/nothing-to-reproduce")
        XCTAssertEqual(reproduced.waitForExit(), 0)
        XCTAssertEqual(reproduced.stdoutBytes, served.body + Data("\n".utf8))
        XCTAssertEqual(nothing.waitForExit(), 1)
        XCTAssertTrue(nothing.stderrText.contains("/problems/nothing-to-reproduce"), nothing.stderrText)
        XCTAssertEqual(invalid.waitForExit(), 2)
        XCTAssertTrue(invalid.stderrText.contains("/events/0/type"), invalid.stderrText)
        XCTAssertEqual(refresh.waitForExit(), 1)
        XCTAssertTrue(refresh.stderrText.contains("The log is unchecked"), refresh.stderrText)
    }

    func testTheCommandReadsAnNDJSONFileAsItStreamsAndPrintsTheServersBytes() throws {
        let (_, port) = try startServer()
        let finalOnly = "{}\n" + #"{"at":0,"pages":[{"items":[{"id":"1"}],"nextCursor":"c1"}]}"# + "\n"
            + #"{"observedFinal":{"cursor":"c9"}}"# + "\n"

        for log in [failingRefreshNDJSON, finalOnly] {
            let served = try XCTUnwrap(post("/rulesets/refresh/repro", log, port: port, contentType: "application/x-ndjson"))
            let fromFile = try command(["repro", "refresh", try temporaryFile(log), "--ndjson"])

            XCTAssertEqual(served.status, 200)
            XCTAssertEqual(fromFile.waitForExit(), 0)
            XCTAssertEqual(fromFile.stdoutBytes, served.body + Data("\n".utf8))
        }
        let missing = try command(["repro", "refresh", "/nonexistent/log.ndjson", "--ndjson"])
        XCTAssertEqual(missing.waitForExit(), 2)
        XCTAssertTrue(missing.stderrText.contains("cannot read"), missing.stderrText)
    }

    /// A failure, then a run that commits: the device shows the old cursor.
    private let failingRefreshLog = #"""
        {"runs":[{"at":0,"pages":[{"items":[{"id":"1"}],"nextCursor":"c1"}]},
        {"at":900,"pages":[{"items":[]}],"fault":{"kind":"error","stage":"download","page":0}},
        {"at":960,"pages":[{"items":[{"id":"2"}],"nextCursor":"c2"}],"observed":{"cursor":"c1"}}]}
        """#
    private let failingRefreshNDJSON = """
        {}
        {"at":0,"pages":[{"items":[{"id":"1"}],"nextCursor":"c1"}]}
        {"at":900,"pages":[{"items":[]}],"fault":{"kind":"error","stage":"download","page":0}}
        {"at":960,"pages":[{"items":[{"id":"2"}],"nextCursor":"c2"}],"observed":{"cursor":"c1"}}

        """

    private let failingAudioSessionLog = #"""
        {"events":[{"type":"launched"},{"type":"enteredBackground"},{"type":"enteredForeground","observed":{"active":false}}]}
        """#

    func testPlanCommandPrintsTheServersBytes() throws {
        let (_, port) = try startServer()
        let served = try XCTUnwrap(post("/rulesets/audio-session/1/plan", #"{"coverage":"random","seed":7,"count":2,"maxLength":5}"#,
                                        port: port))

        let process = try command(["plan", "audio-session", "--coverage", "random", "--seed", "7", "--count=2",
                                   "--max-length", "5"])

        XCTAssertEqual(process.waitForExit(), 0)
        XCTAssertEqual(process.stdoutBytes, served.body)
        XCTAssertEqual(try json(served.body)["steps"] as? Int, 10)
    }

    func testFormatXCTestOrSwiftTestingMakesAPlanOrAReproASwiftFileAndTheCommandsPrintTheSameBytes() throws {
        let (_, port) = try startServer()

        let plan = try XCTUnwrap(post("/rulesets/haptics/plan?format=xctest", #"{"coverage":"transitions"}"#, port: port))
        let repro = try XCTUnwrap(post("/rulesets/audio-session/1/repro?format=swift-testing", failingAudioSessionLog, port: port))
        let json = try XCTUnwrap(post("/rulesets/audio-session/repro?format=json", failingAudioSessionLog, port: port))
        let plain = try XCTUnwrap(post("/rulesets/audio-session/repro", failingAudioSessionLog, port: port))
        let planned = try command(["plan", "haptics", "--format", "xctest"])
        let reproduced = try command(["repro", "audio-session", try temporaryFile(failingAudioSessionLog), "--format=swift-testing"])

        XCTAssertEqual([plan.status, repro.status, json.status], [200, 200, 200])
        XCTAssertEqual(plan.header("Content-Type"), "text/x-swift; charset=utf-8")
        XCTAssertEqual(repro.header("Content-Type"), "text/x-swift; charset=utf-8")
        XCTAssertEqual(json.header("Content-Type"), "application/json")
        XCTAssertEqual(json.body, plain.body)
        XCTAssertTrue(String(decoding: plan.body, as: UTF8.self).contains("final class HapticsTransitionsPlanTests: XCTestCase {"))
        XCTAssertTrue(String(decoding: repro.body, as: UTF8.self).contains("@Suite struct AudioSessionReproStep2Tests {"))
        XCTAssertEqual(planned.waitForExit(), 0)
        XCTAssertEqual(planned.stdoutBytes, plan.body)
        XCTAssertEqual(reproduced.waitForExit(), 0)
        XCTAssertEqual(reproduced.stdoutBytes, repro.body)
    }

    func testAnUnknownFormatIs400BeforeTheBodyIsReadAndExit2FromTheCommands() throws {
        let (_, port) = try startServer()

        let plan = try XCTUnwrap(post("/rulesets/playback/plan?format=junit", "{}", port: port))
        let repro = try XCTUnwrap(post("/rulesets/playback/repro?format=junit", "not json", port: port))
        let twice = try XCTUnwrap(post("/rulesets/playback/plan?format=json&format=xctest", "{}", port: port))
        let planned = try command(["plan", "playback", "--format", "junit"])
        let reproduced = try command(["repro", "playback", "-", "--format", "junit"], stdin: failingLog)

        for response in [plan, repro, twice] {
            XCTAssertEqual(response.status, 400)
            XCTAssertEqual(try self.json(response.body)["type"] as? String, "/problems/invalid-query")
        }
        XCTAssertTrue(String(decoding: plan.body, as: UTF8.self).contains("swift-testing"))
        XCTAssertEqual(planned.waitForExit(), 2)
        XCTAssertTrue(planned.stderrText.contains("--format: "), planned.stderrText)
        XCTAssertEqual(reproduced.waitForExit(), 2)
        XCTAssertTrue(reproduced.stderrText.contains("--format: "), reproduced.stderrText)
    }

    func testInvalidPlanRequestsAre422AndBadPlanArgumentsExit2NamingTheFlag() throws {
        let (_, port) = try startServer()

        let response = try XCTUnwrap(post("/rulesets/haptics/plan", #"{"maxLength":0}"#, port: port))
        let tooLong = try command(["plan", "haptics/1", "--max-length", "5000"])
        let notANumber = try command(["plan", "haptics", "--seed", "x"])
        let unknown = try command(["plan", "haptic"])

        XCTAssertEqual(response.status, 422)
        XCTAssertEqual(response.header("Content-Type"), "application/problem+json")
        let errors = try json(response.body)["errors"] as? [[String: String]]
        XCTAssertEqual(errors ?? [], [["pointer": "/maxLength", "detail": "expected an integer from 1 to 1000, got 0"]])
        XCTAssertEqual(tooLong.waitForExit(), 2)
        XCTAssertEqual(tooLong.stderrText, "device-oracle: --max-length: expected an integer from 1 to 1000, got 5000\n")
        XCTAssertEqual(notANumber.waitForExit(), 2)
        XCTAssertTrue(notANumber.stderrText.contains("invalid value 'x' for --seed"), notANumber.stderrText)
        XCTAssertEqual(unknown.waitForExit(), 2)
        XCTAssertTrue(unknown.stderrText.contains("unknown ruleset 'haptic'"), unknown.stderrText)
    }

    // MARK: GET /rulesets/{name}/diagram

    func testDiagramsAreMermaidByDefaultOrDOTOrJSONAndAnUnknownFormatIs400() throws {
        let (_, port) = try startServer()

        let mermaid = try XCTUnwrap(get("/rulesets/playback/1/diagram", port: port))
        let dot = try XCTUnwrap(get("/rulesets/playback/diagram?format=dot", port: port))
        let graph = try XCTUnwrap(get("/rulesets/audio-session/1/diagram?format=json", port: port))
        let head = try XCTUnwrap(get("/rulesets/playback/diagram?format=dot", port: port, method: "HEAD"))
        let unknown = try XCTUnwrap(get("/rulesets/playback/diagram?format=mermiad", port: port))
        let twice = try XCTUnwrap(get("/rulesets/playback/diagram?format=dot&format=mermaid", port: port))
        let posted = try XCTUnwrap(post("/rulesets/playback/diagram", "{}", port: port))

        XCTAssertEqual(mermaid.status, 200)
        XCTAssertEqual(mermaid.header("Content-Type"), "text/plain; charset=utf-8")
        XCTAssertTrue(String(decoding: mermaid.body, as: UTF8.self).hasPrefix("stateDiagram-v2\n"))
        XCTAssertEqual(dot.header("Content-Type"), "text/vnd.graphviz; charset=utf-8")
        XCTAssertTrue(String(decoding: dot.body, as: UTF8.self).hasPrefix(#"digraph "playback/1" {"#))
        XCTAssertEqual(graph.header("Content-Type"), "application/json")
        XCTAssertEqual((try json(graph.body)["nodes"] as? [Any])?.count, 38)
        XCTAssertEqual(head.status, 200)
        XCTAssertEqual(head.header("Content-Length"), "\(dot.body.count)")
        XCTAssertTrue(head.body.isEmpty)
        XCTAssertEqual(unknown.status, 400)
        XCTAssertEqual(try json(unknown.body)["type"] as? String, "/problems/invalid-query")
        XCTAssertEqual(try json(unknown.body)["detail"] as? String,
                       "unknown diagram format 'mermiad'; did you mean 'mermaid'? (formats: mermaid, dot, json)")
        XCTAssertEqual(twice.status, 400)
        XCTAssertEqual(posted.status, 405)
        XCTAssertEqual(posted.header("Allow"), "GET, HEAD")
    }

    // MARK: POST /rulesets/{name}/coverage

    func testCoverageCountsTheLogsTransitionsAndSaysTheVerdict() throws {
        let (_, port) = try startServer()

        let response = try XCTUnwrap(post("/rulesets/playback/1/coverage", #"{"logs":[\#(failingLog),{"events":[{"type":"userPlayed"}]}]}"#,
                                          port: port))
        let invalid = try XCTUnwrap(post("/rulesets/playback/coverage", #"{"logs":[{"events":[{"type":"userPlay"}]}]}"#, port: port))

        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.header("Oracle-Verdict"), "fail")
        let coverage = try json(response.body)
        XCTAssertEqual(coverage["exercisedTransitions"] as? Int, 2)
        XCTAssertEqual((coverage["missed"] as? [Any])?.count, 25)
        XCTAssertEqual((coverage["logs"] as? [[String: Any]])?.map { $0["verdict"] as? String }, ["fail", "unchecked"])
        XCTAssertEqual(invalid.status, 422)
        XCTAssertEqual((try json(invalid.body)["errors"] as? [[String: String]])?.first?["pointer"], "/logs/0/events/0/type")
    }

    // MARK: POST /check

    private var batch: String {
        #"{"cases":[{"name":"unplugged","ruleset":"playback","request":\#(failingLog)},{"name":"typo","ruleset":"haptics/1","request":{"events":[{"type":"saveTaped"}]}}]}"#
    }

    func testCheckAnswersJSONOrJUnitXMLByAccept() throws {
        let (_, port) = try startServer()

        let plain = try XCTUnwrap(post("/check", batch, port: port))
        let junit = try XCTUnwrap(post("/check", batch, port: port, headers: "Accept: application/xml\r\n"))
        let preferred = try XCTUnwrap(post("/check", batch, port: port,
                                           headers: "Accept: application/json;q=0.5, application/xml\r\n"))
        let jsonFirst = try XCTUnwrap(post("/check", batch, port: port, headers: "Accept: application/json, application/xml\r\n"))

        XCTAssertEqual(plain.status, 200)
        XCTAssertEqual(plain.header("Content-Type"), "application/json")
        XCTAssertEqual(plain.header("Oracle-Verdict"), "fail")
        XCTAssertEqual(plain.header("Vary"), "Accept")
        XCTAssertEqual(try json(plain.body)["totals"] as? [String: Int],
                       ["cases": 2, "passed": 0, "failed": 1, "unchecked": 0, "errors": 1])
        XCTAssertEqual(junit.status, 200)
        XCTAssertEqual(junit.header("Content-Type"), "application/xml")
        XCTAssertEqual(junit.header("Oracle-Verdict"), "fail")
        let xml = String(decoding: junit.body, as: UTF8.self)
        XCTAssertTrue(xml.hasPrefix(#"<?xml version="1.0" encoding="UTF-8"?>"#))
        XCTAssertTrue(xml.contains(#"<testcase name="typo" classname="haptics/1" time="0">"#))
        XCTAssertTrue(xml.contains("/cases/1/request/events/0/type: unknown event type 'saveTaped'; did you mean 'saveTapped'?"))
        XCTAssertEqual(preferred.body, junit.body)
        XCTAssertEqual(jsonFirst.body, plain.body)
    }

    func testABatchThatBreaksItsShapeIs422EvenWhenXMLIsAccepted() throws {
        let (_, port) = try startServer()

        let response = try XCTUnwrap(post("/check", #"{"cases":[{"name":"a","ruleset":"playback"}]}"#, port: port,
                                          headers: "Accept: application/xml\r\n"))

        XCTAssertEqual(response.status, 422)
        XCTAssertEqual(response.header("Content-Type"), "application/problem+json")
        XCTAssertEqual(try json(response.body)["errors"] as? [[String: String]],
                       [["pointer": "/cases/0/request", "detail": "required object is missing"]])
    }

    // MARK: device-oracle check --junit

    func testCheckJUnitWritesTheReportAndExitsByTheWorstCase() throws {
        let passing = try temporaryFile(#"{"ruleset":"playback/1","events":[{"type":"userPlayed","observed":{"isPlaying":true}}]}"#)
        let failing = try temporaryFile(#"{"ruleset":"playback/1","#.appending(failingLog.dropFirst()))
        let invalid = try temporaryFile(#"{"ruleset":"haptics/1","events":[{"type":"saveTaped"}]}"#)
        let report = temporaryPath(suffix: ".xml")

        let allPass = try check(["--junit", report, passing])
        XCTAssertEqual(allPass.waitForExit(), 0)
        XCTAssertEqual(allPass.stdoutText, "device-oracle check: 1 case: 1 passed, 0 failed, 0 unchecked, 0 errors; JUnit report in \(report)\n")
        let oneFails = try check(["--junit=\(report)", passing, failing])
        XCTAssertEqual(oneFails.waitForExit(), 1)
        let xml = try String(contentsOfFile: report, encoding: .utf8)
        XCTAssertTrue(xml.contains(#"<testcase name="\#(failing)" classname="playback/1" time="0">"#), xml)
        XCTAssertTrue(xml.contains("step 0: isPlaying: expected false, observed true"), xml)
        let badInput = try check(["--junit", report, failing, invalid])
        XCTAssertEqual(badInput.waitForExit(), 2)
        XCTAssertTrue(try String(contentsOfFile: report, encoding: .utf8).contains(#"errors="1""#))
    }

    func testCheckJUnitNeedsReadableFilesAndAReportPath() throws {
        let report = temporaryPath(suffix: ".xml")

        let missing = try check(["--junit", report, "/nonexistent/log.json"])
        let noFiles = try check(["--junit", report])

        XCTAssertEqual(missing.waitForExit(), 2)
        XCTAssertTrue(missing.stderrText.contains("cannot read /nonexistent/log.json"), missing.stderrText)
        XCTAssertFalse(FileManager.default.fileExists(atPath: report))
        XCTAssertEqual(noFiles.waitForExit(), 2)
        XCTAssertTrue(noFiles.stderrText.contains("usage: device-oracle check --junit"), noFiles.stderrText)
    }

    func testHelpDescribesPlanAndCheckJUnit() throws {
        let help = try command(["--help"])

        XCTAssertEqual(help.waitForExit(), 0)
        XCTAssertTrue(help.stdoutText.contains("device-oracle plan <ruleset> [--coverage transitions|random] [--max-length N]"))
        XCTAssertTrue(help.stdoutText.contains("device-oracle check --junit REPORT.xml FILE..."))
    }
}
