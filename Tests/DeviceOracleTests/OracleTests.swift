import DeviceOracle
import DeviceOracleWire
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

    /// What an NDJSON head line may name (streaming.md).
    private static let headMembers: [Ruleset: Set<String>] = [
        .playback: ["ruleset", "initial", "observedFinal"],
        .haptics: ["ruleset", "initial", "observedFinal", "pattern", "expectedParameters", "supportsHaptics",
                   "timingToleranceMs"],
        .refresh: ["ruleset", "observedFinal", "config", "store", "schedule"],
        .audioSession: ["ruleset", "initial", "observedFinal", "category"],
    ]

    private func recordedRulesetCases() throws -> [(Ruleset, RecordedExchange)] {
        try RecordedExchange.corpus().compactMap { recorded in
            guard recorded.method == "POST", !recorded.path.contains("?"),
                  recorded.contentType.map({ $0 == "application/json" || $0.hasPrefix("application/json;") }) ?? true,
                  let ruleset = Self.rulesetPaths[recorded.path] else { return nil }
            return (ruleset, recorded)
        }
    }

    /// `Ruleset` names the registry's newest version of each ruleset, in its order: a
    /// version added to the registry (Rulesets.all) is named here too, or this fails.
    func testTheRulesetsAreTheRegistrysNewestVersions() {
        XCTAssertEqual(Ruleset.allCases.map(\.rawValue), Rulesets.registry.paths.map(\.newest.name))
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

    func testEveryRecordedRequestAsNDJSONHasTheSameVerdictMismatchesAndDiagnostics() throws {
        for (ruleset, recorded) in try recordedRulesetCases().filter({ $0.1.status == 200 }) {
            let json = try Oracle.check(ruleset, json: recorded.body)
            let request = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(recorded.body.utf8)) as? [String: Any])
            let sequence = ruleset == .refresh ? "runs" : "events"
            // Members the JSON form ignores would make the first line an element.
            var lines = [request.filter { Self.headMembers[ruleset]!.contains($0.key) }]
            lines += (request[sequence] as? [[String: Any]]) ?? []
            let ndjson = try lines.map { String(decoding: try JSONSerialization.data(withJSONObject: $0), as: UTF8.self) }
                .joined(separator: "\n")

            let streamed = try Oracle.check(ruleset, ndjson: ndjson, steps: .none)
            XCTAssertEqual(streamed.verdict, json.verdict, recorded.name)
            // The lines were written again by JSONSerialization, in its member order: a
            // step's mismatches (in `observed`'s order) and values are compared as such.
            func sorted(_ mismatches: [OracleResult.Mismatch]) -> [(String, NSObject?)] {
                mismatches.sorted { ($0.step ?? .max, $0.field) < ($1.step ?? .max, $1.field) }.map {
                    ("\($0.step ?? -1) \($0.field)",
                     try? JSONSerialization.jsonObject(with: Data($0.expected.utf8), options: .fragmentsAllowed) as? NSObject)
                }
            }
            XCTAssertEqual(sorted(streamed.mismatches).map(\.0), sorted(json.mismatches).map(\.0), recorded.name)
            XCTAssertEqual(sorted(streamed.mismatches).map(\.1), sorted(json.mismatches).map(\.1), recorded.name)
            XCTAssertEqual(streamed.diagnostics, json.diagnostics, recorded.name)
            XCTAssertEqual(streamed.json.split(separator: "\n").count, 1, "steps: .none writes the summary alone")
        }
    }

    func testABadNDJSONLineIsThrownWithItsLineAndAPointerIntoIt() {
        XCTAssertThrowsError(try Oracle.check(.playback, ndjson: "{\"type\":\"userPlayed\"}\n{\"type\":\"userJumped\"}\n")) { error in
            let problem = error as? OracleProblem
            XCTAssertEqual(problem?.status, 422)
            XCTAssertEqual(problem?.problems.map(\.pointer), ["/type"])
            XCTAssertEqual(problem?.problems.map(\.line), [2])
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

/// `Oracle.check(_:oslog:…)`: a unified-log capture in process, as the service answers it.
final class OracleUnifiedLogTests: XCTestCase {
    private func record(_ message: String, category: String = "DeviceOracle") -> String {
        let escaped = message.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        return #"{"timestamp":"2026-12-06 10:23:01.442117-0700","eventType":"logEvent","category":"\#(category)","processID":412,"eventMessage":"\#(escaped)"}"#
    }

    func testACaptureIsCheckedWithTheLogsLinesAndVerdict() throws {
        let capture = [#"Filtering the log data using "category == "DeviceOracle"""#,
                       record(#"{"initial":{"isPlaying":true}}"#),
                       record(#"{"type":"userPaused","observed":{"isPlaying":true}}"#)].joined(separator: "\n")
        let result = try Oracle.check(.playback, oslog: capture)
        XCTAssertEqual(result.verdict, .fail)
        XCTAssertTrue(result.json.contains(#""id":"line-3""#), result.json)

        let redacted = try Oracle.check(.playback, oslog: capture.replacingOccurrences(of: #"\"observed\":{\"isPlaying\":true}"#, with: #"\"observed\":{\"isPlaying\":false}"#)
                                        + "\n" + record("<private>"), steps: .none)
        XCTAssertEqual(redacted.verdict, .inconclusive)
        XCTAssertEqual(redacted.diagnostics.map(\.code), ["redactedMessage"])
        XCTAssertEqual(redacted.diagnostics.first?.line, 4)

        let otherCategory = try Oracle.check(.playback, oslog: capture, category: "Network")
        XCTAssertEqual(otherCategory.verdict, .inconclusive, "nothing of the app's was checked")
    }
}
