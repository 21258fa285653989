import DeviceOracleJSON
import DeviceOracleRules
import PropertyChecking
import XCTest
@testable import DeviceOracleWire

/// `playback.md` over the wire, for random logs mixing canonical events and raw
/// notifications in every accepted spelling, several sessions, `at` values in and
/// out of order, ids, ignored fields and random `observed` checks.
final class PlaybackWirePropertyTests: XCTestCase {
    private typealias Event = GeneratedEvent<PlaybackEvent>

    private struct Setup {
        var initial: PlaybackState?
        var observedFinal: [(String, JSON)]?
        var pinsVersion: Bool
    }

    private typealias WireSample = Sample<Setup, Event>

    private static let endpoint = PlaybackRuleset.endpoint
    private static let runs = max(PropertyRuns.count / 8, 1)

    // MARK: Generating logs

    private static func generate(_ random: inout SplitMix64) -> WireSample {
        let initial = random.chance(50) ? nil : PlaybackState(isPlaying: Bool.random(using: &random),
                                                              resumeAfterInterruption: Bool.random(using: &random))
        var previousAt = Double(Int.random(in: 0...10_000, using: &random))
        let events = (0..<Int.random(in: sequenceLengths, using: &random)).map { _ in event(&random, previousAt: &previousAt) }
        let observedFinal = random.chance(15) ? randomObserved(&random, fields: ["isPlaying", "resumeAfterInterruption"]) : nil
        return Sample(setup: Setup(initial: initial, observedFinal: observedFinal, pinsVersion: random.chance(20)), events: events)
    }

    private static func event(_ random: inout SplitMix64, previousAt: inout Double) -> Event {
        let (envelopeMembers, at) = envelope(&random, previousAt: &previousAt)
        var members: [(String, JSON)], meaning: PlaybackEvent?
        if random.chance(50) {
            switch Int.random(in: 0..<6, using: &random) {
            case 0: (members, meaning) = ([("type", .string("interruptionBegan"))], .interruptionBegan)
            case 1:
                let shouldResume = Bool.random(using: &random)
                (members, meaning) = ([("type", .string("interruptionEnded")), ("shouldResume", .bool(shouldResume))],
                                      .interruptionEnded(shouldResume: shouldResume))
            case 2: (members, meaning) = ([("type", .string("userPaused"))], .userPaused)
            case 3: (members, meaning) = ([("type", .string("outputDisconnected"))], .outputDisconnected)
            case 4: (members, meaning) = ([("type", .string("userPlayed"))], .userPlayed)
            default:
                let routeChange = canonicalRouteChange(&random)
                (members, meaning) = (routeChange.members, .routeChanged(reason: routeChange.reason))
            }
        } else {
            let raw = rawNotification(&random, mediaServices: false)
            members = raw.members
            meaning = switch raw.meaning {
            case .interruptionBegan: .interruptionBegan
            case .interruptionEnded(let shouldResume): .interruptionEnded(shouldResume: shouldResume)
            case .routeChanged(let reason): .routeChanged(reason: reason)
            case .mediaServicesLost, .mediaServicesReset, .nothing: nil
            }
        }
        let session = random.chance(40) ? random.pick(["a", "b", "default", "é \"quoted\""]) : nil
        if let session { members.append(("session", .string(session))) }
        members += envelopeMembers
        members.shuffle(using: &random)
        let observed = random.chance(20) ? randomObserved(&random, fields: ["isPlaying", "resumeAfterInterruption", "action"]) : nil
        return Event(members: members, meaning: meaning, at: at, session: session, observed: observed)
    }

    /// A subset of `fields` with values of any JSON type: a device reports what it reports.
    private static func randomObserved(_ random: inout SplitMix64, fields: [String]) -> [(String, JSON)] {
        fields.filter { _ in random.chance(50) }.map { field in
            (field, random.pick([.bool(true), .bool(false), .string("play"), .string("pause"), .string("none"), .int(1), .null]))
        }
    }

