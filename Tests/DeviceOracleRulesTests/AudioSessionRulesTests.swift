import XCTest
import DeviceOracleRules

/// One test per row and rule of `audio-session.md`, named after the behaviour.
final class AudioSessionRulesTests: XCTestCase {
    /// A launched game in the foreground with an active session.
    private let playing = AudioSessionState(foreground: true, active: true, categorySet: true, observing: true)

    // MARK: Configuration and initial state

    func testSessionStartsInTheBackgroundWithNothingSetUp() {
        let machine = AudioSessionMachine()

        XCTAssertEqual(machine.state, AudioSessionState(foreground: false, active: false, interrupted: false,
                                                        categorySet: false, observing: false, deactivationPending: false))
        XCTAssertEqual(machine.category, .ambient)
    }

    func testOnlyAmbientSharesTheSessionWithOtherApps() {
        XCTAssertEqual(AudioSessionCategory.allCases.map(\.rawValue), ["ambient", "soloAmbient", "playback"])
        XCTAssertEqual(AudioSessionCategory.allCases.map(\.isExclusive), [false, true, true])
    }

    // MARK: launched

    func testLaunchSetsTheCategoryObservesAndActivates() {
        var machine = AudioSessionMachine()

        let decision = machine.apply(.launched)

        XCTAssertEqual(decision, AudioSessionDecision(actions: [.setCategory, .addObservers, .activate]))
        XCTAssertEqual(machine.state, playing)
    }

    func testLaunchDuringAnInterruptionDoesNotActivate() {
        var machine = AudioSessionMachine(state: AudioSessionState(interrupted: true))

        let decision = machine.apply(.launched)

        XCTAssertEqual(decision, AudioSessionDecision(actions: [.setCategory, .addObservers]))
        XCTAssertEqual(machine.state, AudioSessionState(foreground: true, active: false, interrupted: true,
                                                        categorySet: true, observing: true))
    }

    func testLaunchDuringAnInterruptionLeavesAnActiveFlagAsGiven() {
        var machine = AudioSessionMachine(state: AudioSessionState(active: true, interrupted: true))

        let decision = machine.apply(.launched)

        XCTAssertEqual(decision.actions, [.setCategory, .addObservers])
        XCTAssertTrue(machine.state.active)
    }

    func testExclusiveCategoryWarnsOnEveryLaunch() {
        for category in [AudioSessionCategory.soloAmbient, .playback] {
            var machine = AudioSessionMachine(category: category)

            let first = machine.apply(.launched)
            let second = machine.apply(.launched)

            XCTAssertEqual(first.diagnostics, [.exclusiveCategory], "\(category)")
            XCTAssertEqual(second.diagnostics, [.launchedTwice, .exclusiveCategory], "\(category)")
            XCTAssertEqual(first.actions, [.setCategory, .addObservers, .activate], "\(category)")
        }
    }

    func testSecondLaunchWarnsAndAppliesTheRowAgain() {
        var machine = AudioSessionMachine(state: AudioSessionState(observing: true))

        let decision = machine.apply(.launched)

        XCTAssertEqual(decision, AudioSessionDecision(actions: [.setCategory, .addObservers, .activate],
                                                      diagnostics: [.launchedTwice]))
        XCTAssertEqual(machine.state, playing)
    }

    // MARK: enteredBackground

    func testGoingToTheBackgroundDeactivatesAnActiveSession() {
        var machine = AudioSessionMachine(state: playing)

        let decision = machine.apply(.enteredBackground)

        XCTAssertEqual(decision, AudioSessionDecision(actions: [.deactivate]))
        XCTAssertEqual(machine.state, AudioSessionState(foreground: false, active: false, categorySet: true, observing: true))
    }

    func testGoingToTheBackgroundWithAnInactiveSessionCallsNothing() {
        var machine = AudioSessionMachine(state: AudioSessionState(foreground: true, interrupted: true))

        let decision = machine.apply(.enteredBackground)

        XCTAssertEqual(decision, AudioSessionDecision(actions: []))
        XCTAssertEqual(machine.state, AudioSessionState(foreground: false, active: false, interrupted: true))
    }

    // MARK: deactivationFailed, deactivationSucceeded

    func testDeactivationErrorIsRetried() {
        var machine = AudioSessionMachine(state: playing)
        _ = machine.apply(.enteredBackground)

        let first = machine.apply(.deactivationFailed)
        let second = machine.apply(.deactivationFailed)

        XCTAssertEqual(first, AudioSessionDecision(actions: [.retryDeactivate]))
        XCTAssertEqual(second, AudioSessionDecision(actions: [.retryDeactivate]))
        XCTAssertEqual(machine.state, AudioSessionState(foreground: false, active: false, categorySet: true,
                                                        observing: true, deactivationPending: true))
    }

