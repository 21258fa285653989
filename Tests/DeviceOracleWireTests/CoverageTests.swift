import XCTest
import DeviceOracleJSON
@testable import DeviceOracleWire

/// `POST /rulesets/{name}/coverage`: which of the model's transitions device
/// logs took, which they never did, and each log's verdict.
final class CoverageTests: XCTestCase {
    private func coverage(_ endpoint: RulesetEndpoint, _ body: String,
                          file: StaticString = #filePath, line: UInt = #line) throws -> Answer {
        switch endpoint.coverage(Array(body.utf8)) {
        case .success(let answer): return try parsed(answer.json, verdict: answer.verdict)
        case .failure(let rejection):
            XCTFail("rejected: \(rejection.problems)", file: file, line: line)
            throw rejection
        }
    }

    private func coverageProblems(_ endpoint: RulesetEndpoint, _ body: String) -> [String] {
        guard case .failure(let rejection) = endpoint.coverage(Array(body.utf8)) else {
            XCTFail("expected a rejection")
            return []
        }
        return rejection.problems.map { "\($0.pointer): \($0.detail)" }
    }

    /// The raw interruption end with option 1 is `interruptionEnded(shouldResume=true)`.
    func testALogExercisesItsTransitionsAndTheRestAreListedAsMissed() throws {
        let log = #"{"events":[{"type":"userPlayed"},{"type":"interruptionBegan","observed":{"isPlaying":false}},{"notification":"AVAudioSessionInterruptionNotification","userInfo":{"AVAudioSessionInterruptionTypeKey":0,"AVAudioSessionInterruptionOptionKey":1}},{"type":"userPlayed"}]}"#

        let coverage = try coverage(PlaybackRuleset.endpoint, #"{"logs":[\#(log),\#(log)]}"#)

        XCTAssertEqual(coverage["/exercisedTransitions"], "4")
        XCTAssertEqual(coverage["/transitionCoverage"], "\(4.0 / 27)")
        XCTAssertEqual(coverage["/exercised"], #"[{"from":{"isPlaying":false,"resumeAfterInterruption":false},"event":"userPlayed","to":{"isPlaying":true,"resumeAfterInterruption":false},"decision":"play","count":2},{"from":{"isPlaying":true,"resumeAfterInterruption":false},"event":"interruptionBegan","to":{"isPlaying":false,"resumeAfterInterruption":true},"decision":"pause","count":2},{"from":{"isPlaying":true,"resumeAfterInterruption":false},"event":"userPlayed","to":{"isPlaying":true,"resumeAfterInterruption":false},"decision":"none","count":2},{"from":{"isPlaying":false,"resumeAfterInterruption":true},"event":"interruptionEnded(shouldResume=true)","to":{"isPlaying":true,"resumeAfterInterruption":false},"decision":"play","count":2}]"#)
        XCTAssertEqual(coverage.document.count(try XCTUnwrap(coverage.document.member(coverage.document.root, "missed"))), 23)
        XCTAssertEqual(coverage["/missed/0"], #"{"from":{"isPlaying":false,"resumeAfterInterruption":false},"event":"interruptionBegan","to":{"isPlaying":false,"resumeAfterInterruption":false},"decision":"none"}"#)
        XCTAssertEqual(coverage["/stepsOutsideModel"], "0")
        XCTAssertEqual(coverage["/logs"], #"[{"index":0,"verdict":"pass","steps":4,"mismatches":0},{"index":1,"verdict":"pass","steps":4,"mismatches":0}]"#)
        XCTAssertEqual(coverage.verdict, .pass)
    }

    func testStepsFromStatesOnlyInitialReachesOrThatReachNoMachineAreOutsideTheModel() throws {
        let log = #"{"initial":{"isPlaying":true,"resumeAfterInterruption":true},"events":[{"type":"userPaused"},{"notification":"somethingElse"},{"type":"userPlayed","observed":{"action":"none"}}]}"#

        let coverage = try coverage(PlaybackRuleset.endpoint, #"{"logs":[\#(log)]}"#)

        XCTAssertEqual(coverage["/stepsOutsideModel"], "2")
        XCTAssertEqual(coverage["/exercisedTransitions"], "1")
        XCTAssertEqual(coverage["/verdict"], #""fail""#)
        XCTAssertEqual(coverage["/logs/0"], #"{"index":0,"verdict":"fail","steps":3,"mismatches":1}"#)
    }

    func testRouteChangeReasonsCountByClass() throws {
        let log = #"{"events":[{"type":"routeChanged","reason":"override"},{"type":"routeChanged","reason":1},{"type":"routeChanged","reason":42},{"type":"routeChanged","reason":"headphones"}]}"#

        let coverage = try coverage(AudioSessionRuleset.endpoint, #"{"logs":[\#(log)]}"#)

        XCTAssertEqual(coverage["/exercised/0/event"], #""routeChanged(reason=otherKnown)""#)
        XCTAssertEqual(coverage["/exercised/0/count"], "2")
        XCTAssertEqual(coverage["/exercised/1/event"], #""routeChanged(reason=unknown)""#)
        XCTAssertEqual(coverage["/exercised/1/count"], "2")
    }

    func testHapticsLogsOnHardwareWithoutHapticsCoverTheUnsupportedStates() throws {
        let log = #"{"supportsHaptics":false,"events":[{"type":"saveTapped"},{"type":"saveSucceeded"}]}"#

        let coverage = try coverage(HapticsRuleset.endpoint, #"{"logs":[\#(log)]}"#)

        XCTAssertEqual(coverage["/exercised/1"], #"{"from":{"phase":"saving","engine":"unsupported"},"event":"saveSucceeded","to":{"phase":"saved","engine":"unsupported"},"decision":"none","count":1}"#)
    }

    func testRefreshRunsTakeTheStaleTempAndRepeatedPageTransitions() throws {
        let log = #"{"runs":[{"at":0,"pages":[{},{}],"fault":{"kind":"crash","stage":"write","page":1}},{"at":10,"pages":[{}],"fault":{"kind":"error","stage":"cursor","page":0}},{"at":100,"pages":[{},{},{},{}]},{"at":2000}]}"#

        let coverage = try coverage(RefreshRuleset.endpoint, #"{"logs":[\#(log)]}"#)

        XCTAssertEqual(coverage["/exercised"], #"[{"from":{"staleTempFile":false,"pageToRepeat":false},"event":"run(noPages)","to":{"staleTempFile":false,"pageToRepeat":false},"decision":"succeeded (completeSuccess)","count":1},{"from":{"staleTempFile":false,"pageToRepeat":false},"event":"crash(stage=write,page=last)","to":{"staleTempFile":true,"pageToRepeat":false},"decision":"crashed","count":1},{"from":{"staleTempFile":false,"pageToRepeat":true},"event":"run(noFault)","to":{"staleTempFile":false,"pageToRepeat":false},"decision":"succeeded (completeSuccess)","count":1},{"from":{"staleTempFile":true,"pageToRepeat":false},"event":"error(stage=cursor,page=first)","to":{"staleTempFile":false,"pageToRepeat":true},"decision":"failed (removeStaleTemp, completeFailure)","count":1}]"#)
    }

    /// A plan's requests, sent back as logs, exercise every transition: the plan
    /// and the coverage read the same model the same way.
    func testAPlansRequestsCoverTheirWholeModel() throws {
        for endpoint in Rulesets.all {
            guard case .success(let planJSON) = endpoint.plan([]) else { return XCTFail(endpoint.name) }
            let plan = try parsed(planJSON).document
            var logs: [String] = []
            for sequence in plan.elements(try XCTUnwrap(plan.member(plan.root, "sequences"))) {
                var writer = JSONWriter()
                writer.value(try XCTUnwrap(plan.member(sequence, "request")), of: plan)
                logs.append(String(decoding: writer.finish(), as: UTF8.self))
            }

            let coverage = try coverage(endpoint, #"{"logs":[\#(logs.joined(separator: ","))]}"#)

            XCTAssertEqual(coverage["/transitionCoverage"], "1", endpoint.name)
            XCTAssertEqual(coverage["/missed"], "[]", endpoint.name)
            XCTAssertEqual(coverage["/stepsOutsideModel"], "0", endpoint.name)
        }
    }

    func testNoLogsCoverNothingAndCheckNothing() throws {
        let coverage = try coverage(HapticsRuleset.endpoint, #"{"logs":[]}"#)

        XCTAssertEqual(coverage["/transitionCoverage"], "0")
        XCTAssertEqual(coverage["/verdict"], #""unchecked""#)
    }

    func testEveryInvalidLogIsListedWithPointersIntoTheBody() {
        XCTAssertEqual(coverageProblems(PlaybackRuleset.endpoint, #"{"logs":[{"events":[]},{"events":[{"type":"userPause"}]},3,{"events":[{"type":"interruptionEnded"}],"ruleset":"playback/2"}]}"#), [
            "/logs/1/events/0/type: unknown event type 'userPause'; did you mean 'userPaused'?",
            "/logs/2: the request body must be a JSON object, got a number",
            "/logs/3/events/0/shouldResume: required boolean is missing",
            "/logs/3/ruleset: ruleset 'playback/2' is not served here; this endpoint serves 'playback/1'",
        ])
        XCTAssertEqual(coverageProblems(PlaybackRuleset.endpoint, #"{"log":[]}"#), [
            "/log: unknown member 'log'; did you mean 'logs'?",
            "/logs: required array is missing",
        ])
        XCTAssertEqual(coverageProblems(RefreshRuleset.endpoint, #"{"logs":[{"runs":[{"at":0,"at":1}]}]}"#), [
            "/logs/0/runs/0/at: duplicate key 'at'",
        ])
    }
}
