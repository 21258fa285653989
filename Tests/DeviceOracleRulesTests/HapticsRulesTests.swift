import XCTest
import DeviceOracleRules

/// One test per rule of `haptics.md`, part 2 (the confirmation flow), named after the behaviour.
final class HapticsFlowRulesTests: XCTestCase {
    // MARK: Initial state

    func testFlowStartsIdleWithAStoppedEngine() {
        let machine = HapticsMachine()

        XCTAssertEqual(machine.state, HapticsState(phase: .idle, engine: .stopped))
        XCTAssertEqual(machine.summary, HapticsSummary(saves: 0, failures: 0, hapticRequests: 0))
    }

    func testHardwareWithoutHapticsStartsUnsupported() {
        let machine = HapticsMachine(state: HapticsState(engine: .unsupported))

        XCTAssertEqual(machine.state, HapticsState(phase: .idle, engine: .unsupported))
    }

    func testInitialPhaseMayBeSet() {
        let machine = HapticsMachine(state: HapticsState(phase: .saving))

        XCTAssertEqual(machine.state, HapticsState(phase: .saving, engine: .stopped))
    }

    // MARK: saveTapped

    func testSaveTapStartsTheSaveWithoutAHaptic() {
        var machine = HapticsMachine()

        let decision = machine.apply(.saveTapped)

        XCTAssertEqual(decision, HapticsDecision(visible: .saving, haptic: .none, actions: [.startSave]))
        XCTAssertEqual(machine.state, HapticsState(phase: .saving, engine: .stopped))
    }

    func testSaveTapAfterAFinishedSaveStartsAnotherOne() {
        for finished in [SavePhase.saved, .failed] {
            var machine = HapticsMachine(state: HapticsState(phase: finished))

            let decision = machine.apply(.saveTapped)

            XCTAssertEqual(decision, HapticsDecision(visible: .saving, actions: [.startSave]), "\(finished)")
            XCTAssertEqual(machine.state.phase, .saving, "\(finished)")
        }
    }

    func testDuplicateTapWhileSavingPlaysNoExtraHaptic() {
        var machine = HapticsMachine()
        _ = machine.apply(.saveTapped)

        let duplicate = machine.apply(.saveTapped)
        let succeeded = machine.apply(.saveSucceeded)

        XCTAssertEqual(duplicate, HapticsDecision(visible: .saving, haptic: .none, actions: [],
                                                  diagnostics: [.duplicateTapBlocked]))
        XCTAssertEqual(succeeded.actions, [.startEngine, .playHaptic])
        XCTAssertEqual(machine.summary, HapticsSummary(saves: 1, failures: 0, hapticRequests: 1))
    }

    // MARK: saveSucceeded, saveFailed

    func testSuccessfulSaveStartsTheStoppedEngineAndPlaysOneHaptic() {
        var machine = HapticsMachine(state: HapticsState(phase: .saving))

        let decision = machine.apply(.saveSucceeded)

        XCTAssertEqual(decision, HapticsDecision(visible: .saved, haptic: .play, actions: [.startEngine, .playHaptic]))
        XCTAssertEqual(machine.state, HapticsState(phase: .saved, engine: .running))
    }

    func testSuccessfulSaveWithARunningEngineOnlyPlaysTheHaptic() {
        var machine = HapticsMachine()
        _ = machine.apply(.saveTapped)
        _ = machine.apply(.saveSucceeded)
        _ = machine.apply(.saveTapped)

        let decision = machine.apply(.saveSucceeded)

        XCTAssertEqual(decision, HapticsDecision(visible: .saved, haptic: .play, actions: [.playHaptic]))
        XCTAssertEqual(machine.state, HapticsState(phase: .saved, engine: .running))
    }

    func testUnsupportedDeviceShowsTheSameVisibleResult() {
        let events: [HapticsEvent] = [.saveTapped, .saveTapped, .saveSucceeded, .saveTapped, .saveFailed]
        var supported = HapticsMachine()
        var unsupported = HapticsMachine(state: HapticsState(engine: .unsupported))

        let supportedDecisions = events.map { supported.apply($0) }
        let unsupportedDecisions = events.map { unsupported.apply($0) }

        XCTAssertEqual(unsupportedDecisions.map(\.visible), supportedDecisions.map(\.visible))
        XCTAssertEqual(unsupportedDecisions.map(\.visible), [.saving, .saving, .saved, .saving, .error])
        XCTAssertEqual(unsupportedDecisions.map(\.haptic), [.none, .none, .none, .none, .none])
        XCTAssertEqual(unsupported.state.phase, supported.state.phase)
    }