    func testDeactivationFailureIsRetriedWhateverTheState() {
        for state in [AudioSessionState(), playing, AudioSessionState(interrupted: true, deactivationPending: true)] {
            var machine = AudioSessionMachine(state: state)
            var expected = state
            expected.deactivationPending = true

            let decision = machine.apply(.deactivationFailed)

            XCTAssertEqual(decision, AudioSessionDecision(actions: [.retryDeactivate]), "\(state)")
            XCTAssertEqual(machine.state, expected, "\(state)")
        }
    }

    func testSuccessfulDeactivationEndsTheRetries() {
        var machine = AudioSessionMachine(state: AudioSessionState(categorySet: true, observing: true, deactivationPending: true))

        let decision = machine.apply(.deactivationSucceeded)

        XCTAssertEqual(decision, AudioSessionDecision(actions: []))
        XCTAssertEqual(machine.state, AudioSessionState(categorySet: true, observing: true, deactivationPending: false))
    }

    // MARK: enteredForeground

    func testReturningToTheForegroundActivates() {
        var machine = AudioSessionMachine(state: AudioSessionState(categorySet: true, observing: true))

        let decision = machine.apply(.enteredForeground)

        XCTAssertEqual(decision, AudioSessionDecision(actions: [.activate]))
        XCTAssertEqual(machine.state, playing)
    }

    func testReturningToTheForegroundDuringACallDoesNotActivate() {
        var machine = AudioSessionMachine(state: AudioSessionState(interrupted: true, deactivationPending: true))

        let decision = machine.apply(.enteredForeground)

        XCTAssertEqual(decision, AudioSessionDecision(actions: []))
        XCTAssertEqual(machine.state, AudioSessionState(foreground: true, active: false, interrupted: true,
                                                        deactivationPending: true))
    }

    // MARK: An activate step clears a pending deactivation

    func testEveryActivateStepFirstClearsAPendingDeactivation() {
        let cases: [(AudioSessionEvent, AudioSessionState)] = [
            (.launched, AudioSessionState(deactivationPending: true)),
            (.enteredForeground, AudioSessionState(deactivationPending: true)),
            (.interruptionEnded(shouldResume: nil), AudioSessionState(foreground: true, interrupted: true, deactivationPending: true)),
            (.mediaServicesReset, AudioSessionState(foreground: true, deactivationPending: true)),
        ]
        for (event, state) in cases {
            var machine = AudioSessionMachine(state: state)

            let decision = machine.apply(event)

            XCTAssertEqual(decision.actions.last, .activate, "\(event)")
            XCTAssertFalse(machine.state.deactivationPending, "\(event)")
            XCTAssertTrue(machine.state.active, "\(event)")
        }
    }

    // MARK: interruptionBegan, interruptionEnded

    func testInterruptionDropsTheActiveFlagWithoutACall() {
        var machine = AudioSessionMachine(state: playing)

        let decision = machine.apply(.interruptionBegan)

        XCTAssertEqual(decision, AudioSessionDecision(actions: []))
        XCTAssertEqual(machine.state, AudioSessionState(foreground: true, active: false, interrupted: true,
                                                        categorySet: true, observing: true))
    }

    func testSoundReturnsAfterACallEndsWithoutARestart() {
        var machine = AudioSessionMachine()
        _ = machine.apply(.launched)
        _ = machine.apply(.interruptionBegan)
        let duringCall = machine.apply(.playSound(name: "coin"))

        let ended = machine.apply(.interruptionEnded(shouldResume: false))
        let afterCall = machine.apply(.playSound(name: "coin"))

        XCTAssertFalse(duringCall.soundPlayed)
        XCTAssertEqual(ended, AudioSessionDecision(actions: [.activate], resumeHint: .shouldNotResume))
        XCTAssertEqual(afterCall, AudioSessionDecision(actions: [.playNewPlayer], soundPlayed: true))
        XCTAssertEqual(machine.state, playing)
    }

    func testShouldResumeIsOnlyAHint() {
        let cases: [(Bool?, ResumeHint)] = [(true, .shouldResume), (false, .shouldNotResume), (nil, .notGiven)]
        for (shouldResume, hint) in cases {
            var machine = AudioSessionMachine(state: AudioSessionState(foreground: true, interrupted: true))

            let decision = machine.apply(.interruptionEnded(shouldResume: shouldResume))

            XCTAssertEqual(decision, AudioSessionDecision(actions: [.activate], resumeHint: hint), "\(hint)")
            XCTAssertEqual(machine.state, AudioSessionState(foreground: true, active: true, interrupted: false), "\(hint)")
        }
    }

