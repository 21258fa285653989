import XCTest
import DeviceOracleRules

/// One test per rule of `playback.md`, named after the behaviour.
final class PlaybackRulesTests: XCTestCase {
    private let playing = PlaybackState(isPlaying: true, resumeAfterInterruption: false)
    private let idle = PlaybackState(isPlaying: false, resumeAfterInterruption: false)
    private let interruptedWhilePlaying = PlaybackState(isPlaying: false, resumeAfterInterruption: true)

    // MARK: The three cases the rules were first written with

    func testIdlePlayerIsNotStartedByAnInterruption() {
        var machine = PlaybackMachine(state: idle)

        let began = machine.apply(.interruptionBegan)
        let ended = machine.apply(.interruptionEnded(shouldResume: true))

        XCTAssertEqual(began.action, .none)
        XCTAssertEqual(ended.action, .none)
        XCTAssertEqual(machine.state, idle)
    }

    func testUserPauseDuringInterruptionCancelsTheResume() {
        var machine = PlaybackMachine(state: playing)
        _ = machine.apply(.interruptionBegan)

        let paused = machine.apply(.userPaused)
        let ended = machine.apply(.interruptionEnded(shouldResume: true))

        XCTAssertEqual(paused.action, .none)
        XCTAssertEqual(ended.action, .none)
        XCTAssertEqual(machine.state, idle)
    }

    func testDisconnectStopsPlaybackAndClearsTheIntent() {
        var machine = PlaybackMachine(state: interruptedWhilePlaying)

        let decision = machine.apply(.outputDisconnected)

        XCTAssertEqual(decision.action, .none)
        XCTAssertEqual(machine.state, idle)
    }

    // MARK: interruptionBegan

    func testInterruptionPausesAPlayingPlayerAndRemembersToResume() {
        var machine = PlaybackMachine(state: playing)

        let decision = machine.apply(.interruptionBegan)

        XCTAssertEqual(decision, PlaybackDecision(action: .pause))
        XCTAssertEqual(machine.state, interruptedWhilePlaying)
    }

    func testSecondInterruptionForgetsTheIntentOfTheFirst() {
        var machine = PlaybackMachine(state: interruptedWhilePlaying)

        let decision = machine.apply(.interruptionBegan)

        XCTAssertEqual(decision.action, .none)
        XCTAssertEqual(machine.state, idle)
    }

    // MARK: interruptionEnded

    func testInterruptionEndThatAllowsResumingResumesPlayback() {
        var machine = PlaybackMachine(state: playing)
        _ = machine.apply(.interruptionBegan)

        let decision = machine.apply(.interruptionEnded(shouldResume: true))

        XCTAssertEqual(decision, PlaybackDecision(action: .play))
        XCTAssertEqual(machine.state, playing)
    }

    func testInterruptionEndWithoutShouldResumeStaysPausedAndClearsTheIntent() {
        var machine = PlaybackMachine(state: playing)
        _ = machine.apply(.interruptionBegan)

        let decision = machine.apply(.interruptionEnded(shouldResume: false))

        XCTAssertEqual(decision, PlaybackDecision(action: .none))
        XCTAssertEqual(machine.state, idle)
    }

    func testSpuriousInterruptionEndPausesAPlayingPlayer() {
        var machine = PlaybackMachine(state: playing)

        let decision = machine.apply(.interruptionEnded(shouldResume: true))

        XCTAssertEqual(decision, PlaybackDecision(action: .pause, diagnostics: [.endWithoutBegin]))
        XCTAssertEqual(machine.state, idle)
    }

    func testInterruptionEndWithoutABeginIsReported() {
        var machine = PlaybackMachine(state: idle)
        _ = machine.apply(.interruptionBegan)
        _ = machine.apply(.interruptionEnded(shouldResume: false))

        let decision = machine.apply(.interruptionEnded(shouldResume: false))

        XCTAssertEqual(decision.diagnostics, [.endWithoutBegin])
    }

    func testInterruptionEndAfterItsBeginIsNotReported() {
        var machine = PlaybackMachine(state: idle)
        _ = machine.apply(.interruptionBegan)

        let decision = machine.apply(.interruptionEnded(shouldResume: false))

        XCTAssertEqual(decision.diagnostics, [])
    }

    // MARK: userPaused, userPlayed

    func testUserPausePausesAndClearsTheIntent() {
        var machine = PlaybackMachine(state: playing)

        let decision = machine.apply(.userPaused)

        XCTAssertEqual(decision.action, .pause)
        XCTAssertEqual(machine.state, idle)
    }

    func testUserPlayStartsPlaybackAndClearsTheIntent() {
        var machine = PlaybackMachine(state: interruptedWhilePlaying)

        let decision = machine.apply(.userPlayed)

        XCTAssertEqual(decision.action, .play)
        XCTAssertEqual(machine.state, playing)
    }

    func testUserPlayWhilePlayingCallsNothing() {
        var machine = PlaybackMachine(state: playing)

        let decision = machine.apply(.userPlayed)

        XCTAssertEqual(decision.action, .none)
        XCTAssertEqual(machine.state, playing)
    }

    // MARK: outputDisconnected, routeChanged

    func testDisconnectPausesAPlayingPlayer() {
        var machine = PlaybackMachine(state: playing)

        let decision = machine.apply(.outputDisconnected)

        XCTAssertEqual(decision.action, .pause)
        XCTAssertEqual(machine.state, idle)
    }

    func testOldDeviceUnavailableActsAsADisconnect() {
        var machine = PlaybackMachine(state: playing)

        let decision = machine.apply(.routeChanged(reason: .oldDeviceUnavailable))

        XCTAssertEqual(decision, PlaybackDecision(action: .pause))
        XCTAssertEqual(machine.state, idle)
    }

    func testReconnectingADeviceNeverStartsPlayback() {
        var machine = PlaybackMachine(state: interruptedWhilePlaying)

        let decision = machine.apply(.routeChanged(reason: .newDeviceAvailable))

        XCTAssertEqual(decision, PlaybackDecision(action: .none, diagnostics: [.routeChangeIgnored]))
        XCTAssertEqual(machine.state, interruptedWhilePlaying)
    }

    func testEveryOtherKnownRouteChangeReasonIsIgnored() {
        for reason in RouteChangeReason.allCases where reason != .oldDeviceUnavailable {
            var machine = PlaybackMachine(state: playing)

            let decision = machine.apply(.routeChanged(reason: reason))

            XCTAssertEqual(decision, PlaybackDecision(action: .none, diagnostics: [.routeChangeIgnored]), "\(reason)")
            XCTAssertEqual(machine.state, playing, "\(reason)")
        }
    }

    func testUnknownRouteChangeReasonLeavesTheStateAndWarns() {
        var machine = PlaybackMachine(state: playing)

        let decision = machine.apply(.routeChanged(reason: nil))

        XCTAssertEqual(decision, PlaybackDecision(action: .none, diagnostics: [.unknownRouteChangeReason]))
        XCTAssertEqual(machine.state, playing)
    }

    // MARK: Route change reasons

    func testRouteChangeReasonsAreAVAudioSessionsValues() {
        let values = RouteChangeReason.allCases.map { "\($0.rawValue) \($0.name)" }
        XCTAssertEqual(values, ["0 unknown", "1 newDeviceAvailable", "2 oldDeviceUnavailable", "3 categoryChange",
                                "4 override", "6 wakeFromSleep", "7 noSuitableRouteForCategory",
                                "8 routeConfigurationChange"])
        XCTAssertNil(RouteChangeReason(rawValue: 5))
        XCTAssertEqual(RouteChangeReason(name: "override"), .override)
    }
}
