import XCTest
import DeviceOracleJSON
@testable import DeviceOracleWire

/// `"initial": "unknown"` (late-start.md), one test per rule.
final class LateStartTests: XCTestCase {
    private let playback = PlaybackRuleset.endpoint
    private let haptics = HapticsRuleset.endpoint
    private let audioSession = AudioSessionRuleset.endpoint

    private let paused = #"{"isPlaying":false,"resumeAfterInterruption":false}"#
    private let pausedToResume = #"{"isPlaying":false,"resumeAfterInterruption":true}"#
    private let playing = #"{"isPlaying":true,"resumeAfterInterruption":false}"#

    /// The members `"initial": "unknown"` adds, as the answer writes them.
    private func lateMembers(_ answer: Answer) -> String {
        #","initialCandidates":\#(answer["/initialCandidates"] ?? ""),"determinedAt":\#(answer["/determinedAt"] ?? "")"#
    }

    private func candidateCount(_ answer: Answer) -> Int {
        var count = 0
        while answer["/initialCandidates/\(count)"] != nil { count += 1 }
        return count
    }

    // MARK: Candidates and their order

    func testWithNothingObservedEveryReachableStateIsACandidateInTheOrderOfTheirBytes() throws {
        let answer = try DeviceOracleWireTests.answer(playback, #"{"initial":"unknown","events":[]}"#)

        XCTAssertEqual(answer["/initialCandidates"], "[\(paused),\(pausedToResume),\(playing)]")
        XCTAssertEqual(answer.verdict, .unchecked)
    }

    func testTheCandidatesAreTheNodesOfTheDiagramForTheDefaultSettings() throws {
        // Haptics' diagram starts from both `supportsHaptics` values: 7 + 4 nodes.
        for (endpoint, settings) in [(playback, [""]), (audioSession, [""]),
                                     (haptics, [#""supportsHaptics":true,"#, #""supportsHaptics":false,"#])] {
            let diagram = try JSONReader.parse(endpoint.diagram(.json))
            let nodes = diagram.member(diagram.root, "nodes").map(diagram.count) ?? -1

            let counts = try settings.map {
                candidateCount(try DeviceOracleWireTests.answer(endpoint, #"{\#($0)"initial":"unknown","events":[]}"#))
            }

            XCTAssertEqual(counts.reduce(0, +), nodes, "\(endpoint.name)")
        }
    }

    func testAudioSessionHas38Candidates() throws {
        let answer = try DeviceOracleWireTests.answer(audioSession, #"{"initial":"unknown","events":[]}"#)

        XCTAssertEqual(candidateCount(answer), 38)
    }

    func testHapticsCandidatesFollowSupportsHaptics() throws {
        let supported = try answer(haptics, #"{"initial":"unknown","events":[]}"#)
        let unsupported = try answer(haptics, #"{"initial":"unknown","supportsHaptics":false,"events":[]}"#)

        XCTAssertEqual(candidateCount(supported), 7)
        XCTAssertEqual(candidateCount(unsupported), 4)
    }

    func testAHapticsPatternOnlyRequestAnswersTheFirstCandidatesStateAsFinal() throws {
        let answer = try DeviceOracleWireTests.answer(haptics, #"{"initial":"unknown","pattern":[]}"#)

        XCTAssertEqual(answer["/final"], answer["/initialCandidates/0"])
        XCTAssertEqual(answer["/determinedAt"], "null")
    }

    // MARK: Consistency and the reported path

    func testALogAttachedWhilePausedAfterAnInterruptionIsCheckedFromTheOnlyStartItAllows() throws {
        let answer = try DeviceOracleWireTests.answer(playback, #"""
            {"initial":"unknown","events":[
              {"type":"interruptionEnded","shouldResume":true,"observed":{"isPlaying":true}}]}
            """#)

        XCTAssertEqual(answer["/initialCandidates"], "[\(pausedToResume)]")
        XCTAssertEqual(answer["/determinedAt"], "0")
        XCTAssertEqual(answer["/steps/0/before"], pausedToResume)
        XCTAssertEqual(answer.verdict, .pass)
    }

    func testTheReportedPathIsTheFirstConsistentCandidatesExplicitAnswerWithTheTwoMembersAfterFinal() throws {
        let events = #""events":[{"type":"userPaused","observed":{"isPlaying":false}},{"type":"userPlayed"}]"#
        let late = try answer(playback, #"{"initial":"unknown",\#(events)}"#)
        let explicit = try answer(playback, #"{"initial":\#(paused),\#(events)}"#)

        XCTAssertEqual(late.text.replacingOccurrences(of: lateMembers(late), with: ""), explicit.text)
        XCTAssertTrue(late.text.contains(#""final":\#(playing),"initialCandidates":"#))
    }

    func testWhenNoneIsConsistentTheCandidateRuledOutLatestIsReported() throws {
        // paused: ruled out at 0; pausedToResume: at 1; playing: at 0.
        let events = #""events":[{"type":"interruptionEnded","shouldResume":true,"observed":{"isPlaying":true}},"#
            + #"{"type":"userPaused","observed":{"isPlaying":true}}]"#
        let late = try answer(playback, #"{"initial":"unknown",\#(events)}"#)
        let explicit = try answer(playback, #"{"initial":\#(pausedToResume),\#(events)}"#)

        XCTAssertEqual(late["/initialCandidates"], "[]")
        XCTAssertEqual(late["/determinedAt"], "null")
        XCTAssertEqual(late.verdict, .fail)
        XCTAssertEqual(late.text.replacingOccurrences(of: lateMembers(late), with: ""), explicit.text)
    }

    func testOnATieTheFirstInOrderIsReported() throws {
        let late = try answer(playback, #"{"initial":"unknown","events":[{"type":"userPaused","observed":{"isPlaying":true}}]}"#)

        XCTAssertEqual(late["/steps/0/before"], paused)
        XCTAssertEqual(late.verdict, .fail)
    }

    func testObservedFinalRulesOutAfterTheLastStep() throws {
        // Every candidate is ruled out at step 0 but `pausedToResume`, whose final fails.
        let late = try answer(playback, #"""
            {"initial":"unknown","events":[
              {"type":"interruptionEnded","shouldResume":true,"observed":{"isPlaying":true}}],
             "observedFinal":{"isPlaying":false}}
            """#)

        XCTAssertEqual(late["/initialCandidates"], "[]")
        XCTAssertEqual(late["/steps/0/before"], pausedToResume)
        XCTAssertEqual(late["/mismatches/0/field"], #""final.isPlaying""#)
    }

    func testObservedEmptyCountsAsObservingSomething() throws {
        let late = try answer(playback, #"{"initial":"unknown","events":[{"type":"userPaused","observed":{}}]}"#)

        XCTAssertEqual(late.verdict, .pass)
    }

    // MARK: determinedAt

    func testDeterminedAtIsTheStepAfterWhichEveryConsistentCandidateIsInOneState() throws {
        // Step 0 keeps all three apart or not; userPaused brings every one to paused.
        let late = try answer(playback, #"""
            {"initial":"unknown","events":[
              {"type":"interruptionBegan","observed":{}},
              {"type":"userPlayed"},
              {"type":"userPaused","observed":{"isPlaying":false}}]}
            """#)

        XCTAssertEqual(late["/determinedAt"], "1")
    }

    func testDeterminedAtIsNullWhenTheCandidatesNeverAgreeOrTheLogHasNoStep() throws {
        let apart = try answer(playback, #"{"initial":"unknown","events":[{"type":"interruptionBegan"}]}"#)
        let empty = try answer(playback, #"{"initial":"unknown","events":[]}"#)

        XCTAssertEqual(apart["/determinedAt"], "null")
        XCTAssertEqual(empty["/determinedAt"], "null")
    }

    // MARK: Refusals

    func testAnotherStringIsA422AtInitialWithADidYouMean() {
        XCTAssertEqual(problems(playback, #"{"initial":"unknwon","events":[]}"#),
                       [#"/initial: 'initial' is a state object or "unknown", not 'unknwon'; did you mean 'unknown'?"#])
    }

    func testRefreshRefusesAnUnknownStart() {
        let found = problems(Rulesets.named("refresh")!, #"{"initial":"unknown","runs":[]}"#)

        XCTAssertEqual(found.map { $0.prefix(9) }, ["/initial:"])
    }

    func testAPlaybackSessionIsRefusedAtItsPointerAndANullSessionIsNone() throws {
        XCTAssertEqual(problems(playback, #"{"initial":"unknown","events":[{"type":"userPaused"},{"type":"userPlayed","session":"b"}]}"#)
            .map { $0.prefix(18) }, ["/events/1/session:"])
        XCTAssertEqual(try answer(playback, #"{"initial":"unknown","events":[{"type":"userPaused","session":null}]}"#).verdict,
                       .unchecked)
    }

    func testAnInvalidEventIsStillA422() {
        XCTAssertEqual(problems(playback, #"{"initial":"unknown","events":[{"type":"userPausd"}]}"#).count, 1)
    }

    // MARK: The NDJSON form

    private func streamed(_ body: String, ruleset: String = "playback", detail: StepDetail = .all,
                          detailGiven: Bool = false) -> (lines: [String], rejection: RequestRejection?) {
        let check = NDJSONCheck(endpoint: Rulesets.named(ruleset)!, detail: detail, detailGiven: detailGiven,
                                maxLineBytes: 1 << 20) { _ in Array("{}".utf8) }
        var output: [UInt8] = []
        var rejection: RequestRejection?
        var progress = Array(body.utf8).withUnsafeBytes { check.receive($0, output: &output) }
        while true {
            switch progress {
            case .rejected(let refused): rejection = refused
            case .end: break
            case .more, .begin:
                progress = check.finish(output: &output)
                continue
            }
            break
        }
        return (output.split(separator: UInt8(ascii: "\n")).map { String(decoding: $0, as: UTF8.self) }, rejection)
    }

    func testTheStreamWritesNoStepLinesAndItsSummaryIsTheJSONFormsWithoutSteps() throws {
        let lines = [#"{"type":"interruptionEnded","shouldResume":true,"observed":{"isPlaying":true}}"#,
                     #"{"type":"userPaused","observed":{"isPlaying":true}}"#]
        let json = try answer(playback, #"{"initial":"unknown","events":[\#(lines.joined(separator: ","))]}"#)

        let answered = streamed(#"{"initial":"unknown"}"# + "\n" + lines.joined(separator: "\n"))

        XCTAssertEqual(answered.lines.count, 1)
        let summary = try parsed(Array(answered.lines[0].utf8))
        for member in ["/final", "/initialCandidates", "/determinedAt", "/verdict", "/mismatches", "/diagnostics"] {
            XCTAssertEqual(summary[member], json[member], member)
        }
        XCTAssertEqual(summary["/mismatchCount"], "1")
    }

    func testExplicitStepsAllOrFailingIsRefusedAndNoneIsAnswered() {
        let body = #"{"initial":"unknown"}"# + "\n" + #"{"type":"userPaused"}"#

        XCTAssertEqual(streamed(body, detail: .all, detailGiven: true).rejection?.problemType, "/problems/invalid-query")
        XCTAssertEqual(streamed(body, detail: .failing, detailGiven: true).rejection?.status, 400)
        XCTAssertNil(streamed(body, detail: .none, detailGiven: true).rejection)
    }

    func testARefreshHeadIsRefusedOnLineOne() {
        let answered = streamed(#"{"initial":"unknown"}"# + "\n", ruleset: "refresh")

        XCTAssertEqual(answered.rejection?.line, 1)
        XCTAssertEqual(answered.rejection?.status, 422)
    }

    func testAStreamedHapticsLogCountsTheReportedPathsHapticRequests() throws {
        let events = [#"{"type":"saveTapped"}"#, #"{"type":"saveSucceeded","observed":{"haptic":"play"}}"#]
        let json = try answer(haptics, #"{"initial":"unknown","events":[\#(events.joined(separator: ","))],"observedFinal":{"hapticRequests":1}}"#)

        let answered = streamed(#"{"initial":"unknown","observedFinal":{"hapticRequests":1}}"# + "\n"
                                + events.joined(separator: "\n"), ruleset: "haptics")

        let summary = try parsed(Array(answered.lines[0].utf8))
        for member in ["/final", "/initialCandidates", "/determinedAt", "/verdict", "/mismatches", "/summary"] {
            XCTAssertEqual(summary[member], json[member], member)
        }
        XCTAssertEqual(json.verdict, .pass)
    }

    // MARK: Coverage and repro

    private let lateFailing = #"{"initial":"unknown","events":[{"type":"interruptionEnded","shouldResume":true,"observed":{"isPlaying":true}},"#
        + #"{"type":"userPlayed"},{"type":"userPaused","observed":{"isPlaying":true}}]}"#

    func testCoverageOfALateLogIsThatOfItsReportedPath() throws {
        let explicit = lateFailing.replacingOccurrences(of: #""unknown""#, with: pausedToResume)

        guard case .success(let late) = playback.coverage(Array(#"{"logs":[\#(lateFailing)]}"#.utf8)),
              case .success(let known) = playback.coverage(Array(#"{"logs":[\#(explicit)]}"#.utf8)) else {
            return XCTFail("coverage refused")
        }

        XCTAssertEqual(String(decoding: late.json, as: UTF8.self), String(decoding: known.json, as: UTF8.self))
    }

    func testAReproOfALateLogRoutesFromTheUsualStartAndNamesNoInitial() throws {
        guard case .success(let json) = playback.repro(Array(lateFailing.utf8)) else { return XCTFail("repro refused") }
        let repro = try parsed(json)

        XCTAssertEqual(repro["/divergence/index"], "2")
        XCTAssertEqual(repro["/request/initial"], nil)
        XCTAssertEqual(repro["/path/0/before"], paused)
        XCTAssertEqual(repro["/verdict"], #""fail""#)
    }

    func testAReproOfAStreamedLateLogIsTheReproOfItsJSONForm() throws {
        // The same log as NDJSON: read twice, the second time from its reported start.
        let ndjson = #"{"initial":"unknown"}"# + "\n"
            + #"{"type":"interruptionEnded","shouldResume":true,"observed":{"isPlaying":true}}"# + "\n"
            + #"{"type":"userPlayed"}"# + "\n" + #"{"type":"userPaused","observed":{"isPlaying":true}}"# + "\n"

        guard case .success(let streamed) = playback.repro(Array(ndjson.utf8), ndjson: true),
              case .success(let whole) = playback.repro(Array(lateFailing.utf8)) else { return XCTFail("repro refused") }

        XCTAssertEqual(String(decoding: streamed, as: UTF8.self), String(decoding: whole, as: UTF8.self))
    }

    func testAReproOfAStreamedLateLogThatCannotBeReadAgainIsRefusedAtInitial() {
        let ndjson = #"{"initial":"unknown"}"# + "\n" + #"{"type":"userPaused","observed":{"isPlaying":true}}"#
        var offset = 0
        let bytes = Array(ndjson.utf8)
        let once = NDJSONChunks { receive in
            bytes[offset...].withUnsafeBytes(receive)
            offset = bytes.count
            return true
        }

        guard case .failure(let rejection)? = playback.repro(ndjson: once, again: nil) else {
            return XCTFail("expected a refusal")
        }

        XCTAssertEqual(rejection.problems.map(\.pointer), ["/initial"])
        XCTAssertEqual(rejection.line, 1)
    }
}
