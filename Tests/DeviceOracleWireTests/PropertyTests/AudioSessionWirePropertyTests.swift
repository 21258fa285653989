import DeviceOracleJSON
import DeviceOracleRules
import PropertyChecking
import XCTest
@testable import DeviceOracleWire

/// `audio-session.md` over the wire, for random lifecycles mixing canonical events
/// and raw notifications (media services included), every category, `at` values in
/// and out of order, and random `observed` checks.
final class AudioSessionWirePropertyTests: XCTestCase {
    private typealias Event = GeneratedEvent<AudioSessionEvent>

    private struct Setup {
        var category: AudioSessionCategory?
        var initial: AudioSessionState?
        var observedFinal: [(String, JSON)]?
    }

    private typealias WireSample = Sample<Setup, Event>

    private static let endpoint = AudioSessionRuleset.endpoint
    private static let runs = max(PropertyRuns.count / 8, 1)
    private static let stateFields = ["foreground", "active", "interrupted", "categorySet", "observing", "deactivationPending"]

    private static func generate(_ random: inout SplitMix64) -> WireSample {
        let flags = (0..<6).map { _ in Bool.random(using: &random) }
        let initial = random.chance(60) ? nil : AudioSessionState(foreground: flags[0], active: flags[1], interrupted: flags[2],
                                                                  categorySet: flags[3], observing: flags[4],
                                                                  deactivationPending: flags[5])
        var previousAt = Double(Int.random(in: 0...10_000, using: &random))
        let events = (0..<Int.random(in: sequenceLengths, using: &random)).map { _ in event(&random, previousAt: &previousAt) }
        let observedFinal = random.chance(15) ? stateFields.filter { _ in random.chance(50) }.map { ($0, JSON.bool(random.chance(50))) } : nil
        let category = random.chance(50) ? nil : random.pick(AudioSessionCategory.allCases)
        return Sample(setup: Setup(category: category, initial: initial, observedFinal: observedFinal), events: events)
    }

    private static func event(_ random: inout SplitMix64, previousAt: inout Double) -> Event {
        let (envelopeMembers, at) = envelope(&random, previousAt: &previousAt)
        var members: [(String, JSON)], meaning: AudioSessionEvent?
        if random.chance(60) {
            let plain: [(String, AudioSessionEvent)] = [
                ("launched", .launched), ("enteredBackground", .enteredBackground), ("deactivationFailed", .deactivationFailed),
                ("deactivationSucceeded", .deactivationSucceeded), ("enteredForeground", .enteredForeground),
                ("interruptionBegan", .interruptionBegan), ("mediaServicesLost", .mediaServicesLost),
                ("mediaServicesReset", .mediaServicesReset), ("willTerminate", .willTerminate),
            ]
            switch Int.random(in: 0..<4, using: &random) {
            case 0:
                let name = random.pick(["coin", "jump", "é \"boom\"", ""])
                (members, meaning) = ([("type", .string("playSound")), ("name", .string(name))], .playSound(name: name))
            case 1:
                // shouldResume is optional here; null is the same as absent.
                let hint: (JSON?, Bool?) = random.pick([(nil, nil), (.null, nil), (.bool(true), true), (.bool(false), false)])
                (members, meaning) = ([("type", .string("interruptionEnded"))] + (hint.0.map { [("shouldResume", $0)] } ?? []),
                                      .interruptionEnded(shouldResume: hint.1))
            case 2:
                let routeChange = canonicalRouteChange(&random)
                (members, meaning) = (routeChange.members, .routeChanged(reason: routeChange.reason))
            default:
                let (type, event) = random.pick(plain)
                (members, meaning) = ([("type", .string(type))], event)
            }
        } else {
            let raw = rawNotification(&random, mediaServices: true)
            members = raw.members
            meaning = switch raw.meaning {
            case .interruptionBegan: .interruptionBegan
            case .interruptionEnded(let shouldResume): .interruptionEnded(shouldResume: shouldResume)
            case .routeChanged(let reason): .routeChanged(reason: reason)
            case .mediaServicesLost: .mediaServicesLost
            case .mediaServicesReset: .mediaServicesReset
            case .nothing: nil
            }
        }
        members += envelopeMembers
        members.shuffle(using: &random)
        let observedFields = stateFields + ["actions", "soundPlayed"]
        let observed: [(String, JSON)]? = random.chance(20) ? observedFields.filter { _ in random.chance(30) }.map { field in
            (field, field == "actions" ? .array([.string("activate")]) : .bool(random.chance(50)))
        } : nil
        return Event(members: members, meaning: meaning, at: at, observed: observed)
    }

