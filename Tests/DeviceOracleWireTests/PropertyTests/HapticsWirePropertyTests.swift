import DeviceOracleJSON
import DeviceOracleRules
import PropertyChecking
import XCTest
@testable import DeviceOracleWire

/// `haptics.md` part 2 over the wire, for random save flows on hardware with and
/// without haptics, with `at` values in and out of order and random `observed` checks.
final class HapticsWirePropertyTests: XCTestCase {
    private typealias Event = GeneratedEvent<HapticsEvent>

    private struct Setup {
        /// `nil`: not given, which means true.
        var supportsHaptics: Bool?
        var initialPhase: SavePhase?
    }

    private typealias WireSample = Sample<Setup, Event>

    private static let endpoint = HapticsRuleset.endpoint
    private static let runs = max(PropertyRuns.count / 8, 1)

    private static func generate(_ random: inout SplitMix64) -> WireSample {
        var previousAt = Double(Int.random(in: 0...10_000, using: &random))
        let saveEvents: [HapticsEvent] = [.saveTapped, .saveSucceeded, .saveFailed]
        let events = (0..<Int.random(in: sequenceLengths, using: &random)).map { _ in
            let (envelopeMembers, at) = envelope(&random, previousAt: &previousAt)
            let event = random.chance(60) ? random.pick(saveEvents) : random.pick(HapticsEvent.allCases)
            var members = [("type", JSON.string(event.rawValue))] + envelopeMembers
            members.shuffle(using: &random)
            let observed: [(String, JSON)]? = random.chance(20) ? ["phase", "visible", "haptic", "engine"].filter { _ in random.chance(40) }
                .map { ($0, JSON.string(random.pick(["saved", "none", "play", "running", "idle"]))) } : nil
            return Event(members: members, meaning: event, at: at, observed: observed)
        }
        let setup = Setup(supportsHaptics: random.pick([nil, true, false]),
                          initialPhase: random.chance(70) ? nil : random.pick(SavePhase.allCases))
        return Sample(setup: setup, events: events)
    }

    private static func body(_ sample: WireSample, supportsHaptics: Bool? = nil) -> JSON {
        var members: [(String, JSON)] = [("events", .array(sample.events.map(\.json)))]
        if let supports = supportsHaptics ?? sample.setup.supportsHaptics { members.append(("supportsHaptics", .bool(supports))) }
        if let phase = sample.setup.initialPhase { members.append(("initial", .object([("phase", .string(phase.rawValue))]))) }
        return .object(members)
    }

    private static func stateJSON(_ state: HapticsState) -> String {
        JSON.object([("phase", .string(state.phase.rawValue)), ("engine", .string(state.engine.rawValue))]).description
    }

    func testEachAnswerReadsAsItsStepsDecisionsAndFindings() {
        checkAnswerReading(Self.endpoint, runs: Self.runs, generate: Self.generate, body: { Self.body($0) })
    }

    func testEqualRequestsGetByteIdenticalAnswersWithOneStepPerEvent() {
        checkAnswersProperty(Self.endpoint, runs: Self.runs, generate: Self.generate, body: { Self.body($0) })
    }

    func testEveryStepAndTheSummaryAreTheRulesApplied() {
        // The steps' states, `visible`, `haptic` and `actions`, `final` and `summary` are exactly the rules'.
        checkProperty("steps follow the rules", runs: Self.runs, generate: Self.generate) { sample in
            holds { () throws(Broken) in
                let answer = try checkedAnswer(Self.endpoint, Self.body(sample), steps: sample.events.count)
                var machine = HapticsMachine(state: HapticsState(phase: sample.setup.initialPhase ?? .idle,
                                                                 engine: sample.setup.supportsHaptics ?? true ? .stopped : .unsupported))
                for (index, (step, event)) in zip(answer.elements(answer["steps"]), sample.events).enumerated() {
                    let before = machine.state
                    let decision = machine.apply(event.meaning!)
                    let shown = [answer.text(answer[step, "before"]), answer.text(answer[step, "after"]),
                                 answer.text(answer[step, "visible"]), answer.text(answer[step, "haptic"]),
                                 answer.text(answer[step, "actions"])]
                    let wanted = [Self.stateJSON(before), Self.stateJSON(machine.state), "\"\(decision.visible.rawValue)\"",
                                  "\"\(decision.haptic.rawValue)\"", JSON.array(decision.actions.map { .string($0.rawValue) }).description]
                    try expect(shown == wanted, "step \(index) shows \(shown), expected \(wanted)")
                }
                let summary = machine.summary
                let wantedSummary = JSON.object([("saves", .int(summary.saves)), ("failures", .int(summary.failures)),
                                                 ("hapticRequests", .int(summary.hapticRequests))]).description
                try expect(answer.text(answer["summary"]) == wantedSummary, "summary \(answer.text(answer["summary"]))")
                try expect(answer.text(answer["final"]) == Self.stateJSON(machine.state), "final \(answer.text(answer["final"]))")
            }
        }
    }

    func testHapticRequestsFollowSupportWhileTheScreenIgnoresIt() {
        // haptics.md: hapticRequests equals saves when supported and 0 otherwise, and the visible
        // result is the same either way — the same log sent with supportsHaptics true and false.
        checkProperty("support changes haptics only", runs: Self.runs, generate: Self.generate) { sample in
            holds { () throws(Broken) in
                let with = try checkedAnswer(Self.endpoint, Self.body(sample, supportsHaptics: true), steps: sample.events.count)
                let without = try checkedAnswer(Self.endpoint, Self.body(sample, supportsHaptics: false), steps: sample.events.count)
                let summary = (with: with["summary"], without: without["summary"])
                try expect(with.number(with[summary.with, "hapticRequests"]) == with.number(with[summary.with, "saves"]),
                           "with haptics: \(with.text(summary.with))")
                try expect(without.number(without[summary.without, "hapticRequests"]) == 0, "without haptics: \(without.text(summary.without))")
                let visible = (with.elements(with["steps"]).map { with.text(with[$0, "visible"]) },
                               without.elements(without["steps"]).map { without.text(without[$0, "visible"]) })
                try expect(visible.0 == visible.1, "visible \(visible.0) with haptics, \(visible.1) without")
            }
        }
    }
}