    func testSuccessfulSaveOnAnUnsupportedDeviceCallsNoEngine() {
        var machine = HapticsMachine(state: HapticsState(phase: .saving, engine: false ? .stopped : .unsupported))

        let decision = machine.apply(.saveSucceeded)

        XCTAssertEqual(decision, HapticsDecision(visible: .saved, haptic: .none, actions: []))
        XCTAssertEqual(machine.state, HapticsState(phase: .saved, engine: .unsupported))
    }

    func testFailedSavePlaysNoHaptic() {
        var machine = HapticsMachine(state: HapticsState(phase: .saving))

        let decision = machine.apply(.saveFailed)

        XCTAssertEqual(decision, HapticsDecision(visible: .error, haptic: .none, actions: []))
        XCTAssertEqual(machine.state, HapticsState(phase: .failed, engine: .stopped))
    }

    func testCompletionWithoutASaveInFlightChangesNothingAndWarns() {
        for phase in [SavePhase.idle, .saved, .failed] {
            for completion in [HapticsEvent.saveSucceeded, .saveFailed] {
                var machine = HapticsMachine(state: HapticsState(phase: phase))

                let decision = machine.apply(completion)

                XCTAssertEqual(decision, HapticsDecision(visible: VisibleResult(phase), haptic: .none, actions: [],
                                                         diagnostics: [.unexpectedCompletion]), "\(completion) in \(phase)")
                XCTAssertEqual(machine.state, HapticsState(phase: phase, engine: .stopped), "\(completion) in \(phase)")
                XCTAssertEqual(machine.summary, HapticsSummary(), "\(completion) in \(phase)")
            }
        }
    }

    // MARK: Engine events

    func testEngineErrorKeepsTheSaveSuccessful() {
        var machine = HapticsMachine(state: HapticsState(phase: .saving))
        _ = machine.apply(.saveSucceeded)

        let decision = machine.apply(.hapticFailed)

        XCTAssertEqual(decision, HapticsDecision(visible: .saved, haptic: .none, actions: [], diagnostics: [.hapticError]))
        XCTAssertEqual(machine.state, HapticsState(phase: .saved, engine: .stopped))
    }

    func testEngineRestartsAfterAHapticError() {
        var machine = HapticsMachine(state: HapticsState(phase: .saving))
        _ = machine.apply(.saveSucceeded)
        _ = machine.apply(.hapticFailed)
        _ = machine.apply(.saveTapped)

        let decision = machine.apply(.saveSucceeded)

        XCTAssertEqual(decision.actions, [.startEngine, .playHaptic])
    }

    func testEngineRestartsAfterTheSystemStopsIt() {
        var machine = HapticsMachine(state: HapticsState(phase: .saving))
        _ = machine.apply(.saveSucceeded)
        _ = machine.apply(.saveTapped)

        let stopped = machine.apply(.engineStopped)
        let succeeded = machine.apply(.saveSucceeded)

        XCTAssertEqual(stopped, HapticsDecision(visible: .saving))
        XCTAssertEqual(succeeded.actions, [.startEngine, .playHaptic])
    }

    func testEngineRestartsAfterReset() {
        var machine = HapticsMachine(state: HapticsState(phase: .saving))
        _ = machine.apply(.saveSucceeded)
        _ = machine.apply(.saveTapped)

        let reset = machine.apply(.engineReset)
        let succeeded = machine.apply(.saveSucceeded)

        XCTAssertEqual(reset, HapticsDecision(visible: .saving))
        XCTAssertEqual(succeeded.actions, [.startEngine, .playHaptic])
    }

    func testEngineRestartsAfterTheAppWasBackgrounded() {
        var machine = HapticsMachine(state: HapticsState(phase: .saving))
        _ = machine.apply(.saveSucceeded)

        let backgrounded = machine.apply(.appBackgrounded)
        _ = machine.apply(.appForegrounded)
        _ = machine.apply(.saveTapped)
        let succeeded = machine.apply(.saveSucceeded)

        XCTAssertEqual(backgrounded, HapticsDecision(visible: .saved))
        XCTAssertEqual(succeeded.actions, [.startEngine, .playHaptic])
    }

    func testEngineEventsStopARunningEngineWithoutTouchingTheSave() {
        for event in [HapticsEvent.hapticFailed, .engineStopped, .engineReset, .appBackgrounded] {
            var machine = HapticsMachine(state: HapticsState(phase: .saving))
            _ = machine.apply(.saveSucceeded)

            _ = machine.apply(event)

            XCTAssertEqual(machine.state, HapticsState(phase: .saved, engine: .stopped), "\(event)")
        }
    }

