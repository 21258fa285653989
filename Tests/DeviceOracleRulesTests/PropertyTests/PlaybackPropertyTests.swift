import DeviceOracleRules
import PropertyChecking
import XCTest

/// `playback.md` as properties over thousands of random sequences from random
/// starting states: what must hold after every step, whatever came before.
final class PlaybackPropertyTests: XCTestCase {
    private typealias PlaybackSample = Sample<PlaybackState, PlaybackEvent>


    private static func generate(_ random: inout SplitMix64) -> PlaybackSample {
        let initial = PlaybackState(isPlaying: Bool.random(using: &random),
                                    resumeAfterInterruption: Bool.random(using: &random))
        let reasons: [RouteChangeReason?] = [nil] + RouteChangeReason.allCases
        let events = (0..<Int.random(in: sequenceLengths, using: &random)).map { _ -> PlaybackEvent in
            switch Int.random(in: 0..<7, using: &random) {
            case 0: .interruptionBegan
            case 1: .interruptionEnded(shouldResume: Bool.random(using: &random))
            case 2: .userPaused
            case 3: .outputDisconnected
            case 4: .userPlayed
            default: .routeChanged(reason: random.pick(reasons))
            }
        }
        return Sample(setup: initial, events: events)
    }

    private typealias Step = AppliedStep<PlaybackMachine>

    private static func steps(_ sample: PlaybackSample) -> [Step] {
        var machine = PlaybackMachine(state: sample.setup)
        return machine.steps(sample.events)
    }

    /// The first step that breaks `rule`, described.
    private static func violation(_ sample: PlaybackSample, _ rule: (Step) -> String?) -> String? {
        firstViolation(steps(sample), rule)
    }

    func testPlaybackStartsOnlyOnUserPlayOrAnInterruptionEndThatMayResume() {
        // Table: only userPlayed sets isPlaying, and interruptionEnded sets it to
        // resumeAfterInterruption && shouldResume — the intent and the permission both.
        checkProperty("playback starts only when allowed", generate: Self.generate) { sample in
            Self.violation(sample) { step in
                guard !step.before.isPlaying, step.after.isPlaying else { return nil }
                switch step.event {
                case .userPlayed: return nil
                case .interruptionEnded(shouldResume: true) where step.before.resumeAfterInterruption: return nil
                default: return "started playing from \(step.before)"
                }
            }
        }
    }

    func testEveryActionFollowsFromTheChangeOfIsPlaying() {
        // Step: `play` when isPlaying goes false → true, `pause` when true → false, else `none`.
        checkProperty("action follows isPlaying", generate: Self.generate) { sample in
            Self.violation(sample) { step in
                let expected: PlayerAction = switch (step.before.isPlaying, step.after.isPlaying) {
                case (false, true): .play
                case (true, false): .pause
                default: .none
                }
                return step.decision.action == expected ? nil : "action \(step.decision.action), expected \(expected)"
            }
        }
    }

    func testOnlyAnInterruptionOfAPlayingPlayerRemembersToResume() {
        // interruptionBegan: resumeAfterInterruption = isPlaying before; no other row sets it.
        checkProperty("resume intent comes from an interrupted playback", generate: Self.generate) { sample in
            Self.violation(sample) { step in
                if case .interruptionBegan = step.event {
                    return step.after == PlaybackState(isPlaying: false, resumeAfterInterruption: step.before.isPlaying)
                        ? nil : "after \(step.after) from \(step.before)"
                }
                return step.after.resumeAfterInterruption && !step.before.resumeAfterInterruption
                    ? "set the resume intent" : nil
            }
        }
    }

    func testPauseUnplugAndLostOutputLeaveAStoppedPlayerWithNoIntent() {
        // userPaused, outputDisconnected and routeChanged(oldDeviceUnavailable) pause at once and clear the intent.
        checkProperty("stops clear everything", generate: Self.generate) { sample in
            Self.violation(sample) { step in
                switch step.event {
                case .userPaused, .outputDisconnected, .routeChanged(reason: .oldDeviceUnavailable?):
                    return step.after == PlaybackState() ? nil : "left \(step.after)"
                default:
                    return nil
                }
            }
        }
    }

    func testOtherRouteChangesLeaveTheStateAndSayWhy() {
        // Only reason 2 disconnects: a known other reason is `routeChangeIgnored`, an unknown one
        // `unknownRouteChangeReason`; neither changes the state (reconnecting never starts playback).
        checkProperty("other route changes change nothing", generate: Self.generate) { sample in
            Self.violation(sample) { step in
                guard case .routeChanged(let reason) = step.event, reason != .oldDeviceUnavailable else { return nil }
                let expected: PlaybackDiagnostic = reason == nil ? .unknownRouteChangeReason : .routeChangeIgnored
                if step.after != step.before { return "changed \(step.before) to \(step.after)" }
                return step.decision == PlaybackDecision(action: .none, diagnostics: [expected])
                    ? nil : "decided \(step.decision)"
            }
        }
    }

    func testEndWithoutBeginIsReportedExactlyWhenNoInterruptionIsOpen() {
        // Diagnostics: `endWithoutBegin` for an interruptionEnded with no interruptionBegan since the last end.
        checkProperty("endWithoutBegin", generate: Self.generate) { sample in
            var open = false
            return Self.violation(sample) { step in
                defer {
                    if case .interruptionBegan = step.event { open = true }
                    if case .interruptionEnded = step.event { open = false }
                }
                guard case .interruptionEnded = step.event else {
                    return step.decision.diagnostics.contains(.endWithoutBegin) ? "endWithoutBegin on another event" : nil
                }
                return (step.decision.diagnostics.contains(.endWithoutBegin)) == !open ? nil : "open: \(open), decided \(step.decision)"
            }
        }
    }
}
