import XCTest
import DeviceOracleJSON
import DeviceOracleRules
@testable import DeviceOracleWire

/// haptics.md on the wire: the pattern contract, the flow, observed, verdicts and every 422.
final class HapticsEndpointTests: XCTestCase {
    private let haptics = HapticsRuleset.endpoint
    private let canonicalPattern = #"[{"eventType":"hapticTransient","relativeTime":0,"parameters":{"hapticIntensity":0.65,"hapticSharpness":0.35}}]"#

    private func problems(_ body: String, file: StaticString = #filePath, line: UInt = #line) -> [String] {
        guard let rejection = rejection(haptics, body, file: file, line: line) else { return [] }
        XCTAssertEqual(rejection.kind, .invalidRequest, file: file, line: line)
        return rejection.problems.map { "\($0.pointer): \($0.detail)" }
    }

    // MARK: Pattern pointers

    func testNamesComeFromTheFieldTableInTheDocumentedOrder() {
        let tables = RulesetTables<HapticsRuleset>(ruleset: "haptics/1")

        XCTAssertEqual(tables.initialFields.spellings, ["phase"])
        XCTAssertEqual(tables.observedFields.spellings, ["phase", "visible", "haptic", "engine", "visibleAt", "hapticAt"])
        XCTAssertEqual(HapticsRuleset.finalFieldNames, ["phase", "engine", "hapticRequests"])
    }