    private static func body(_ sample: WireSample, events: [Event]? = nil, observedFinal: [(String, JSON)]? = nil) -> JSON {
        var members: [(String, JSON)] = [("events", .array((events ?? sample.events).map(\.json)))]
        if let initial = sample.setup.initial { members.insert(("initial", stateJSON(initial)), at: 0) }
        if let observed = observedFinal ?? sample.setup.observedFinal { members.append(("observedFinal", .object(observed))) }
        if sample.setup.pinsVersion { members.append(("ruleset", .string("playback/1"))) }
        return .object(members)
    }

    private static func stateJSON(_ state: PlaybackState) -> JSON {
        .object([("isPlaying", .bool(state.isPlaying)), ("resumeAfterInterruption", .bool(state.resumeAfterInterruption))])
    }

    // MARK: The rules, run directly

    private struct ExpectedStep {
        var before: PlaybackState
        var after: PlaybackState
        var action: PlayerAction
    }

    /// Each event applied to its session's machine, every session starting from `initial`.
    private static func expected(_ sample: WireSample) -> (steps: [ExpectedStep], sessions: [(String, PlaybackState)]) {
        var sessions: [(name: String, machine: PlaybackMachine)] = []
        let steps = sample.events.map { event in
            let name = event.session ?? "default"
            let index = sessions.firstIndex { $0.name == name } ?? {
                sessions.append((name, PlaybackMachine(state: sample.setup.initial ?? PlaybackState())))
                return sessions.count - 1
            }()
            let before = sessions[index].machine.state
            let action = event.meaning.map { sessions[index].machine.apply($0).action } ?? PlayerAction.none
            return ExpectedStep(before: before, after: sessions[index].machine.state, action: action)
        }
        return (steps, sessions.map { ($0.name, $0.machine.state) })
    }

    // MARK: Properties

    func testEachAnswerReadsAsItsStepsDecisionsAndFindings() {
        checkAnswerReading(Self.endpoint, runs: Self.runs, generate: Self.generate, body: { Self.body($0) }) { setup in
            let initial = setup.initial ?? PlaybackState()
            return [.init(name: "isPlaying", value: "\(initial.isPlaying)"),
                    .init(name: "resumeAfterInterruption", value: "\(initial.resumeAfterInterruption)")]
        }
    }

    func testEqualRequestsGetByteIdenticalAnswersWithOneStepPerEvent() {
        checkAnswersProperty(Self.endpoint, runs: Self.runs, generate: Self.generate, body: { Self.body($0) }, observesFinal: { $0.observedFinal != nil })
    }

    func testEveryStepIsTheRulesAppliedToWhatTheEventMeansInItsSession() {
        // Raw notifications translate as the adapter must; each session has its own state from `initial`;
        // `final` is the "default" session's; `sessions` lists every session seen, in order of first appearance.
        checkProperty("steps follow the rules", runs: Self.runs, generate: Self.generate) { sample in
            holds { () throws(Broken) in
                let answer = try checkedAnswer(Self.endpoint, Self.body(sample), steps: sample.events.count)
                let (expectedSteps, expectedSessions) = Self.expected(sample)
                for (index, (step, expected)) in zip(answer.elements(answer["steps"]), expectedSteps).enumerated() {
                    let shown = (answer.text(answer[step, "before"]), answer.text(answer[step, "after"]),
                                 answer.string(answer[step, "action"]))
                    let wanted = (Self.stateJSON(expected.before).description, Self.stateJSON(expected.after).description,
                                  Optional(expected.action.rawValue))
                    try expect(shown == wanted, "step \(index) shows \(shown), expected \(wanted)")
                    try expect((answer[step, "event"].map(answer.document.isNull) ?? false) == (sample.events[index].meaning == nil),
                               "step \(index) event \(answer.text(answer[step, "event"]))")
                    try expect(answer.string(answer[step, "session"]) == sample.events[index].session,
                               "step \(index) session \(answer.text(answer[step, "session"]))")
                }
                let defaultFinal = expectedSessions.first { $0.0 == "default" }?.1 ?? sample.setup.initial ?? PlaybackState()
                try expect(answer.text(answer["final"]) == Self.stateJSON(defaultFinal).description,
                           "final \(answer.text(answer["final"]))")
                let named = sample.events.contains { $0.session != nil }
                let expectedSessionsText = named ? JSON.object(expectedSessions.map { ($0.0, Self.stateJSON($0.1)) }).description : "absent"
                try expect(answer.text(answer["sessions"]) == expectedSessionsText, "sessions \(answer.text(answer["sessions"]))")
            }
        }
    }