    func testInterruptionEndingInTheBackgroundDoesNotActivate() {
        var machine = AudioSessionMachine(state: AudioSessionState(interrupted: true, categorySet: true))

        let decision = machine.apply(.interruptionEnded(shouldResume: true))

        XCTAssertEqual(decision, AudioSessionDecision(actions: [], resumeHint: .shouldResume))
        XCTAssertEqual(machine.state, AudioSessionState(foreground: false, active: false, interrupted: false, categorySet: true))
    }

    func testInterruptionEndingInTheBackgroundLeavesTheActiveFlagAsItWas() {
        var machine = AudioSessionMachine(state: AudioSessionState(active: true, interrupted: true))

        let decision = machine.apply(.interruptionEnded(shouldResume: nil))

        XCTAssertEqual(decision.actions, [])
        XCTAssertEqual(machine.state, AudioSessionState(active: true, interrupted: false))
    }

    func testInterruptionEndWithoutABeginStillActivates() {
        var machine = AudioSessionMachine(state: playing)

        let decision = machine.apply(.interruptionEnded(shouldResume: true))

        XCTAssertEqual(decision, AudioSessionDecision(actions: [.activate], resumeHint: .shouldResume))
        XCTAssertEqual(machine.state, playing)
    }

    func testOnlyInterruptionEndStepsCarryAResumeHint() {
        let others: [AudioSessionEvent] = [.launched, .enteredBackground, .deactivationFailed, .deactivationSucceeded,
                                           .enteredForeground, .interruptionBegan, .routeChanged(reason: .override),
                                           .mediaServicesLost, .mediaServicesReset, .playSound(name: "coin"), .willTerminate]
        for event in others {
            var machine = AudioSessionMachine(state: playing)

            let decision = machine.apply(event)

            XCTAssertNil(decision.resumeHint, "\(event)")
        }
    }

    // MARK: routeChanged

    func testUnpluggingHeadphonesDoesNotSilenceTheGame() {
        var machine = AudioSessionMachine(state: playing)

        let unplugged = machine.apply(.routeChanged(reason: .oldDeviceUnavailable))
        let nextSound = machine.apply(.playSound(name: "explosion"))

        XCTAssertEqual(unplugged, AudioSessionDecision(actions: []))
        XCTAssertEqual(nextSound, AudioSessionDecision(actions: [.playNewPlayer], soundPlayed: true))
        XCTAssertEqual(machine.state, playing)
    }

    func testEveryKnownRouteChangeLeavesTheSessionAloneWithoutADiagnostic() {
        for reason in RouteChangeReason.allCases {
            var machine = AudioSessionMachine(state: playing)

            let decision = machine.apply(.routeChanged(reason: reason))

            XCTAssertEqual(decision, AudioSessionDecision(), reason.name)
            XCTAssertEqual(machine.state, playing, reason.name)
        }
    }

    func testUnknownRouteChangeReasonWarnsAndChangesNothing() {
        var machine = AudioSessionMachine(state: playing)

        let decision = machine.apply(.routeChanged(reason: nil))

        XCTAssertEqual(decision, AudioSessionDecision(diagnostics: [.unknownRouteChangeReason]))
        XCTAssertEqual(machine.state, playing)
    }

    // MARK: mediaServicesLost, mediaServicesReset

    func testLosingMediaServicesDropsTheActiveFlagAndTheCategory() {
        var machine = AudioSessionMachine(state: playing)

        let decision = machine.apply(.mediaServicesLost)

        XCTAssertEqual(decision, AudioSessionDecision(actions: []))
        XCTAssertEqual(machine.state, AudioSessionState(foreground: true, active: false, categorySet: false, observing: true))
    }

    func testMediaServicesResetSetsTheCategoryAgain() {
        var machine = AudioSessionMachine(state: playing)
        _ = machine.apply(.mediaServicesLost)

        let decision = machine.apply(.mediaServicesReset)

        XCTAssertEqual(decision, AudioSessionDecision(actions: [.setCategory, .recreatePlayers, .activate]))
        XCTAssertEqual(machine.state, playing)
    }