    private static func body(_ sample: WireSample) -> JSON {
        var members: [(String, JSON)] = [("events", .array(sample.events.map(\.json)))]
        if let category = sample.setup.category { members.append(("category", .string(category.rawValue))) }
        if let initial = sample.setup.initial { members.append(("initial", stateJSON(initial))) }
        if let observed = sample.setup.observedFinal { members.append(("observedFinal", .object(observed))) }
        return .object(members)
    }

    private static func stateJSON(_ state: AudioSessionState) -> JSON {
        let values = [state.foreground, state.active, state.interrupted, state.categorySet, state.observing, state.deactivationPending]
        return .object(zip(stateFields, values).map { ($0, JSON.bool($1)) })
    }

    func testEachAnswerReadsAsItsStepsDecisionsAndFindings() {
        checkAnswerReading(Self.endpoint, runs: Self.runs, generate: Self.generate, body: { Self.body($0) }) { setup in
            setup.initial.map { initial in
                let values = [initial.foreground, initial.active, initial.interrupted, initial.categorySet, initial.observing,
                              initial.deactivationPending]
                return zip(Self.stateFields, values).map { AnswerReading.Field(name: $0, value: "\($1)") }
            }
        }
    }

    func testEqualRequestsGetByteIdenticalAnswersWithOneStepPerEvent() {
        checkAnswersProperty(Self.endpoint, runs: Self.runs, generate: Self.generate, body: { Self.body($0) }, observesFinal: { $0.observedFinal != nil })
    }

    func testEveryStepIsTheRulesAppliedToWhatTheEventMeans() {
        // Raw notifications, media services included, translate as the adapter must; the steps and `final`
        // are exactly the rules' for the category given (ambient when none).
        checkProperty("steps follow the rules", runs: Self.runs, generate: Self.generate) { sample in
            holds { () throws(Broken) in
                let answer = try checkedAnswer(Self.endpoint, Self.body(sample), steps: sample.events.count)
                var machine = AudioSessionMachine(state: sample.setup.initial ?? AudioSessionState(),
                                                  category: sample.setup.category ?? .ambient)
                for (index, (step, event)) in zip(answer.elements(answer["steps"]), sample.events).enumerated() {
                    let before = machine.state
                    let decision = event.meaning.map { machine.apply($0) } ?? AudioSessionDecision()
                    let shown = [answer.text(answer[step, "before"]), answer.text(answer[step, "after"]),
                                 answer.text(answer[step, "actions"]), answer.text(answer[step, "soundPlayed"]),
                                 answer.text(answer[step, "resumeHint"])]
                    let hint: String = switch decision.resumeHint {
                    case nil: "absent"
                    case .shouldResume?: "true"
                    case .shouldNotResume?: "false"
                    case .notGiven?: "null"
                    }
                    let wanted = [Self.stateJSON(before).description, Self.stateJSON(machine.state).description,
                                  JSON.array(decision.actions.map { .string($0.rawValue) }).description,
                                  "\(decision.soundPlayed)", hint]
                    try expect(shown == wanted, "step \(index) shows \(shown), expected \(wanted)")
                }
                try expect(answer.text(answer["final"]) == Self.stateJSON(machine.state).description, "final \(answer.text(answer["final"]))")
                try expect(answer.string(answer["category"]) == (sample.setup.category ?? .ambient).rawValue, "category")
            }
        }
    }

    func testNoSoundIsEverPlayedWhileTheSessionIsInactive() {
        // audio-session.md: the app never tries to play a sound while its session is not active —
        // read from the answer alone: `soundPlayed` only on a playSound step whose `before` is active.
        checkProperty("no sound while inactive", runs: Self.runs, generate: Self.generate) { sample in
            holds { () throws(Broken) in
                let answer = try checkedAnswer(Self.endpoint, Self.body(sample), steps: sample.events.count)
                for (index, step) in answer.elements(answer["steps"]).enumerated() where answer.bool(answer[step, "soundPlayed"]) == true {
                    try expect(answer.string(answer[answer[step, "event"], "type"]) == "playSound"
                               && answer.bool(answer[answer[step, "before"], "active"]) == true,
                               "step \(index) played a sound from \(answer.text(answer[step, "before"]))")
                    try expect(answer.strings(answer[step, "actions"]) == ["playNewPlayer"], "step \(index) played without a new player")
                }
            }
        }
    }
}