    func testPlaybackStartsOnlyOnUserPlayOrAnAllowedInterruptionEndWhateverTheForm() {
        // playback.md: isPlaying becomes true only by userPlayed, or by an interruption end that allows
        // resuming while the intent is still there — read from the answer alone.
        checkProperty("no unasked playback", runs: Self.runs, generate: Self.generate) { sample in
            holds { () throws(Broken) in
                let answer = try checkedAnswer(Self.endpoint, Self.body(sample), steps: sample.events.count)
                for (index, step) in answer.elements(answer["steps"]).enumerated() {
                    let started = answer.bool(answer[answer[step, "before"], "isPlaying"]) == false
                        && answer.bool(answer[answer[step, "after"], "isPlaying"]) == true
                    try expect(started == (answer.string(answer[step, "action"]) == "play"), "step \(index): action and state disagree")
                    guard started else { continue }
                    let event = answer[step, "event"]
                    let allowed = answer.string(answer[event, "type"]) == "userPlayed"
                        || (answer.string(answer[event, "type"]) == "interruptionEnded" && answer.bool(answer[event, "shouldResume"]) == true
                            && answer.bool(answer[answer[step, "before"], "resumeAfterInterruption"]) == true)
                    try expect(allowed, "step \(index) started playing on \(answer.text(event))")
                }
            }
        }
    }

    func testObservingWhatTheRulesDecidedPassesAndOneWrongFieldIsOneMismatch() {
        // common.md: `pass` when every observed field equals the canonical one; one mismatch per differing field.
        checkProperty("observed", runs: Self.runs, generate: Self.generate) { sample in
            holds { () throws(Broken) in
                guard !sample.events.isEmpty else { return }
                let (expectedSteps, expectedSessions) = Self.expected(sample)
                var events = sample.events
                for index in events.indices {
                    let step = expectedSteps[index]
                    events[index].observed = [("isPlaying", .bool(step.after.isPlaying)),
                                              ("resumeAfterInterruption", .bool(step.after.resumeAfterInterruption)),
                                              ("action", .string(step.action.rawValue))]
                }
                let defaultFinal = expectedSessions.first { $0.0 == "default" }?.1 ?? sample.setup.initial ?? PlaybackState()
                let observedFinal: [(String, JSON)] = [("isPlaying", .bool(defaultFinal.isPlaying))]
                let agreeing = try checkedAnswer(Self.endpoint, Self.body(sample, events: events, observedFinal: observedFinal),
                                                 steps: events.count)
                try expect(agreeing.verdict == .pass && agreeing.elements(agreeing["mismatches"]).isEmpty,
                           "observing the rules' own values: \(agreeing.verdict) \(agreeing.text(agreeing["mismatches"]))")

                // One wrong field, chosen from the sample's shape so a replay picks the same one.
                let wrongIndex = sample.events.count / 2, wrongField = sample.events.count % 3
                let (name, value) = events[wrongIndex].observed![wrongField]
                let wrong: JSON = if case .bool(let flag) = value { .bool(!flag) } else {
                    .string(expectedSteps[wrongIndex].action == .play ? "pause" : "play")
                }
                events[wrongIndex].observed![wrongField] = (name, wrong)
                let disagreeing = try checkedAnswer(Self.endpoint, Self.body(sample, events: events, observedFinal: observedFinal),
                                                    steps: events.count)
                let mismatches = disagreeing.elements(disagreeing["mismatches"])
                try expect(disagreeing.verdict == .fail && mismatches.count == 1
                           && disagreeing.number(disagreeing[mismatches[0], "index"]) == Double(wrongIndex)
                           && disagreeing.string(disagreeing[mismatches[0], "field"]) == name,
                           "one wrong \(name) at \(wrongIndex): \(disagreeing.text(disagreeing["mismatches"]))")
            }
        }
    }
}
