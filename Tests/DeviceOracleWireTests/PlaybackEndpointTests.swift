import XCTest
import DeviceOracleJSON
@testable import DeviceOracleWire

/// playback.md on the wire: steps, sessions, observed, verdicts, diagnostics.
final class PlaybackEndpointTests: XCTestCase {
    private let playback = PlaybackRuleset.endpoint

    func testBenchmarkBodyGivesTheReferenceDecisions() throws {
        let body = #"{"initial":{"isPlaying":true,"resumeAfterInterruption":false},"events":[{"type":"interruptionBegan"},{"type":"userPaused"},{"type":"interruptionEnded","shouldResume":true},{"type":"outputDisconnected"}]}"#

        let result = try answer(playback, body)

        XCTAssertEqual(result["/final"], #"{"isPlaying":false,"resumeAfterInterruption":false}"#)
        XCTAssertEqual(result["/steps/0/after"], #"{"isPlaying":false,"resumeAfterInterruption":true}"#)
        XCTAssertEqual((0..<4).map { result["/steps/\($0)/action"] }, [#""pause""#, #""none""#, #""none""#, #""none""#])
        XCTAssertEqual(result.verdict, .unchecked)
    }

    func testStepShowsIndexEventBeforeAfterAndAction() throws {
        let result = try answer(playback, #"{"events":[{"type":"userPlayed","id":"log-17","at":5}]}"#)

        XCTAssertEqual(result["/steps/0"], #"{"index":0,"id":"log-17","event":{"type":"userPlayed"},"before":{"isPlaying":false,"resumeAfterInterruption":false},"after":{"isPlaying":true,"resumeAfterInterruption":false},"action":"play"}"#)
    }

    func testAnswerHasEveryMemberInAStableOrder() throws {
        let result = try answer(playback, #"{"events":[]}"#)

        XCTAssertEqual(result.text, #"{"ruleset":"playback/1","final":{"isPlaying":false,"resumeAfterInterruption":false},"steps":[],"verdict":"unchecked","mismatches":[],"diagnostics":[]}"#)
    }

    func testStepCarriesIdOnlyWhenTheEventHadOne() throws {
        let result = try answer(playback, #"{"events":[{"type":"userPlayed","id":null}]}"#)

        XCTAssertNil(result["/steps/0/id"])
    }

    func testCanonicalEventShowsOnlyItsOwnFields() throws {
        let result = try answer(playback, #"{"events":[{"type":"userPaused","deviceId":"A1","shouldResume":true,"extra":{"x":1}}]}"#)

        XCTAssertEqual(result["/steps/0/event"], #"{"type":"userPaused"}"#)
    }

    func testEqualRequestsGiveByteIdenticalAnswers() throws {
        let body = #"{"events":[{"type":"userPlayed","session":"b","observed":{"isPlaying":false}},{"type":"interruptionEnded","shouldResume":true,"at":3},{"type":"userPaused","at":1}],"observedFinal":{"isPlaying":true}}"#

        let first = try answer(playback, body), second = try answer(playback, body)

        XCTAssertEqual(first.text, second.text)
    }

    func testEmptyEventsAnswersTheInitialState() throws {
        let result = try answer(playback, #"{"initial":{"isPlaying":true},"events":[]}"#)

        XCTAssertEqual(result["/final"], #"{"isPlaying":true,"resumeAfterInterruption":false}"#)
        XCTAssertEqual(result["/steps"], "[]")
    }

    func testNullFieldsAreTheSameAsAbsentOnes() throws {
        let result = try answer(playback, #"{"initial":null,"events":[{"type":"userPlayed","at":null,"session":null,"observed":null}],"observedFinal":null}"#)

        XCTAssertEqual(result.verdict, .unchecked)
        XCTAssertNil(result["/sessions"])
    }

    // MARK: Route change reasons on the wire

    func testKnownReasonNumberIsShownByName() throws {
        let result = try answer(playback, #"{"initial":{"isPlaying":true},"events":[{"type":"routeChanged","reason":2}]}"#)

        XCTAssertEqual(result["/steps/0/event"], #"{"type":"routeChanged","reason":"oldDeviceUnavailable"}"#)
        XCTAssertEqual(result["/steps/0/action"], #""pause""#)
    }

    func testReasonNameIsAccepted() throws {
        let result = try answer(playback, #"{"initial":{"isPlaying":true},"events":[{"type":"routeChanged","reason":"oldDeviceUnavailable"}]}"#)

        XCTAssertEqual(result["/steps/0/action"], #""pause""#)
    }

    func testUnknownReasonIsShownAsGivenAndWarns() throws {
        let result = try answer(playback, #"{"initial":{"isPlaying":true},"events":[{"type":"routeChanged","reason":5},{"type":"routeChanged","reason":"headphonesGone"},{"type":"routeChanged","reason":2.5}]}"#)

        XCTAssertEqual(result["/steps/0/event"], #"{"type":"routeChanged","reason":5}"#)
        XCTAssertEqual(result["/steps/1/event"], #"{"type":"routeChanged","reason":"headphonesGone"}"#)
        XCTAssertEqual(result["/steps/2/event"], #"{"type":"routeChanged","reason":2.5}"#)
        XCTAssertEqual(result["/final/isPlaying"], "true")
        XCTAssertEqual(result["/diagnostics/0"], #"{"index":0,"severity":"warning","code":"unknownRouteChangeReason","message":"The route change reason is missing or not one AVAudioSession defines; the state is unchanged."}"#)
        XCTAssertEqual(result["/diagnostics/2/code"], #""unknownRouteChangeReason""#)
    }

    func testKnownReasonOtherThanOldDeviceUnavailableIsIgnoredWithInfo() throws {
        let result = try answer(playback, #"{"events":[{"type":"routeChanged","reason":1}]}"#)

        XCTAssertEqual(result["/steps/0/event"], #"{"type":"routeChanged","reason":"newDeviceAvailable"}"#)
        XCTAssertEqual(result["/diagnostics/0/code"], #""routeChangeIgnored""#)
        XCTAssertEqual(result["/diagnostics/0/severity"], #""info""#)
    }

    // MARK: Sessions

    func testEachSessionHasItsOwnStateFromInitial() throws {
        let body = #"{"initial":{"isPlaying":true},"events":[{"type":"userPaused","session":"tv"},{"type":"interruptionBegan","session":"car"},{"type":"userPlayed","session":"tv"}]}"#

        let result = try answer(playback, body)

        XCTAssertEqual(result["/steps/0/session"], #""tv""#)
        XCTAssertEqual(result["/steps/1/before"], #"{"isPlaying":true,"resumeAfterInterruption":false}"#)
        XCTAssertEqual(result["/sessions"], #"{"tv":{"isPlaying":true,"resumeAfterInterruption":false},"car":{"isPlaying":false,"resumeAfterInterruption":true}}"#)
    }

    func testFinalIsTheDefaultSessionAndListedOnlyWhenUsed() throws {
        let unnamed = try answer(playback, #"{"events":[{"type":"userPlayed","session":"a"}]}"#)
        let named = try answer(playback, #"{"events":[{"type":"userPlayed","session":"a"},{"type":"userPaused"},{"type":"userPlayed","session":"default"}]}"#)

        XCTAssertEqual(unnamed["/final"], #"{"isPlaying":false,"resumeAfterInterruption":false}"#)
        XCTAssertEqual(unnamed["/sessions"], #"{"a":{"isPlaying":true,"resumeAfterInterruption":false}}"#)
        XCTAssertEqual(named["/final"], #"{"isPlaying":true,"resumeAfterInterruption":false}"#)
        XCTAssertEqual(named["/sessions"], #"{"a":{"isPlaying":true,"resumeAfterInterruption":false},"default":{"isPlaying":true,"resumeAfterInterruption":false}}"#)
        XCTAssertNil(named["/steps/1/session"])
    }

    func testObservedFinalChecksTheDefaultSession() throws {
        let result = try answer(playback, #"{"events":[{"type":"userPlayed","session":"a"}],"observedFinal":{"isPlaying":false}}"#)

        XCTAssertEqual(result.verdict, .pass)
    }

    func testEndWithoutBeginIsPerSession() throws {
        let result = try answer(playback, #"{"events":[{"type":"interruptionBegan","session":"a"},{"type":"interruptionEnded","shouldResume":false,"session":"b"},{"type":"interruptionEnded","shouldResume":false,"session":"a"}]}"#)

        XCTAssertEqual(result["/diagnostics"], #"[{"index":1,"severity":"info","code":"endWithoutBegin","message":"An interruption ended without a matching interruptionBegan; the rule still applied."}]"#)
    }

    func testALogOfDistinctSessionsFindsThemInLinearWork() throws {
        let document = try JSONReader.parse(Array(("[" + (0..<40_000).map { "\"s\($0)\"" }.joined(separator: ",") + "]").utf8))
        func probes(_ count: Int) -> Int {
            var sessions = SessionMachines<Int>()
            for (index, name) in document.elements(document.root).prefix(count).enumerated() {
                XCTAssertEqual(sessions.index(of: name, in: document) { index }, index)
            }
            return sessions.probes
        }

        // Linear doubles; comparing each name with every earlier session would quadruple.
        XCTAssertLessThan(Double(probes(40_000)) / Double(probes(20_000)), 2.5)
    }

    func testUnnamedEventsAndTheSessionNamedDefaultShareOneMachine() throws {
        let document = try JSONReader.parse(Array(#"["a","default","a"]"#.utf8))
        let names = Array(document.elements(document.root))
        var sessions = SessionMachines<String>()

        let order = [sessions.index(of: names[0], in: document) { "a" }, sessions.index(of: nil, in: document) { "default" },
                     sessions.index(of: names[1], in: document) { "again" }, sessions.index(of: names[2], in: document) { "again" }]

        XCTAssertEqual(order, [0, 1, 1, 0])
        XCTAssertEqual(sessions.sessions.map { String(decoding: $0.name, as: UTF8.self) + "=" + $0.machine }, ["a=a", "default=default"])
        XCTAssertEqual(sessions.defaultIndex, 1)
    }

    func testALogThatNamesNoSessionHashesNothing() throws {
        let document = try JSONReader.parse(Array("[]".utf8))
        var sessions = SessionMachines<String>()

        let order = [sessions.index(of: nil, in: document) { "default" }, sessions.index(of: nil, in: document) { "again" }]

        XCTAssertEqual(order, [0, 0])
        XCTAssertEqual(sessions.probes, 0)
        XCTAssertEqual(sessions.sessions.map { String(decoding: $0.name, as: UTF8.self) + "=" + $0.machine }, ["default=default"])
    }

    func testSessionsNamedAfterUnnamedEventsComeAfterDefault() throws {
        let document = try JSONReader.parse(Array(#"["a","default","a"]"#.utf8))
        let names = Array(document.elements(document.root))
        var sessions = SessionMachines<String>()

        let order = [sessions.index(of: nil, in: document) { "default" }, sessions.index(of: names[0], in: document) { "a" },
                     sessions.index(of: names[1], in: document) { "again" }, sessions.index(of: nil, in: document) { "again" },
                     sessions.index(of: names[2], in: document) { "again" }]

        XCTAssertEqual(order, [0, 1, 0, 0, 1])
        XCTAssertEqual(sessions.sessions.map { String(decoding: $0.name, as: UTF8.self) + "=" + $0.machine }, ["default=default", "a=a"])
        XCTAssertEqual(sessions.defaultIndex, 0)
    }

    // MARK: Observed and verdict

    func testNoObservedIsUnchecked() throws {
        XCTAssertEqual(try answer(playback, #"{"events":[{"type":"userPlayed"}]}"#).verdict, .unchecked)
    }

    func testEmptyObservedCountsAsCheckedAndPasses() throws {
        XCTAssertEqual(try answer(playback, #"{"events":[{"type":"userPlayed","observed":{}}]}"#).verdict, .pass)
    }

    func testMatchingObservedPasses() throws {
        let result = try answer(playback, #"{"events":[{"type":"userPlayed","observed":{"isPlaying":true,"resumeAfterInterruption":false,"action":"play"}}],"observedFinal":{"isPlaying":true}}"#)

        XCTAssertEqual(result.verdict, .pass)
        XCTAssertEqual(result["/mismatches"], "[]")
    }

    func testEachDifferingFieldIsOneMismatch() throws {
        let result = try answer(playback, #"{"initial":{"isPlaying":true},"events":[{"type":"interruptionBegan"},{"type":"interruptionEnded","shouldResume":true,"observed":{"isPlaying":false,"action":"none","resumeAfterInterruption":false}}]}"#)

        XCTAssertEqual(result.verdict, .fail)
        XCTAssertEqual(result["/mismatches"], #"[{"index":1,"field":"isPlaying","expected":true,"observed":false},{"index":1,"field":"action","expected":"play","observed":"none"}]"#)
    }

    func testObservedValueOfTheWrongTypeIsAMismatch() throws {
        let result = try answer(playback, #"{"events":[{"type":"userPlayed","observed":{"isPlaying":"true","action":1}}]}"#)

        XCTAssertEqual(result["/mismatches"], #"[{"index":0,"field":"isPlaying","expected":true,"observed":"true"},{"index":0,"field":"action","expected":"play","observed":1}]"#)
    }

    func testFinalMismatchHasNullIndexAndPrefixedFieldAndComesLast() throws {
        let result = try answer(playback, #"{"events":[{"type":"userPlayed","observed":{"isPlaying":false}}],"observedFinal":{"isPlaying":false,"resumeAfterInterruption":false}}"#)

        XCTAssertEqual(result["/mismatches"], #"[{"index":0,"field":"isPlaying","expected":true,"observed":false},{"index":null,"field":"final.isPlaying","expected":true,"observed":false}]"#)
    }

    // MARK: outOfOrder

    func testEarlierAtThanThePreviousEventWarns() throws {
        let result = try answer(playback, #"{"events":[{"type":"userPlayed","at":10},{"type":"userPaused","at":10},{"type":"userPlayed","at":9},{"type":"userPaused"},{"type":"userPlayed","at":1}]}"#)

        XCTAssertEqual(result["/diagnostics/0/index"], "2")
        XCTAssertEqual(result["/diagnostics/0/code"], #""outOfOrder""#)
        XCTAssertEqual(result["/diagnostics/0/severity"], #""warning""#)
        XCTAssertNil(result["/diagnostics/1"])
        XCTAssertEqual(result["/steps/2/action"], #""play""#)
    }
}