    func testPatternViolationsPointFromTheGivenPatternPointerAndTheEventsPosition() throws {
        // Built from the caller's pointer and each event's position: finding every
        // event again from the root made a long pattern quadratic.
        let document = try JSONReader.parse(Array(#"{"x":[{"pattern":[{"relativeTime":1},{"eventType":"hapticTransient"}]}]}"#.utf8))
        let pattern = document.member(Array(document.elements(document.member(document.root, "x")!))[0], "pattern")!
        let events = Array(document.elements(pattern)).enumerated().map { GivenPatternEvent($1, index: $0, in: document) }

        let check = HapticsPatternCheck(patternPointer: { "/given" }, events: events, contract: HapticPatternContract(),
                                        document: document)

        XCTAssertEqual(check.violations.map(\.pointer),
                       ["/given", "/given/0/eventType", "/given/0/relativeTime", "/given/0/parameters", "/given/0/parameters",
                        "/given/1/relativeTime", "/given/1/parameters", "/given/1/parameters"])
    }

    func testPassingPatternNeverWorksOutItsPointer() throws {
        // Finding the pattern's pointer walks the document from its root: every
        // request whose pattern passes would pay for a pointer it never writes.
        let document = try JSONReader.parse(Array(#"[\#(canonicalPattern)]"#.utf8))
        let pattern = Array(document.elements(document.root))[0]
        let events = Array(document.elements(pattern)).enumerated().map { GivenPatternEvent($1, index: $0, in: document) }
        var asked = 0

        let check = HapticsPatternCheck(patternPointer: { asked += 1; return "/0" }, events: events,
                                        contract: HapticPatternContract(), document: document)

        XCTAssertTrue(check.passed)
        XCTAssertEqual(asked, 0)
    }

    // MARK: Answer shape

    func testPatternOnlyRequestAnswersEveryMemberInAStableOrder() throws {
        let result = try answer(haptics, #"{"pattern":\#(canonicalPattern)}"#)

        XCTAssertEqual(result.text, #"{"ruleset":"haptics/1","canonicalPattern":\#(canonicalPattern),"patternCheck":{"verdict":"pass","violations":[]},"final":{"phase":"idle","engine":"stopped"},"steps":[],"summary":{"saves":0,"failures":0,"hapticRequests":0},"verdict":"pass","mismatches":[],"diagnostics":[]}"#)
    }

    func testFlowOnlyRequestHasNoPatternCheck() throws {
        let result = try answer(haptics, #"{"events":[]}"#)

        XCTAssertEqual(result.text, #"{"ruleset":"haptics/1","canonicalPattern":\#(canonicalPattern),"final":{"phase":"idle","engine":"stopped"},"steps":[],"summary":{"saves":0,"failures":0,"hapticRequests":0},"verdict":"unchecked","mismatches":[],"diagnostics":[]}"#)
    }

    func testStepShowsEventBeforeAfterVisibleHapticAndActions() throws {
        let result = try answer(haptics, #"{"initial":{"phase":"saving"},"events":[{"type":"saveSucceeded","id":"log-3","at":12}]}"#)

        XCTAssertEqual(result["/steps/0"], #"{"index":0,"id":"log-3","event":{"type":"saveSucceeded"},"before":{"phase":"saving","engine":"stopped"},"after":{"phase":"saved","engine":"running"},"visible":"saved","haptic":"play","actions":["startEngine","playHaptic"]}"#)
    }

    func testEveryStepCarriesVisibleHapticAndActions() throws {
        let result = try answer(haptics, #"{"events":[{"type":"appForegrounded","id":null}]}"#)

        XCTAssertEqual(result["/steps/0"], #"{"index":0,"event":{"type":"appForegrounded"},"before":{"phase":"idle","engine":"stopped"},"after":{"phase":"idle","engine":"stopped"},"visible":"none","haptic":"none","actions":[]}"#)
    }

    func testCanonicalPatternStaysFixedWhenParametersAreTuned() throws {
        let result = try answer(haptics, #"{"pattern":[],"expectedParameters":{"hapticIntensity":0.9}}"#)

        XCTAssertEqual(result["/canonicalPattern"], canonicalPattern)
    }

    func testEqualRequestsGiveByteIdenticalAnswers() throws {
        let body = #"{"pattern":[{"eventType":"hapticContinuous","parameters":[{"parameterID":"HapticIntensity","value":2}]},{}],"events":[{"type":"saveTapped","at":5},{"type":"saveSucceeded","at":3,"observed":{"visibleAt":0,"hapticAt":99,"engine":"stopped"}}],"observedFinal":{"hapticRequests":0}}"#

        let first = try answer(haptics, body), second = try answer(haptics, body)

        XCTAssertEqual(first.text, second.text)
    }

    func testNullFieldsAreTheSameAsAbsentOnes() throws {
        let result = try answer(haptics, #"{"pattern":null,"expectedParameters":null,"supportsHaptics":null,"timingToleranceMs":null,"initial":null,"events":[{"type":"saveTapped","id":null,"at":null,"observed":null}],"observedFinal":null}"#)

        XCTAssertEqual(result.verdict, .unchecked)
        XCTAssertNil(result["/patternCheck"])
        XCTAssertEqual(result["/final"], #"{"phase":"saving","engine":"stopped"}"#)
    }

    func testPinnedRulesetIsAnswered() throws {
        XCTAssertEqual(try answer(haptics, #"{"ruleset":"haptics/1","events":[]}"#).verdict, .unchecked)
    }

    func testHapticsIsListedAfterPlaybackAndFoundByShortName() {
        XCTAssertEqual(Rulesets.all.map(\.name).prefix(2), ["playback/1", "haptics/1"])
        XCTAssertEqual(Rulesets.named("haptics")?.path, "/haptics/contract")
        XCTAssertEqual(Rulesets.named("haptics/1")?.path, "/haptics/contract")
    }

    // MARK: Pattern contract

    func testCanonicalPatternInTheObjectShapePasses() throws {
        let result = try answer(haptics, #"{"pattern":[{"eventType":"hapticTransient","relativeTime":0,"parameters":{"hapticIntensity":0.65,"hapticSharpness":0.35}}]}"#)

        XCTAssertEqual(result["/patternCheck"], #"{"verdict":"pass","violations":[]}"#)
        XCTAssertEqual(result.verdict, .pass)
    }

    func testParametersInTheCHHapticEventParameterShapeAreRead() throws {
        let result = try answer(haptics, #"{"pattern":[{"eventType":"hapticTransient","relativeTime":0,"parameters":[{"parameterID":"hapticIntensity","value":0.65},{"parameterID":"hapticSharpness","value":0.35}]}]}"#)

        XCTAssertEqual(result["/patternCheck"], #"{"verdict":"pass","violations":[]}"#)
    }

    func testCoreHapticsRawValuesAreAcceptedInBothShapes() throws {
        let objectShape = try answer(haptics, #"{"pattern":[{"eventType":"HapticTransient","relativeTime":0,"parameters":{"HapticIntensity":0.65,"HapticSharpness":0.35}}]}"#)
        let arrayShape = try answer(haptics, #"{"pattern":[{"eventType":"HapticTransient","relativeTime":0,"parameters":[{"parameterID":"HapticIntensity","value":0.65},{"parameterID":"HapticSharpness","value":0.35}]}]}"#)

        XCTAssertEqual(objectShape.verdict, .pass)
        XCTAssertEqual(arrayShape.verdict, .pass)
    }

    func testPatternWithTwoEventsFailsCountAtThePattern() throws {
        let result = try answer(haptics, #"{"pattern":[{"eventType":"hapticTransient","relativeTime":0,"parameters":{"hapticIntensity":0.65,"hapticSharpness":0.35}},{"eventType":"hapticTransient","relativeTime":0,"parameters":{"hapticIntensity":0.65,"hapticSharpness":0.35}}]}"#)

        XCTAssertEqual(result["/patternCheck"], #"{"verdict":"fail","violations":[{"rule":"count","pointer":"/pattern","expected":1,"observed":2}]}"#)
        XCTAssertEqual(result.verdict, .fail)
        XCTAssertEqual(result["/mismatches"], "[]")
    }

    func testEmptyPatternFailsCount() throws {
        let result = try answer(haptics, #"{"pattern":[]}"#)

        XCTAssertEqual(result["/patternCheck/violations"], #"[{"rule":"count","pointer":"/pattern","expected":1,"observed":0}]"#)
    }

    func testOtherEventTypeFailsEventTypeWithTheValueAsGiven() throws {
        let result = try answer(haptics, #"{"pattern":[{"eventType":"hapticContinuous","relativeTime":0,"parameters":{"hapticIntensity":0.65,"hapticSharpness":0.35}}]}"#)

        XCTAssertEqual(result["/patternCheck/violations"], #"[{"rule":"eventType","pointer":"/pattern/0/eventType","expected":"hapticTransient","observed":"hapticContinuous"}]"#)
    }

    func testLateEventFailsRelativeTime() throws {
        let result = try answer(haptics, #"{"pattern":[{"eventType":"hapticTransient","relativeTime":0.05,"parameters":{"hapticIntensity":0.65,"hapticSharpness":0.35}}]}"#)

        XCTAssertEqual(result["/patternCheck/violations"], #"[{"rule":"relativeTime","pointer":"/pattern/0/relativeTime","expected":0,"observed":0.05}]"#)
    }

    func testMissingMembersAreViolationsWithObservedNullWhereTheyBelong() throws {
        let result = try answer(haptics, #"{"pattern":[{"eventType":null}]}"#)

        XCTAssertEqual(result["/patternCheck/violations"], #"[{"rule":"eventType","pointer":"/pattern/0/eventType","expected":"hapticTransient","observed":null},{"rule":"relativeTime","pointer":"/pattern/0/relativeTime","expected":0,"observed":null},{"rule":"parameterValue","pointer":"/pattern/0/parameters","expected":0.65,"observed":null},{"rule":"parameterValue","pointer":"/pattern/0/parameters","expected":0.35,"observed":null}]"#)
    }

    func testValuesOfAnotherTypeAreViolationsWithTheValueAsObserved() throws {
        let result = try answer(haptics, #"{"pattern":[{"eventType":1,"relativeTime":"0","parameters":{"hapticIntensity":"loud","hapticSharpness":0.35}}]}"#)

        XCTAssertEqual(result["/patternCheck/violations"], #"[{"rule":"eventType","pointer":"/pattern/0/eventType","expected":"hapticTransient","observed":1},{"rule":"relativeTime","pointer":"/pattern/0/relativeTime","expected":0,"observed":"0"},{"rule":"parameterValue","pointer":"/pattern/0/parameters/hapticIntensity","expected":0.65,"observed":"loud"}]"#)
    }

    func testParameterOutsideZeroToOneFailsRangeAndValueAtTheParameter() throws {
        let result = try answer(haptics, #"{"pattern":[{"eventType":"hapticTransient","relativeTime":0,"parameters":{"HapticIntensity":1.3,"hapticSharpness":0.35}}]}"#)

        XCTAssertEqual(result["/patternCheck/violations"], #"[{"rule":"parameterRange","pointer":"/pattern/0/parameters/HapticIntensity","expected":[0,1],"observed":1.3},{"rule":"parameterValue","pointer":"/pattern/0/parameters/HapticIntensity","expected":0.65,"observed":1.3}]"#)
    }

    func testArrayShapeViolationPointsAtTheEntrysValue() throws {
        let result = try answer(haptics, #"{"pattern":[{"eventType":"hapticTransient","relativeTime":0,"parameters":[{"parameterID":"hapticIntensity","value":0.65},{"parameterID":"hapticSharpness","value":-0.1}]}]}"#)

        XCTAssertEqual(result["/patternCheck/violations"], #"[{"rule":"parameterRange","pointer":"/pattern/0/parameters/1/value","expected":[0,1],"observed":-0.1},{"rule":"parameterValue","pointer":"/pattern/0/parameters/1/value","expected":0.35,"observed":-0.1}]"#)
    }

    func testMissingParameterPointsAtTheEventsParameters() throws {
        let result = try answer(haptics, #"{"pattern":[{"eventType":"hapticTransient","relativeTime":0,"parameters":[{"parameterID":"hapticIntensity","value":0.65}]}]}"#)

        XCTAssertEqual(result["/patternCheck/violations"], #"[{"rule":"parameterValue","pointer":"/pattern/0/parameters","expected":0.35,"observed":null}]"#)
    }

    func testUnknownParameterIDsAndMalformedEntriesAreIgnored() throws {
        let result = try answer(haptics, #"{"pattern":[{"eventType":"hapticTransient","relativeTime":0,"parameters":[{"parameterID":"attackTime","value":5},7,{"parameterID":3,"value":1},{"parameterID":"hapticIntensity"},{"parameterID":"hapticIntensity","value":0.65},{"parameterID":"hapticSharpness","value":0.35},{"parameterID":"hapticSharpness","value":null}]}]}"#)

        XCTAssertEqual(result["/patternCheck"], #"{"verdict":"pass","violations":[]}"#)
    }

    func testLastOfARepeatedParameterCounts() throws {
        let arrayShape = try answer(haptics, #"{"pattern":[{"eventType":"hapticTransient","relativeTime":0,"parameters":[{"parameterID":"hapticIntensity","value":0.65},{"parameterID":"hapticSharpness","value":0.35},{"parameterID":"HapticIntensity","value":0.9}]}]}"#)
        let objectShape = try answer(haptics, #"{"pattern":[{"eventType":"hapticTransient","relativeTime":0,"parameters":{"hapticIntensity":0.1,"hapticSharpness":0.35,"HapticIntensity":0.65}}]}"#)

        XCTAssertEqual(arrayShape["/patternCheck/violations"], #"[{"rule":"parameterValue","pointer":"/pattern/0/parameters/2/value","expected":0.65,"observed":0.9}]"#)
        XCTAssertEqual(objectShape["/patternCheck/verdict"], #""pass""#)
    }

    func testParametersThatAreNeitherObjectNorArrayAreMissing() throws {
        let result = try answer(haptics, #"{"pattern":[{"eventType":"hapticTransient","relativeTime":0,"parameters":"default"}]}"#)

        XCTAssertEqual(result["/patternCheck/violations"], #"[{"rule":"parameterValue","pointer":"/pattern/0/parameters","expected":0.65,"observed":null},{"rule":"parameterValue","pointer":"/pattern/0/parameters","expected":0.35,"observed":null}]"#)
    }

    func testValueWithinTheToleranceOfTheContractPasses() throws {
        let result = try answer(haptics, #"{"pattern":[{"eventType":"hapticTransient","relativeTime":0,"parameters":{"hapticIntensity":0.651,"hapticSharpness":0.3489}}]}"#)

        XCTAssertEqual(result["/patternCheck/violations"], #"[{"rule":"parameterValue","pointer":"/pattern/0/parameters/hapticSharpness","expected":0.35,"observed":0.3489}]"#)
    }

    func testExpectedParametersOverrideTheDefaults() throws {
        let body = #"{"pattern":[{"eventType":"hapticTransient","relativeTime":0,"parameters":{"hapticIntensity":0.65,"hapticSharpness":0.5}}],"expectedParameters":{"hapticIntensity":0.8,"hapticSharpness":0.5}}"#

        let result = try answer(haptics, body)

        XCTAssertEqual(result["/patternCheck/violations"], #"[{"rule":"parameterValue","pointer":"/pattern/0/parameters/hapticIntensity","expected":0.8,"observed":0.65}]"#)
    }

    func testExpectedParametersMayNameOneValueAndTheOtherKeepsItsDefault() throws {
        let body = #"{"pattern":[{"eventType":"hapticTransient","relativeTime":0,"parameters":{"hapticIntensity":0.65,"hapticSharpness":0.35}}],"expectedParameters":{"HapticSharpness":0.2}}"#

        let result = try answer(haptics, body)

        XCTAssertEqual(result["/patternCheck/violations"], #"[{"rule":"parameterValue","pointer":"/pattern/0/parameters/hapticSharpness","expected":0.2,"observed":0.35}]"#)
    }

    func testEveryRuleIsCheckedOnEveryEventInOrder() throws {
        let result = try answer(haptics, #"{"pattern":[{"eventType":"hapticTransient","relativeTime":0,"parameters":{"hapticIntensity":0.65,"hapticSharpness":0.35}},{"eventType":"hapticContinuous","relativeTime":0.1,"parameters":{"hapticIntensity":1.5}}]}"#)

        XCTAssertEqual(result["/patternCheck/violations"], #"[{"rule":"count","pointer":"/pattern","expected":1,"observed":2},{"rule":"eventType","pointer":"/pattern/1/eventType","expected":"hapticTransient","observed":"hapticContinuous"},{"rule":"relativeTime","pointer":"/pattern/1/relativeTime","expected":0,"observed":0.1},{"rule":"parameterRange","pointer":"/pattern/1/parameters/hapticIntensity","expected":[0,1],"observed":1.5},{"rule":"parameterValue","pointer":"/pattern/1/parameters/hapticIntensity","expected":0.65,"observed":1.5},{"rule":"parameterValue","pointer":"/pattern/1/parameters","expected":0.35,"observed":null}]"#)
    }

    // MARK: Flow

    func testSuccessfulSavePlaysOneHapticAfterTheSaveNotOnTheTap() throws {
        let result = try answer(haptics, #"{"events":[{"type":"saveTapped"},{"type":"saveSucceeded"}]}"#)

        XCTAssertEqual(result["/steps/0/haptic"], #""none""#)
        XCTAssertEqual(result["/steps/0/actions"], #"["startSave"]"#)
        XCTAssertEqual(result["/steps/1/haptic"], #""play""#)
        XCTAssertEqual(result["/steps/1/actions"], #"["startEngine","playHaptic"]"#)
        XCTAssertEqual(result["/summary"], #"{"saves":1,"failures":0,"hapticRequests":1}"#)
    }

    func testFailedSavePlaysNoHapticAndShowsTheError() throws {
        let result = try answer(haptics, #"{"events":[{"type":"saveTapped"},{"type":"saveFailed"}]}"#)

        XCTAssertEqual(result["/steps/1/visible"], #""error""#)
        XCTAssertEqual(result["/steps/1/haptic"], #""none""#)
        XCTAssertEqual(result["/steps/1/actions"], "[]")
        XCTAssertEqual(result["/summary"], #"{"saves":0,"failures":1,"hapticRequests":0}"#)
    }

    func testUnsupportedDeviceShowsTheSameVisibleResults() throws {
        let events = #""events":[{"type":"saveTapped"},{"type":"saveTapped"},{"type":"saveSucceeded"},{"type":"engineReset"}]"#
        let supported = try answer(haptics, #"{\#(events)}"#)
        let unsupported = try answer(haptics, #"{"supportsHaptics":false,\#(events)}"#)

        XCTAssertEqual((0..<4).map { unsupported["/steps/\($0)/visible"] }, (0..<4).map { supported["/steps/\($0)/visible"] })
        XCTAssertEqual(unsupported["/steps/2"], #"{"index":2,"event":{"type":"saveSucceeded"},"before":{"phase":"saving","engine":"unsupported"},"after":{"phase":"saved","engine":"unsupported"},"visible":"saved","haptic":"none","actions":[]}"#)
        XCTAssertEqual(unsupported["/final"], #"{"phase":"saved","engine":"unsupported"}"#)
        XCTAssertEqual(unsupported["/summary"], #"{"saves":1,"failures":0,"hapticRequests":0}"#)
    }

    func testInitialPhaseSetsWhereTheFlowStarts() throws {
        let result = try answer(haptics, #"{"initial":{"phase":"failed"},"events":[]}"#)

        XCTAssertEqual(result["/final"], #"{"phase":"failed","engine":"stopped"}"#)
    }

    func testRuleDiagnosticsCarryTheirCodeAndSeverity() throws {
        let result = try answer(haptics, #"{"events":[{"type":"saveTapped"},{"type":"saveTapped"},{"type":"saveSucceeded"},{"type":"hapticFailed"},{"type":"saveFailed"}]}"#)

        XCTAssertEqual(result["/diagnostics"], #"[{"index":1,"severity":"info","code":"duplicateTapBlocked","message":"A save tap while a save is in flight is blocked: no second save, and no extra haptic."},{"index":3,"severity":"info","code":"hapticError","message":"The haptic engine failed: it is stopped and started again before the next play; the save result stays as it was."},{"index":4,"severity":"warning","code":"unexpectedCompletion","message":"A save completed while no save was in flight; the state is unchanged and no haptic plays."}]"#)
        XCTAssertEqual(result["/final"], #"{"phase":"saved","engine":"stopped"}"#)
    }

    func testEarlierAtThanThePreviousEventWarns() throws {
        let result = try answer(haptics, #"{"events":[{"type":"saveTapped","at":10},{"type":"saveSucceeded","at":4}]}"#)

        XCTAssertEqual(result["/diagnostics/0/index"], "1")
        XCTAssertEqual(result["/diagnostics/0/code"], #""outOfOrder""#)
        XCTAssertEqual(result["/steps/1/haptic"], #""play""#)
    }

    // MARK: Observed

    func testMatchingObservedPasses() throws {
        let result = try answer(haptics, #"{"events":[{"type":"saveTapped","observed":{"phase":"saving","visible":"saving","haptic":"none","engine":"stopped"}},{"type":"saveSucceeded","observed":{"phase":"saved","visible":"saved","haptic":"play","engine":"running","visibleAt":1000,"hapticAt":1020}}],"observedFinal":{"phase":"saved","engine":"running","hapticRequests":1}}"#)

        XCTAssertEqual(result.verdict, .pass)
        XCTAssertEqual(result["/mismatches"], "[]")
    }

    func testFailedSaveThatPlayedAHapticFails() throws {
        let result = try answer(haptics, #"{"events":[{"type":"saveTapped"},{"type":"saveFailed","observed":{"visible":"error","haptic":"play"}}],"observedFinal":{"hapticRequests":1}}"#)

        XCTAssertEqual(result.verdict, .fail)
        XCTAssertEqual(result["/mismatches"], #"[{"index":1,"field":"haptic","expected":"none","observed":"play"},{"index":null,"field":"final.hapticRequests","expected":0,"observed":1}]"#)
    }

    func testEachDifferingFieldIsOneMismatchInTheOrderObservedNamesThem() throws {
        let result = try answer(haptics, #"{"events":[{"type":"saveTapped","observed":{"engine":"running","phase":"idle","visible":"none"}}]}"#)

        XCTAssertEqual(result["/mismatches"], #"[{"index":0,"field":"engine","expected":"stopped","observed":"running"},{"index":0,"field":"phase","expected":"saving","observed":"idle"},{"index":0,"field":"visible","expected":"saving","observed":"none"}]"#)
    }

    func testObservedValueOfTheWrongTypeIsAMismatch() throws {
        let result = try answer(haptics, #"{"events":[{"type":"saveTapped","observed":{"haptic":false}}],"observedFinal":{"hapticRequests":"0"}}"#)

        XCTAssertEqual(result["/mismatches"], #"[{"index":0,"field":"haptic","expected":"none","observed":false},{"index":null,"field":"final.hapticRequests","expected":0,"observed":"0"}]"#)
    }

    func testHapticFurtherThanTheToleranceFromTheVisibleResultIsATimingMismatch() throws {
        let result = try answer(haptics, #"{"initial":{"phase":"saving"},"events":[{"type":"saveSucceeded","observed":{"hapticAt":1080,"haptic":"none","visibleAt":1000}}]}"#)

        XCTAssertEqual(result["/mismatches"], #"[{"index":0,"field":"haptic","expected":"play","observed":"none"},{"index":0,"field":"timing","expected":50,"observed":80}]"#)
    }

    func testHapticAtTheToleranceOrBeforeTheVisibleResultIsOnTime() throws {
        let result = try answer(haptics, #"{"events":[{"type":"saveTapped"},{"type":"saveSucceeded","observed":{"visibleAt":1000,"hapticAt":1050}},{"type":"saveTapped"},{"type":"saveSucceeded","observed":{"visibleAt":1000,"hapticAt":960}}]}"#)

        XCTAssertEqual(result.verdict, .pass)
    }

    func testTimingToleranceMsSetsTheTolerance() throws {
        let result = try answer(haptics, #"{"timingToleranceMs":10.5,"initial":{"phase":"saving"},"events":[{"type":"saveSucceeded","observed":{"visibleAt":1000,"hapticAt":988}}]}"#)

        XCTAssertEqual(result["/mismatches"], #"[{"index":0,"field":"timing","expected":10.5,"observed":12}]"#)
    }

    func testTimesOnAStepThatPlaysNoHapticAreIgnored() throws {
        let result = try answer(haptics, #"{"events":[{"type":"saveTapped","observed":{"visibleAt":0,"hapticAt":5000}},{"type":"saveFailed","observed":{"visibleAt":0,"hapticAt":"late"}}]}"#)

        XCTAssertEqual(result.verdict, .pass)
    }

    func testOneTimeAloneIsNotChecked() throws {
        let result = try answer(haptics, #"{"initial":{"phase":"saving"},"events":[{"type":"saveSucceeded","observed":{"hapticAt":5000}}]}"#)

        XCTAssertEqual(result.verdict, .pass)
    }

    func testTimesThatAreNotNumbersCannotBeMeasured() throws {
        let result = try answer(haptics, #"{"initial":{"phase":"saving"},"events":[{"type":"saveSucceeded","observed":{"visibleAt":"1000","hapticAt":1000}}]}"#)

        XCTAssertEqual(result["/mismatches"], #"[{"index":0,"field":"timing","expected":50,"observed":null,"detail":"'visibleAt' and 'hapticAt' must both be numbers (ms) to measure the timing"}]"#)
    }

    func testGapBeyondTheRangeOfADoubleIsAMismatchWithoutANumber() throws {
        let result = try answer(haptics, #"{"initial":{"phase":"saving"},"events":[{"type":"saveSucceeded","observed":{"visibleAt":-1e308,"hapticAt":1e308}}]}"#)

        XCTAssertEqual(result["/mismatches"], #"[{"index":0,"field":"timing","expected":50,"observed":null,"detail":"|hapticAt - visibleAt| is beyond the range of a double"}]"#)
    }

    func testObservedFinalComparesPhaseEngineAndHapticRequests() throws {
        let result = try answer(haptics, #"{"events":[{"type":"saveTapped"},{"type":"saveSucceeded"},{"type":"appBackgrounded"}],"observedFinal":{"phase":"saved","engine":"running","hapticRequests":1}}"#)

        XCTAssertEqual(result["/mismatches"], #"[{"index":null,"field":"final.engine","expected":"stopped","observed":"running"}]"#)
    }

    // MARK: Verdict

    func testFlowWithoutObservedIsUnchecked() throws {
        XCTAssertEqual(try answer(haptics, #"{"events":[{"type":"saveTapped"}]}"#).verdict, .unchecked)
    }

    func testEmptyObservedCountsAsCheckedAndPasses() throws {
        XCTAssertEqual(try answer(haptics, #"{"events":[{"type":"saveTapped","observed":{}}]}"#).verdict, .pass)
    }

    func testPatternOnlyRequestIsPassOrFailNeverUnchecked() throws {
        XCTAssertEqual(try answer(haptics, #"{"pattern":\#(canonicalPattern)}"#).verdict, .pass)
        XCTAssertEqual(try answer(haptics, #"{"pattern":[]}"#).verdict, .fail)
    }

    func testFailedPatternCheckFailsAnOtherwiseUncheckedFlow() throws {
        let result = try answer(haptics, #"{"pattern":[],"events":[{"type":"saveTapped"}]}"#)

        XCTAssertEqual(result.verdict, .fail)
        XCTAssertEqual(result["/verdict"], #""fail""#)
        XCTAssertEqual(result["/mismatches"], "[]")
    }

    func testMismatchFailsDespiteAPassingPattern() throws {
        let result = try answer(haptics, #"{"pattern":\#(canonicalPattern),"events":[{"type":"saveTapped","observed":{"phase":"idle"}}]}"#)

        XCTAssertEqual(result["/patternCheck/verdict"], #""pass""#)
        XCTAssertEqual(result.verdict, .fail)
    }

    // MARK: 422

    func testRequestWithNeitherPatternNorEventsIsRejected() {
        let detail = "/events: a request needs 'pattern' (the pattern contract), 'events' (the flow) or both"
        XCTAssertEqual(problems("{}"), [detail])
        XCTAssertEqual(problems(#"{"pattern":null,"events":null,"observedFinal":{}}"#), [detail])
    }

    func testUnknownEventTypeHasADidYouMean() {
        XCTAssertEqual(problems(#"{"events":[{"type":"saveTapped"},{"type":"saveSucceded"},{"type":"explode"}]}"#), [
            "/events/1/type: unknown event type 'saveSucceded'; did you mean 'saveSucceeded'?",
            "/events/2/type: unknown event type 'explode'",
        ])
    }

    func testEventNeedsAStringType() {
        XCTAssertEqual(problems(#"{"events":[{"id":"x"},{"type":7},"saveTapped"]}"#), [
            "/events/0/type: required string is missing",
            "/events/1/type: expected a string, got a number",
            "/events/2: expected an object, got a string",
        ])
        XCTAssertEqual(problems(#"{"events":{}}"#), ["/events: expected an array, got an object"])
    }

    func testSharedEventMembersHaveTheirTypes() {
        XCTAssertEqual(problems(#"{"events":[{"type":"saveTapped","id":7,"at":"noon","observed":[]}]}"#), [
            "/events/0/id: expected a string, got a number",
            "/events/0/at: expected a number, got a string",
            "/events/0/observed: expected an object, got an array",
        ])
    }

    func testUnknownObservedFieldHasADidYouMean() {
        XCTAssertEqual(problems(#"{"events":[{"type":"saveTapped","observed":{"visibleAT":1,"actions":[]}}]}"#), [
            "/events/0/observed/visibleAT: unknown observed field 'visibleAT'; did you mean 'visibleAt'?",
            "/events/0/observed/actions: unknown observed field 'actions'",
        ])
    }

    func testObservedFinalNamesOnlyPhaseEngineAndHapticRequests() {
        XCTAssertEqual(problems(#"{"events":[],"observedFinal":{"visible":"saved","hapticRequest":1}}"#), [
            "/observedFinal/visible: unknown observedFinal field 'visible'",
            "/observedFinal/hapticRequest: unknown observedFinal field 'hapticRequest'; did you mean 'hapticRequests'?",
        ])
    }

    func testPatternMustBeAnArrayOfObjects() {
        XCTAssertEqual(problems(#"{"pattern":{"eventType":"hapticTransient"}}"#), ["/pattern: expected an array, got an object"])
        XCTAssertEqual(problems(#"{"pattern":[{},null,"hapticTransient"]}"#), [
            "/pattern/1: expected an object, got null",
            "/pattern/2: expected an object, got a string",
        ])
    }

    func testExpectedParametersNameOnlyIntensityAndSharpness() {
        XCTAssertEqual(problems(#"{"pattern":[],"expectedParameters":{"hapticIntensty":0.5,"attackTime":0}}"#), [
            "/expectedParameters/hapticIntensty: unknown expectedParameters field 'hapticIntensty'; did you mean 'hapticIntensity'?",
            "/expectedParameters/attackTime: unknown expectedParameters field 'attackTime'",
        ])
        XCTAssertEqual(problems(#"{"pattern":[],"expectedParameters":[0.65,0.35]}"#),
                       ["/expectedParameters: expected an object, got an array"])
    }

    func testExpectedParameterIsANumberFromZeroToOne() {
        XCTAssertEqual(problems(#"{"pattern":[],"expectedParameters":{"hapticIntensity":"0.8","hapticSharpness":1.01}}"#), [
            "/expectedParameters/hapticIntensity: expected a number, got a string",
            "/expectedParameters/hapticSharpness: expected a number from 0 to 1",
        ])
    }

    func testTimingToleranceIsANumberThatIsNotNegative() {
        XCTAssertEqual(problems(#"{"events":[],"timingToleranceMs":-1}"#),
                       ["/timingToleranceMs: expected a number that is not negative"])
        XCTAssertEqual(problems(#"{"events":[],"timingToleranceMs":"50"}"#),
                       ["/timingToleranceMs: expected a number, got a string"])
        XCTAssertEqual(problems(#"{"events":[],"timingToleranceMs":true}"#),
                       ["/timingToleranceMs: expected a number, got a boolean"])
    }

    func testSupportsHapticsIsABoolean() {
        XCTAssertEqual(problems(#"{"events":[],"supportsHaptics":"no"}"#), ["/supportsHaptics: expected a boolean, got a string"])
    }

    func testInitialMayNameOnlyPhase() {
        XCTAssertEqual(problems(#"{"events":[],"initial":{"phase":"sving","engine":"running"}}"#), [
            "/initial/phase: unknown phase 'sving'; did you mean 'saving'?",
            "/initial/engine: unknown initial field 'engine'",
        ])
        XCTAssertEqual(problems(#"{"events":[],"initial":{"phase":1}}"#), ["/initial/phase: expected a string, got a number"])
        // A string is "unknown" (late-start.md) or nothing.
        XCTAssertEqual(problems(#"{"events":[],"initial":"saving"}"#),
                       [#"/initial: 'initial' is a state object or "unknown", not 'saving'"#])
    }

    func testUnknownRulesetVersionIsRejectedAtRuleset() {
        XCTAssertEqual(problems(#"{"ruleset":"haptics/2","events":[]}"#),
                       ["/ruleset: ruleset 'haptics/2' is not served here; this endpoint serves 'haptics/1'"])
    }

    func testEveryProblemIsListedInDocumentOrder() throws {
        let body = #"{"pattern":5,"events":[{"type":"saveTaped","observed":{"hptic":"play"}}],"initial":{"engine":"stopped"},"timingToleranceMs":-5}"#

        let rejection = try XCTUnwrap(rejection(haptics, body))

        XCTAssertEqual(rejection.detail, "5 problems in the request body")
        XCTAssertEqual(rejection.problems.map(\.pointer), ["/pattern", "/events/0/type", "/events/0/observed/hptic",
                                                           "/initial/engine", "/timingToleranceMs"])
    }
}