    func testMediaServicesResetInTheBackgroundOrDuringACallDoesNotActivate() {
        let states = [AudioSessionState(observing: true), AudioSessionState(foreground: true, interrupted: true, observing: true)]
        for state in states {
            var machine = AudioSessionMachine(state: state)
            var expected = state
            expected.categorySet = true

            let decision = machine.apply(.mediaServicesReset)

            XCTAssertEqual(decision, AudioSessionDecision(actions: [.setCategory, .recreatePlayers]), "\(state)")
            XCTAssertEqual(machine.state, expected, "\(state)")
        }
    }

    func testMediaServicesResetWithoutActivatingLeavesTheActiveFlagAsItWas() {
        var machine = AudioSessionMachine(state: AudioSessionState(active: true))

        _ = machine.apply(.mediaServicesReset)

        XCTAssertTrue(machine.state.active)
    }

    // MARK: playSound

    func testEverySoundGetsItsOwnPlayer() {
        var machine = AudioSessionMachine(state: playing)

        let first = machine.apply(.playSound(name: "coin"))
        let second = machine.apply(.playSound(name: "coin"))

        XCTAssertEqual(first, AudioSessionDecision(actions: [.playNewPlayer], soundPlayed: true))
        XCTAssertEqual(second, AudioSessionDecision(actions: [.playNewPlayer], soundPlayed: true))
        XCTAssertEqual(machine.state, playing)
    }

    func testNoSoundIsAttemptedWhileTheSessionIsInactive() {
        let inactive = AudioSessionState(foreground: true, active: false, interrupted: true, categorySet: true, observing: true)
        var machine = AudioSessionMachine(state: inactive)

        let decision = machine.apply(.playSound(name: "coin"))

        XCTAssertEqual(decision, AudioSessionDecision(actions: [], soundPlayed: false, diagnostics: [.soundSuppressed]))
        XCTAssertEqual(machine.state, inactive)
    }

    func testSoundInTheBackgroundIsSuppressedAndWarns() {
        var machine = AudioSessionMachine(state: playing)
        _ = machine.apply(.enteredBackground)

        let decision = machine.apply(.playSound(name: "coin"))

        XCTAssertEqual(decision, AudioSessionDecision(actions: [], soundPlayed: false,
                                                      diagnostics: [.playWhileBackground, .soundSuppressed]))
    }

    func testSoundInTheBackgroundWithAnActiveFlagGivenPlaysAndWarns() {
        var machine = AudioSessionMachine(state: AudioSessionState(foreground: false, active: true))

        let decision = machine.apply(.playSound(name: "coin"))

        XCTAssertEqual(decision, AudioSessionDecision(actions: [.playNewPlayer], soundPlayed: true,
                                                      diagnostics: [.playWhileBackground]))
    }

    // MARK: willTerminate

    func testTerminatingRemovesTheObserversThenDeactivates() {
        var machine = AudioSessionMachine(state: AudioSessionState(foreground: true, active: true, categorySet: true,
                                                                   observing: true, deactivationPending: true))

        let decision = machine.apply(.willTerminate)

        XCTAssertEqual(decision, AudioSessionDecision(actions: [.removeObservers, .deactivate]))
        XCTAssertEqual(machine.state, AudioSessionState(foreground: true, active: false, categorySet: true,
                                                        observing: false, deactivationPending: true))
    }

    func testTerminatingWithAnInactiveSessionOnlyRemovesTheObservers() {
        var machine = AudioSessionMachine(state: AudioSessionState(categorySet: true, observing: true))

        let decision = machine.apply(.willTerminate)

        XCTAssertEqual(decision, AudioSessionDecision(actions: [.removeObservers]))
        XCTAssertEqual(machine.state, AudioSessionState(categorySet: true, observing: false))
    }

    // MARK: A whole session

    func testGameKeepsItsSoundOverTheWholeLifecycle() {
        var machine = AudioSessionMachine()
        let events: [AudioSessionEvent] = [
            .launched, .playSound(name: "coin"), .enteredBackground, .deactivationFailed, .enteredForeground,
            .playSound(name: "coin"), .interruptionBegan, .interruptionEnded(shouldResume: nil),
            .routeChanged(reason: .oldDeviceUnavailable), .playSound(name: "jump"), .willTerminate,
        ]

        let actions = events.map { machine.apply($0).actions }

        XCTAssertEqual(actions, [
            [.setCategory, .addObservers, .activate], [.playNewPlayer], [.deactivate], [.retryDeactivate], [.activate],
            [.playNewPlayer], [], [.activate], [], [.playNewPlayer], [.removeObservers, .deactivate],
        ])
        XCTAssertEqual(machine.state, AudioSessionState(foreground: true, categorySet: true))
    }
}