    func testAppForegroundedChangesNothing() {
        var machine = HapticsMachine(state: HapticsState(phase: .saving))
        _ = machine.apply(.saveSucceeded)

        let decision = machine.apply(.appForegrounded)

        XCTAssertEqual(decision, HapticsDecision(visible: .saved, haptic: .none, actions: []))
        XCTAssertEqual(machine.state, HapticsState(phase: .saved, engine: .running))
    }

    func testUnsupportedEngineStaysUnsupportedThroughEngineEvents() {
        for event in [HapticsEvent.hapticFailed, .engineStopped, .engineReset, .appBackgrounded, .appForegrounded] {
            var machine = HapticsMachine(state: HapticsState(engine: .unsupported))

            _ = machine.apply(event)

            XCTAssertEqual(machine.state.engine, .unsupported, "\(event)")
        }
    }

    // MARK: Decision fields

    func testVisibleResultFollowsThePhase() {
        let visible = SavePhase.allCases.map { "\($0) → \(VisibleResult($0))" }

        XCTAssertEqual(visible, ["idle → none", "saving → saving", "saved → saved", "failed → error"])
    }

    // MARK: Summary

    func testSummaryCountsCompletedSavesFailuresAndHapticRequests() {
        var machine = HapticsMachine()
        let events: [HapticsEvent] = [.saveTapped, .saveSucceeded, .saveTapped, .saveFailed, .saveFailed,
                                      .saveTapped, .saveTapped, .saveSucceeded, .saveSucceeded]

        for event in events { _ = machine.apply(event) }

        XCTAssertEqual(machine.summary, HapticsSummary(saves: 2, failures: 1, hapticRequests: 2))
    }

    func testUnsupportedDeviceRequestsNoHaptics() {
        var machine = HapticsMachine(state: HapticsState(engine: .unsupported))

        for event in [HapticsEvent.saveTapped, .saveSucceeded, .saveTapped, .saveSucceeded] { _ = machine.apply(event) }

        XCTAssertEqual(machine.summary, HapticsSummary(saves: 2, failures: 0, hapticRequests: 0))
    }

    // MARK: Timing (Observed)

    func testHapticWithinTheToleranceOfTheVisibleResultIsOnTime() {
        let timing = HapticTiming()

        XCTAssertEqual(timing.toleranceMs, 50)
        XCTAssertTrue(timing.accepts(visibleAt: 1000, hapticAt: 1050))
        XCTAssertTrue(timing.accepts(visibleAt: 1050, hapticAt: 1000))
        XCTAssertFalse(timing.accepts(visibleAt: 1000, hapticAt: 1050.5))
    }

    func testTimingGapIsTheMagnitudeOfTheDifference() {
        XCTAssertEqual(HapticTiming.gap(visibleAt: 1200, hapticAt: 1000), 200)
        XCTAssertEqual(HapticTiming(toleranceMs: 0).accepts(visibleAt: 7, hapticAt: 7), true)
    }
}

/// One test per rule of `haptics.md`, part 1 (the pattern contract).
final class HapticPatternRulesTests: XCTestCase {
    private let contract = HapticPatternContract()
    private let canonical = HapticPatternEvent(eventType: "hapticTransient", relativeTime: 0,
                                               parameters: [.hapticIntensity: 0.65, .hapticSharpness: 0.35])

    func testCanonicalPatternIsOneTransientAtZeroWithDefaultParameters() {
        XCTAssertEqual(HapticPatternContract.canonicalPattern, [canonical])
        XCTAssertEqual(contract.expected, HapticParameters(hapticIntensity: 0.65, hapticSharpness: 0.35))
    }

    func testAnEventsParametersAreWrittenLikeADictionaryAndAbsentOnesAreNil() {
        let none: HapticEventParameters = [:]
        let sharpOnly: HapticEventParameters = [.hapticSharpness: 0.35]

        XCTAssertEqual(none, HapticEventParameters(hapticIntensity: nil, hapticSharpness: nil))
        XCTAssertEqual(sharpOnly[.hapticIntensity], nil)
        XCTAssertEqual(sharpOnly[.hapticSharpness], 0.35)
        XCTAssertEqual(contract.violations(of: [HapticPatternEvent(eventType: "hapticTransient", relativeTime: 0,
                                                                   parameters: sharpOnly)]),
                       [.parameterValue(event: 0, parameter: .hapticIntensity)])
    }

    func testCanonicalPatternKeepsTheContract() {
        XCTAssertEqual(contract.violations(of: [canonical]), [])
    }

    func testPatternWithoutExactlyOneEventBreaksCount() {
        XCTAssertEqual(contract.violations(of: []), [.count])
        XCTAssertEqual(contract.violations(of: [canonical, canonical]), [.count])
    }

