import DeviceOracle
import Foundation
import HTTPTestSupport
import XCTest

/// The in-process check answers exactly as the service does: every recorded
/// request of the corpus (Tests/Fixtures/corpus), checked in process, gives the
/// recorded answer byte for byte, or the recorded problem's status and pointers.
final class OracleTests: XCTestCase {
    private static let rulesetPaths: [String: Ruleset] = [
        "/playback/apply": .playback, "/haptics/contract": .haptics, "/refresh/run": .refresh,
        "/audio-session/run": .audioSession,
    ]

    private func recordedRulesetCases() throws -> [(Ruleset, RecordedExchange)] {
        try RecordedExchange.corpus().compactMap { recorded in
            guard recorded.method == "POST", !recorded.path.contains("?"),
                  recorded.contentType?.hasPrefix("application/json") ?? true,
                  let ruleset = Self.rulesetPaths[recorded.path] else { return nil }
            return (ruleset, recorded)
        }
    }

    func testEveryRecordedAnswerIsTheInProcessAnswerByteForByte() throws {
        let cases = try recordedRulesetCases().filter { $0.1.status == 200 }
        XCTAssertGreaterThan(cases.count, 150)
        for (ruleset, recorded) in cases {
            let result = try Oracle.check(ruleset, json: recorded.body)
            XCTAssertEqual(result.json, recorded.answer, recorded.name)
            // The typed parts say what the text says.
            let answer = try JSONSerialization.jsonObject(with: Data(recorded.answer.utf8)) as? [String: Any]
            XCTAssertEqual(result.verdict.rawValue, answer?["verdict"] as? String, recorded.name)
            let mismatches = answer?["mismatches"] as? [[String: Any]] ?? []
            XCTAssertEqual(result.mismatches.map(\.field), mismatches.compactMap { $0["field"] as? String }, recorded.name)
            let diagnostics = answer?["diagnostics"] as? [[String: Any]] ?? []
            XCTAssertEqual(result.diagnostics.map(\.code), diagnostics.compactMap { $0["code"] as? String }, recorded.name)
            XCTAssertEqual(result.diagnostics.map(\.message), diagnostics.compactMap { $0["message"] as? String },
                           recorded.name)
        }
    }

    func testEveryRecordedRefusalIsThrownWithItsStatusAndPointers() throws {
        let cases = try recordedRulesetCases().filter { $0.1.status == 400 || $0.1.status == 422 }
        XCTAssertGreaterThan(cases.count, 50)
        for (ruleset, recorded) in cases {
            let problem = try JSONSerialization.jsonObject(with: Data(recorded.answer.utf8)) as? [String: Any]
            let pointers = (problem?["errors"] as? [[String: Any]] ?? []).compactMap { $0["pointer"] as? String }
            do {
                _ = try Oracle.check(ruleset, json: recorded.body)
                XCTFail("\(recorded.name): checked, the service refused it")
            } catch {
                XCTAssertEqual(error.status, recorded.status, recorded.name)
                XCTAssertEqual(error.type, problem?["type"] as? String, recorded.name)
                XCTAssertEqual(error.problems.map(\.pointer), pointers, recorded.name)
                XCTAssertEqual(error.detail, problem?["detail"] as? String, recorded.name)
            }
        }
    }

    func testAFailingLogListsEveryMismatchTyped() throws {
        let result = try Oracle.check(.playback, json: """
            {"initial": {"isPlaying": true},
             "events": [{"type": "interruptionBegan", "observed": {"action": "none"}},
                        {"type": "outputDisconnected", "observed": {"action": "pause"}}],
             "observedFinal": {"isPlaying": true}}
            """)
        XCTAssertEqual(result.verdict, .fail)
        XCTAssertEqual(result.mismatches, [
            .init(step: 0, field: "action", expected: "\"pause\"", observed: "\"none\"", detail: nil),
            .init(step: 1, field: "action", expected: "\"none\"", observed: "\"pause\"", detail: nil),
            .init(step: nil, field: "final.isPlaying", expected: "false", observed: "true", detail: nil),
        ])
        XCTAssertEqual(result.mismatchReport.split(separator: "\n").first, "step 0: action expected \"pause\", observed \"none\"")
    }

    func testDiagnosticsAreTypedInTheAnswersOrder() throws {
        let result = try Oracle.check(.playback, json: """
            {"events": [{"type": "interruptionEnded", "shouldResume": true}, {"type": "routeChanged", "reason": 99}]}
            """)
        XCTAssertEqual(result.verdict, .unchecked)
        XCTAssertEqual(result.diagnostics.map(\.code), ["endWithoutBegin", "unknownRouteChangeReason"])
        XCTAssertEqual(result.diagnostics.map(\.step), [0, 1])
        XCTAssertEqual(result.diagnostics.map(\.severity), ["info", "warning"])
    }

    func testARefusedRequestThrowsItsProblemsWithJSONPointers() {
        XCTAssertThrowsError(try Oracle.check(.playback, json: #"{"events": [{"type": "userPaws"}]}"#)) { error in
            guard let problem = error as? OracleProblem else { return XCTFail("\(error)") }
            XCTAssertEqual(problem.status, 422)
            XCTAssertEqual(problem.problems.map(\.pointer), ["/events/0/type"])
        }
    }

    func testMalformedJSONThrowsA400Problem() {
        XCTAssertThrowsError(try Oracle.check(.haptics, json: "{")) { error in
            XCTAssertEqual((error as? OracleProblem)?.status, 400)
        }
    }

    func testCheckingBytesAndTheSameStringGiveTheSameAnswer() throws {
        let body = #"{"events": [{"type": "saveTapped"}, {"type": "saveSucceeded"}]}"#
        XCTAssertEqual(try Oracle.check(.haptics, json: Array(body.utf8)).json, try Oracle.check(.haptics, json: body).json)
    }
}
