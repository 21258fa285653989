import Foundation
import XCTest
import DeviceOracleJSON
@testable import DeviceOracleWire

/// `POST /rulesets/{name}/repro`: the shortest request that fails as a log's first
/// mismatch does.
final class ReproTests: XCTestCase {
    private func repro(_ endpoint: RulesetEndpoint, _ body: String, ndjson: Bool = false,
                       file: StaticString = #filePath, line: UInt = #line) throws -> Answer {
        switch endpoint.repro(Array(body.utf8), ndjson: ndjson) {
        case .success(let json)?: return try parsed(json)
        case .failure(let rejection)?:
            XCTFail("rejected: \(rejection.detail) \(rejection.problems)", file: file, line: line)
            throw rejection
        case nil:
            XCTFail("\(endpoint.name) does not reproduce", file: file, line: line)
            throw CocoaError(.featureUnsupported)
        }
    }

    func testTheReproIsTheShortestRouteToTheDivergingStateThenTheLogsOwnEvent() throws {
        // Step 4 starts playing, with resume set by nothing: the route is userPlayed, then the step's event.
        let log = #"""
        {"events":[{"type":"userPaused"},{"type":"routeChanged","reason":"newDeviceAvailable"},{"type":"userPlayed"},
        {"type":"userPaused"},{"type":"userPlayed"},{"type":"interruptionBegan","id":"line-88","observed":{"action":"none"}}]}
        """#

        let repro = try repro(PlaybackRuleset.endpoint, log)

        XCTAssertEqual(repro["/divergence"], #"{"index":5,"field":"action","expected":"pause","observed":"none"}"#)
        XCTAssertEqual(repro["/originalLength"], "6")
        XCTAssertEqual(repro["/reproLength"], "2")
        XCTAssertEqual(repro["/eventClasses"], #"["userPlayed","interruptionBegan"]"#)
        XCTAssertEqual(repro["/request"],
                       #"{"events":[{"type":"userPlayed"},{"type":"interruptionBegan","id":"line-88","observed":{"action":"none"}}]}"#)
        XCTAssertEqual(repro["/path/1/before"], #"{"isPlaying":true,"resumeAfterInterruption":false}"#)
        XCTAssertEqual(repro["/verdict"], #""fail""#)
    }

    func testTheReproStartsWhereTheLogStartsKeepingItsOtherMembers() throws {
        let log = #"""
        {"category":"playback","initial":{"foreground":false},"events":[{"type":"launched"},
        {"type":"enteredForeground","observed":{"active":false}}]}
        """#

        let repro = try repro(AudioSessionRuleset.endpoint, log)

        XCTAssertEqual(repro["/request/category"], #""playback""#)
        XCTAssertEqual(repro["/request/initial"], #"{"foreground":false}"#)
        XCTAssertEqual(repro["/reproLength"], "2")
    }

    func testTheLastEventLeavesItsSessionToRunOnTheMachineTheRouteDrove() throws {
        let log = #"""
        {"initial":{"isPlaying":true},"events":[{"type":"userPaused","session":"a"},
        {"type":"interruptionBegan","session":"b"},{"type":"interruptionEnded","shouldResume":true,"session":"b","observed":{"isPlaying":false}}]}
        """#

        let repro = try repro(PlaybackRuleset.endpoint, log)

        XCTAssertEqual(repro["/request"],
                       #"{"initial":{"isPlaying":true},"events":[{"type":"interruptionBegan"},{"type":"interruptionEnded","shouldResume":true,"observed":{"isPlaying":false}}]}"#)
        XCTAssertEqual(repro["/originalLength"], "3")
    }

    func testAFinalStateDivergenceIsReproducedAtTheLastStepWithTheLogsObservedFinal() throws {
        let log = #"""
        {"events":[{"type":"saveTapped"},{"type":"saveTapped"},{"type":"saveSucceeded"}],"observedFinal":{"engine":"stopped"}}
        """#

        let repro = try repro(HapticsRuleset.endpoint, log)

        XCTAssertEqual(repro["/divergence"], #"{"index":null,"field":"final.engine","expected":"running","observed":"stopped"}"#)
        XCTAssertEqual(repro["/originalLength"], "3")
        XCTAssertEqual(repro["/reproLength"], "2")
        XCTAssertEqual(repro["/request"],
                       #"{"events":[{"type":"saveTapped"},{"type":"saveSucceeded"}],"observedFinal":{"engine":"stopped"}}"#)
    }

    func testALogWithNoEventsDivergesInItsStartingState() throws {
        let pattern = #"[{"eventType":"hapticTransient","relativeTime":0,"parameters":{"hapticIntensity":0.65,"hapticSharpness":0.35}}]"#
        let repro = try repro(HapticsRuleset.endpoint,
                              #"{"pattern":\#(pattern),"supportsHaptics":false,"observedFinal":{"engine":"stopped"}}"#)

        XCTAssertEqual(repro["/originalLength"], "0")
        XCTAssertEqual(repro["/reproLength"], "0")
        XCTAssertEqual(repro["/path"], "[]")
        XCTAssertEqual(repro["/request"],
                       #"{"pattern":\#(pattern),"supportsHaptics":false,"events":[],"observedFinal":{"engine":"stopped"}}"#)
    }

    func testAStartingStateTheModelNeverReachesIsStillAStartOfTheRoute() throws {
        // Playing with a resume pending is set only through `initial`: its own transitions lead on.
        let log = #"""
        {"initial":{"isPlaying":true,"resumeAfterInterruption":true},"events":[{"type":"routeChanged","reason":"override"},
        {"type":"interruptionBegan"},{"type":"interruptionEnded","shouldResume":true,"observed":{"isPlaying":false}}]}
        """#

        let repro = try repro(PlaybackRuleset.endpoint, log)

        XCTAssertEqual(repro["/eventClasses"], #"["interruptionBegan","interruptionEnded(shouldResume=true)"]"#)
        XCTAssertEqual(repro["/path/0/before"], #"{"isPlaying":true,"resumeAfterInterruption":true}"#)
    }

    func testAPassingOrUncheckedLogHasNothingToReproduce() {
        for (body, why) in [(#"{"events":[{"type":"userPlayed","observed":{"isPlaying":true}}]}"#, "passes"),
                            (#"{"events":[{"type":"userPlayed"}]}"#, "unchecked")] {
            guard case .failure(let rejection)? = PlaybackRuleset.endpoint.repro(Array(body.utf8)) else {
                return XCTFail("expected nothing to reproduce for \(body)")
            }
            XCTAssertEqual(rejection.kind, .nothingToReproduce)
            XCTAssertEqual(rejection.status, 422)
            XCTAssertEqual(rejection.problemType, "/problems/nothing-to-reproduce")
            XCTAssert(rejection.detail.contains(why), rejection.detail)
        }
    }

    func testAnInvalidLogGetsTheEndpointsOwnProblems() {
        guard case .failure(let rejection)? = PlaybackRuleset.endpoint.repro(Array(#"{"events":[{"type":"userPlayd"}]}"#.utf8)) else {
            return XCTFail("expected a rejection")
        }
        XCTAssertEqual(rejection.kind, .invalidRequest)
        XCTAssertEqual(rejection.problems.map(\.pointer), ["/events/0/type"])
    }

    func testTheNDJSONFormOfALogGivesTheSameRepro() throws {
        let json = #"{"initial":{"isPlaying":true},"events":[{"type":"userPaused"},{"type":"userPlayed","observed":{"action":"none"}}]}"#
        let ndjson = """
        {"initial":{"isPlaying":true}}
        {"type":"userPaused"}
        {"type":"userPlayed","observed":{"action":"none"}}

        """

        XCTAssertEqual(try repro(PlaybackRuleset.endpoint, ndjson, ndjson: true).text,
                       try repro(PlaybackRuleset.endpoint, json).text)
    }

    func testABadNDJSONLineIsRefusedWithItsLine() {
        let ndjson = "{\"initial\":{\"isPlaying\":true}}\n{\"type\":\"userPlayed\"}\n{\"type\":\"nope\"}\n"
        guard case .failure(let rejection)? = PlaybackRuleset.endpoint.repro(Array(ndjson.utf8), ndjson: true) else {
            return XCTFail("expected a rejection")
        }
        XCTAssertEqual(rejection.line, 3)
    }

    func testRefreshDoesNotReproduce() {
        XCTAssertFalse(RefreshEndpoint.endpoint.reproduces)
        XCTAssertNil(RefreshEndpoint.endpoint.repro(Array("{}".utf8)))
        XCTAssert(PlaybackRuleset.endpoint.reproduces && HapticsRuleset.endpoint.reproduces
                  && AudioSessionRuleset.endpoint.reproduces)
    }

    /// Random walks of each model with one wrong observed field at a random step:
    /// posting the repro's request diverges exactly as the log did, at its last step,
    /// and the repro is never longer than the log's prefix.
    func testARepostedReproDivergesAsTheLogDidAndIsNoLongerThanItsPrefix() throws {
        for endpoint in Rulesets.all where endpoint.reproduces {
            for seed in 0..<40 {
                let plan = try parsed(try XCTUnwrap(try endpoint.plan(coverage: "random", maxLength: 30, seed: seed, count: 1).get()))
                let sequence = try XCTUnwrap(plan.document.member(plan.document.root, "sequences"))
                let walk = try XCTUnwrap(Array(plan.document.elements(sequence)).first)
                let request = try JSONSerialization.jsonObject(with: Data(try XCTUnwrap(subtext(walk, "request", of: plan)).utf8))
                let steps = try JSONSerialization.jsonObject(with: Data(try XCTUnwrap(subtext(walk, "answer", of: plan)).utf8))
                guard var log = request as? [String: Any], var events = log["events"] as? [[String: Any]],
                      let answerSteps = (steps as? [String: Any])?["steps"] as? [[String: Any]], !events.isEmpty else {
                    return XCTFail("a plan's walk is a log with its answer")
                }
                let index = seed % events.count
                let after = try XCTUnwrap(answerSteps[index]["after"] as? [String: Any])
                let field = after.keys.sorted()[seed % after.count]
                let wrong: Any = (after[field] as? Bool).map { !$0 } ?? "not-\(after[field]!)"
                events[index]["observed"] = [field: wrong]
                log["events"] = events
                let body = String(decoding: try JSONSerialization.data(withJSONObject: log, options: [.sortedKeys]), as: UTF8.self)

                let original = try answer(endpoint, body)
                let repro = try repro(endpoint, body)
                // The NDJSON form, checked as it streams, gives the same bytes.
                XCTAssertEqual(try self.repro(endpoint, ndjson(log), ndjson: true).text, repro.text, "\(endpoint.name) seed \(seed)")
                let reposted = try answer(endpoint, try XCTUnwrap(repro["/request"]))

                let context = "\(endpoint.name) seed \(seed): \(body)"
                let reproLength = try XCTUnwrap(Int(try XCTUnwrap(repro["/reproLength"])))
                XCTAssertEqual(repro["/divergence"], original["/mismatches/0"], context)
                XCTAssertEqual(reposted["/mismatches/0/index"], "\(reproLength - 1)", context)
                for member in ["field", "expected", "observed"] {
                    XCTAssertEqual(reposted["/mismatches/0/\(member)"], original["/mismatches/0/\(member)"], context)
                }
                XCTAssertLessThanOrEqual(reproLength, index + 1, context)
                XCTAssertEqual(repro["/path"], reposted["/steps"], context)
            }
        }
    }

    /// A log's NDJSON form (streaming.md): a head line of its members, a line per event,
    /// a tail line of its `observedFinal`.
    private func ndjson(_ log: [String: Any]) throws -> String {
        func line(_ object: Any) throws -> String {
            String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self) + "\n"
        }
        var head = log
        head["events"] = nil
        head["observedFinal"] = nil
        var text = try line(head)
        for event in log["events"] as? [Any] ?? [] { text += try line(event) }
        if let observedFinal = log["observedFinal"] { text += try line(["observedFinal": observedFinal]) }
        return text
    }

    func testAnNDJSONLogDivergingOnlyInItsFinalStateOrNotAtAllGivesWhatItsJSONFormGives() throws {
        let final = try JSONSerialization.jsonObject(with: Data(#"""
        {"pattern":[{"eventType":"hapticTransient","relativeTime":0,"parameters":{"hapticIntensity":0.65,"hapticSharpness":0.35}}],
         "events":[{"type":"saveTapped"},{"type":"saveTapped"},{"type":"saveSucceeded"}],"observedFinal":{"engine":"stopped"}}
        """#.utf8)) as! [String: Any]
        let json = String(decoding: try JSONSerialization.data(withJSONObject: final, options: [.sortedKeys]), as: UTF8.self)

        XCTAssertEqual(try repro(HapticsRuleset.endpoint, ndjson(final), ndjson: true).text,
                       try repro(HapticsRuleset.endpoint, json).text)
        for body in ["{\"type\":\"userPlayed\",\"observed\":{\"isPlaying\":true}}\n", "{\"type\":\"userPlayed\"}\n"] {
            guard case .failure(let fromLines)? = PlaybackRuleset.endpoint.repro(Array(body.utf8), ndjson: true),
                  case .failure(let fromJSON)? = PlaybackRuleset.endpoint.repro(Array("{\"events\":[\(body.dropLast())]}".utf8)) else {
                return XCTFail("nothing to reproduce in \(body)")
            }
            XCTAssertEqual(fromLines.kind, .nothingToReproduce)
            XCTAssertEqual(fromLines.detail, fromJSON.detail)
        }
    }

    private func subtext(_ object: JSONValue, _ name: StaticString, of answer: Answer) -> String? {
        guard let value = answer.document.member(object, name) else { return nil }
        var writer = JSONWriter()
        writer.value(value, of: answer.document)
        return String(decoding: writer.finish(), as: UTF8.self)
    }
}
