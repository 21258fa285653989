import DeviceOracleRules
import PropertyChecking
import XCTest

/// `haptics.md` part 2 as properties over thousands of random sequences, each run
/// on hardware with and without haptics.
final class HapticsPropertyTests: XCTestCase {
    private struct Setup {
        var phase: SavePhase
        var supportsHaptics: Bool
    }

    private typealias HapticsSample = Sample<Setup, HapticsEvent>
    private typealias Step = AppliedStep<HapticsMachine>


    private static func generate(_ random: inout SplitMix64) -> HapticsSample {
        let setup = Setup(phase: random.pick(SavePhase.allCases), supportsHaptics: random.chance(70))
        // Saves are most of a real log; engine events come in between.
        let saveEvents: [HapticsEvent] = [.saveTapped, .saveSucceeded, .saveFailed]
        let events = (0..<Int.random(in: sequenceLengths, using: &random)).map { _ in
            random.chance(60) ? random.pick(saveEvents) : random.pick(HapticsEvent.allCases)
        }
        return Sample(setup: setup, events: events)
    }

    private static func run(_ sample: HapticsSample, supportsHaptics: Bool? = nil) -> (steps: [Step], summary: HapticsSummary) {
        var machine = HapticsMachine(state: HapticsState(phase: sample.setup.phase, engine: supportsHaptics ?? sample.setup.supportsHaptics ? .stopped : .unsupported))
        let steps = machine.steps(sample.events)
        return (steps, machine.summary)
    }

    private static func violation(_ sample: HapticsSample, _ rule: (Step) -> String?) -> String? {
        firstViolation(run(sample).steps, rule)
    }

    func testHapticRequestsEqualSavesWhenSupportedAndZeroOtherwise() {
        // Totals: "by the rules hapticRequests equals saves when haptics are supported and 0 otherwise".
        checkProperty("hapticRequests", generate: Self.generate) { sample in
            let summary = Self.run(sample).summary
            let expected = sample.setup.supportsHaptics ? summary.saves : 0
            return summary.hapticRequests == expected ? nil : "summary \(summary)"
        }
    }

    func testWhatTheScreenShowsNeverDependsOnHapticSupport() {
        // "It adds to a visible confirmation and never replaces it": the same log on hardware
        // with and without haptics shows the same thing after every step.
        checkProperty("visible independent of supportsHaptics", generate: Self.generate) { sample in
            let with = Self.run(sample, supportsHaptics: true), without = Self.run(sample, supportsHaptics: false)
            for (index, (a, b)) in zip(with.steps, without.steps).enumerated()
            where a.decision.visible != b.decision.visible || a.after.phase != b.after.phase {
                return "step \(index): \(a.decision.visible) with haptics, \(b.decision.visible) without"
            }
            return (with.summary.saves, with.summary.failures) == (without.summary.saves, without.summary.failures)
                ? nil : "summaries \(with.summary) and \(without.summary)"
        }
    }

    func testVisibleIsAFunctionOfThePhaseAlone() {
        // Step decision fields: idle → none, saving → saving, saved → saved, failed → error.
        checkProperty("visible follows phase", generate: Self.generate) { sample in
            Self.violation(sample) { step in
                step.decision.visible == VisibleResult(step.after.phase) ? nil : "\(step.decision.visible) in \(step.after.phase)"
            }
        }
    }

    func testHapticIsRequestedOnlyWhenASaveSucceedsOnHardwareWithHaptics() {
        // "fires once, after a successful save — not on the tap — and never after a failed save".
        checkProperty("haptic only after a successful save", generate: Self.generate) { sample in
            Self.violation(sample) { step in
                let completesSave = step.event == .saveSucceeded && step.before.phase == .saving
                let expected: HapticRequest = completesSave && sample.setup.supportsHaptics ? .play : .none
                return step.decision.haptic == expected ? nil : "haptic \(step.decision.haptic) from \(step.before)"
            }
        }
    }

    func testPlayingTheHapticStartsTheEngineOnlyWhenItWasStopped() {
        // saveSucceeded: ["startEngine", "playHaptic"] when stopped, ["playHaptic"] when running; engine running after.
        checkProperty("engine start before play", generate: Self.generate) { sample in
            Self.violation(sample) { step in
                guard step.decision.haptic == .play else {
                    return step.decision.actions.contains(.playHaptic) ? "playHaptic without a haptic" : nil
                }
                let expected: [HapticsAction] = step.before.engine == .stopped ? [.startEngine, .playHaptic] : [.playHaptic]
                guard step.decision.actions == expected else { return "actions \(step.decision.actions)" }
                return step.after.engine == .running ? nil : "engine \(step.after.engine) after playing"
            }
        }
    }

    func testEngineEventsNeverChangeTheSaveResult() {
        // hapticFailed, engineStopped, engineReset, appBackgrounded, appForegrounded: phase unchanged.
        let saveEvents: Set<HapticsEvent> = [.saveTapped, .saveSucceeded, .saveFailed]
        checkProperty("engine events leave the phase", generate: Self.generate) { sample in
            Self.violation(sample) { step in
                saveEvents.contains(step.event) || step.after.phase == step.before.phase
                    ? nil : "phase \(step.before.phase) → \(step.after.phase)"
            }
        }
    }

    func testUnsupportedEngineStaysUnsupportedAndASupportedOneNeverBecomesIt() {
        // "initially … unsupported when supportsHaptics is false; then it stays unsupported".
        checkProperty("unsupported is permanent", generate: Self.generate) { sample in
            Self.violation(sample) { step in
                (step.after.engine == .unsupported) == !sample.setup.supportsHaptics ? nil : "engine \(step.after.engine)"
            }
        }
    }

    func testADuplicateTapWhileSavingChangesNothing() {
        // saveTapped while saving: unchanged, nothing, `duplicateTapBlocked`.
        checkProperty("duplicate tap blocked", generate: Self.generate) { sample in
            Self.violation(sample) { step in
                guard step.event == .saveTapped, step.before.phase == .saving else { return nil }
                let expected = HapticsDecision(visible: .saving, diagnostics: [.duplicateTapBlocked])
                return step.after == step.before && step.decision == expected ? nil : "decided \(step.decision)"
            }
        }
    }
}