    func testEventThatIsNotATransientBreaksEventType() {
        var continuous = canonical
        continuous.eventType = "hapticContinuous"
        var missing = canonical
        missing.eventType = nil

        XCTAssertEqual(contract.violations(of: [continuous]), [.eventType(event: 0)])
        XCTAssertEqual(contract.violations(of: [missing]), [.eventType(event: 0)])
    }

    func testCoreHapticsRawValuesAreAccepted() {
        var raw = canonical
        raw.eventType = "HapticTransient"

        XCTAssertEqual(contract.violations(of: [raw]), [])
        XCTAssertEqual(HapticParameterID(name: "HapticIntensity"), .hapticIntensity)
        XCTAssertEqual(HapticParameterID(name: "hapticSharpness"), .hapticSharpness)
        XCTAssertNil(HapticParameterID(name: "hapticintensity"))
    }

    func testEventThatDoesNotStartAtZeroBreaksRelativeTime() {
        var late = canonical
        late.relativeTime = 0.1
        var missing = canonical
        missing.relativeTime = nil

        XCTAssertEqual(contract.violations(of: [late]), [.relativeTime(event: 0)])
        XCTAssertEqual(contract.violations(of: [missing]), [.relativeTime(event: 0)])
    }

    func testParameterOutsideZeroToOneBreaksRangeAndValue() {
        var loud = canonical
        loud.parameters[.hapticIntensity] = 1.2
        var negative = canonical
        negative.parameters[.hapticSharpness] = -0.35

        XCTAssertEqual(contract.violations(of: [loud]), [
            .parameterRange(event: 0, parameter: .hapticIntensity),
            .parameterValue(event: 0, parameter: .hapticIntensity),
        ])
        XCTAssertEqual(contract.violations(of: [negative]), [
            .parameterRange(event: 0, parameter: .hapticSharpness),
            .parameterValue(event: 0, parameter: .hapticSharpness),
        ])
    }

    func testRangeIncludesItsBounds() {
        let tuned = HapticPatternContract(expected: HapticParameters(hapticIntensity: 1, hapticSharpness: 0))
        var extreme = canonical
        extreme.parameters[.hapticIntensity] = 1
        extreme.parameters[.hapticSharpness] = 0

        XCTAssertEqual(tuned.violations(of: [extreme]), [])
    }

    func testParameterFurtherThanTheToleranceBreaksParameterValue() {
        var soft = canonical
        soft.parameters[.hapticIntensity] = 0.6
        var blunt = canonical
        blunt.parameters[.hapticSharpness] = 0.3511

        XCTAssertEqual(contract.violations(of: [soft]),
                       [.parameterValue(event: 0, parameter: .hapticIntensity)])
        XCTAssertEqual(contract.violations(of: [blunt]),
                       [.parameterValue(event: 0, parameter: .hapticSharpness)])
    }

    func testParameterWithinTheToleranceKeepsTheContract() {
        // 0.651 − 0.65 is 0.0010000000000000009 in doubles: the 1e-9 slack lets it pass.
        var close = canonical
        close.parameters[.hapticIntensity] = 0.651
        close.parameters[.hapticSharpness] = 0.349

        XCTAssertEqual(contract.violations(of: [close]), [])
        XCTAssertEqual(HapticPatternContract.tolerance, 0.001 + 1e-9)
    }

    func testMissingParameterBreaksParameterValue() {
        var bare = canonical
        bare.parameters[.hapticIntensity] = nil
        bare.parameters[.hapticSharpness] = nil

        XCTAssertEqual(contract.violations(of: [bare]), [
            .parameterValue(event: 0, parameter: .hapticIntensity),
            .parameterValue(event: 0, parameter: .hapticSharpness),
        ])
    }

    func testTunedParametersBecomeTheContract() {
        let tuned = HapticPatternContract(expected: HapticParameters(hapticIntensity: 0.8, hapticSharpness: 0.35))
        var strong = canonical
        strong.parameters[.hapticIntensity] = 0.8

        XCTAssertEqual(tuned.violations(of: [strong]), [])
        XCTAssertEqual(tuned.violations(of: [canonical]),
                       [.parameterValue(event: 0, parameter: .hapticIntensity)])
    }

    func testEveryRuleIsCheckedOnEveryEventInRuleOrder() {
        let wrong = HapticPatternEvent(eventType: "hapticContinuous", relativeTime: 0.5,
                                       parameters: [.hapticIntensity: 2])

        let violations = contract.violations(of: [canonical, wrong])

        XCTAssertEqual(violations, [
            .count,
            .eventType(event: 1),
            .relativeTime(event: 1),
            .parameterRange(event: 1, parameter: .hapticIntensity),
            .parameterValue(event: 1, parameter: .hapticIntensity),
            .parameterValue(event: 1, parameter: .hapticSharpness),
        ])
    }
}
