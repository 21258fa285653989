import DeviceOracleRules
import PropertyChecking
import XCTest

/// `audio-session.md` as properties over thousands of random lifecycles: from any
/// starting state for the rules of one step, from a fresh launch for the rules
/// about where the session may be active at all.
final class AudioSessionPropertyTests: XCTestCase {
    private struct Setup {
        var state: AudioSessionState
        var category: AudioSessionCategory
    }

    private typealias AudioSessionSample = Sample<Setup, AudioSessionEvent>
    private typealias Step = AppliedStep<AudioSessionMachine>


    private static func randomEvent(_ random: inout SplitMix64) -> AudioSessionEvent {
        let reasons: [RouteChangeReason?] = [nil] + RouteChangeReason.allCases
        return switch Int.random(in: 0..<13, using: &random) {
        case 0: .launched
        case 1: .enteredBackground
        case 2: .deactivationFailed
        case 3: .deactivationSucceeded
        case 4: .enteredForeground
        case 5: .interruptionBegan
        case 6: .interruptionEnded(shouldResume: random.pick([true, false, nil]))
        case 7: .routeChanged(reason: random.pick(reasons))
        case 8: .mediaServicesLost
        case 9: .mediaServicesReset
        case 10: .willTerminate
        default: .playSound(name: random.pick(["coin", "jump", "explosion"]))
        }
    }

    /// Any starting state, consistent or not ("taken as given").
    private static func generate(_ random: inout SplitMix64) -> AudioSessionSample {
        let flags = (0..<6).map { _ in Bool.random(using: &random) }
        let state = AudioSessionState(foreground: flags[0], active: flags[1], interrupted: flags[2], categorySet: flags[3],
                                      observing: flags[4], deactivationPending: flags[5])
        let events = (0..<Int.random(in: sequenceLengths, using: &random)).map { _ in randomEvent(&random) }
        return Sample(setup: Setup(state: state, category: random.pick(AudioSessionCategory.allCases)), events: events)
    }

    /// The state a game starts in, before `launched`.
    private static func generateFromLaunch(_ random: inout SplitMix64) -> AudioSessionSample {
        var sample = generate(&random)
        sample.setup.state = AudioSessionState()
        return sample
    }

    private static func violation(_ sample: AudioSessionSample, _ rule: (Step) -> String?) -> String? {
        var machine = AudioSessionMachine(state: sample.setup.state, category: sample.setup.category)
        return firstViolation(machine.steps(sample.events), rule)
    }

    func testASoundPlaysOnlyWhileTheSessionIsActive() {
        // playSound: `playNewPlayer` when active; when not active nothing, and `soundSuppressed`.
        checkProperty("no sound while inactive", generate: Self.generate) { sample in
            Self.violation(sample) { step in
                guard case .playSound = step.event else {
                    return step.decision.soundPlayed ? "soundPlayed on another event" : nil
                }
                let played = step.decision.soundPlayed && step.decision.actions == [.playNewPlayer]
                let suppressed = !step.decision.soundPlayed && step.decision.actions.isEmpty
                    && step.decision.diagnostics.contains(.soundSuppressed)
                return (step.before.active ? played : suppressed) ? nil : "decided \(step.decision)"
            }
        }
    }

    func testTheSessionBecomesActiveOnlyWithAnActivateCall() {
        // The app's flag follows its calls: `active` turns true only on a step that calls `activate`,
        // and an `activate` drops a pending deactivation.
        checkProperty("active only by activate", generate: Self.generate) { sample in
            Self.violation(sample) { step in
                let activates = step.decision.actions.contains(.activate)
                if !step.before.active, step.after.active, !activates { return "became active without activate" }
                if activates, !step.after.active || step.after.deactivationPending { return "activate left \(step.after)" }
                return nil
            }
        }
    }

    func testTheSessionIsNeverActiveInTheBackgroundOrDuringAnInterruption() {
        // "The session may not stay active in the background"; an interruption deactivates it.
        checkProperty("never active in the background", generate: Self.generateFromLaunch) { sample in
            Self.violation(sample) { step in
                guard step.after.active else { return nil }
                return step.after.foreground && !step.after.interrupted ? nil : "active in \(step.after)"
            }
        }
    }

    func testDeactivateIsCalledExactlyWhenAnActiveSessionIsLeft() {
        // enteredBackground and willTerminate: `deactivate` when it was active; nothing else deactivates.
        checkProperty("deactivate only an active session", generate: Self.generate) { sample in
            Self.violation(sample) { step in
                let leaves: Bool = switch step.event {
                case .enteredBackground, .willTerminate: true
                default: false
                }
                let deactivates = step.decision.actions.contains(.deactivate)
                return deactivates == (leaves && step.before.active) ? nil : "deactivate: \(deactivates)"
            }
        }
    }

    func testARouteChangeNeverPausesOrDeactivates() {
        // routeChanged: unchanged, no calls — even `oldDeviceUnavailable`: the sound continues on the speaker.
        checkProperty("route changes change nothing", generate: Self.generate) { sample in
            Self.violation(sample) { step in
                guard case .routeChanged(let reason) = step.event else { return nil }
                let expected = AudioSessionDecision(diagnostics: reason == nil ? [.unknownRouteChangeReason] : [])
                return step.after == step.before && step.decision == expected ? nil : "decided \(step.decision)"
            }
        }
    }

    func testAnInterruptionEndInTheForegroundReactivatesWhateverTheHint() {
        // interruptionEnded: `activate` when foreground; shouldResume is only reported as `resumeHint`.
        checkProperty("sound comes back after a call", generate: Self.generate) { sample in
            Self.violation(sample) { step in
                guard case .interruptionEnded(let hint) = step.event else {
                    return step.decision.resumeHint == nil ? nil : "resumeHint on another event"
                }
                guard step.decision.resumeHint == ResumeHint(hint) else { return "resumeHint \(String(describing: step.decision.resumeHint))" }
                guard step.before.foreground else { return step.decision.actions.isEmpty ? nil : "calls in the background" }
                return step.decision.actions == [.activate] && step.after.active ? nil : "decided \(step.decision)"
            }
        }
    }

    func testTerminatingStopsObservingAndLeavesTheSessionInactive() {
        // willTerminate: not observing, not active; `removeObservers`, then `deactivate` when it was active.
        checkProperty("terminate", generate: Self.generate) { sample in
            Self.violation(sample) { step in
                guard case .willTerminate = step.event else { return nil }
                let expected: [AudioSessionAction] = step.before.active ? [.removeObservers, .deactivate] : [.removeObservers]
                guard step.decision.actions == expected else { return "actions \(step.decision.actions)" }
                return !step.after.observing && !step.after.active
                    && step.after.foreground == step.before.foreground
                    && step.after.deactivationPending == step.before.deactivationPending ? nil : "left \(step.after)"
            }
        }
    }

    func testAFailedDeactivationIsRetriedUntilItSucceedsOrTheAppActivates() {
        // deactivationFailed: pending, `retryDeactivate`; only it sets pending; only success or an activate clears it.
        checkProperty("deactivation retried", generate: Self.generate) { sample in
            Self.violation(sample) { step in
                if case .deactivationFailed = step.event {
                    return step.after.deactivationPending && step.decision.actions == [.retryDeactivate] ? nil : "decided \(step.decision)"
                }
                if step.after.deactivationPending, !step.before.deactivationPending { return "set pending" }
                if step.before.deactivationPending, !step.after.deactivationPending {
                    let clears = step.event == .deactivationSucceeded || step.decision.actions.contains(.activate)
                    return clears ? nil : "cleared pending"
                }
                return nil
            }
        }
    }
}
