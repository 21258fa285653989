import DeviceOracleJSON
import DeviceOracleRules
import PropertyChecking
import XCTest
@testable import DeviceOracleWire

/// late-start.md over the three rulesets whose state is finite, for random logs: a
/// log observed along its true path from a random reachable start keeps that start
/// and passes; with one observed value corrupted, the reported path and the
/// candidates are those a brute force over every explicit `initial` gives; and the
/// answer is that explicit answer, byte for byte, with the two members after `final`.
final class LateStartPropertyTests: XCTestCase {
    /// A ruleset as this property drives it.
    private struct Ruleset: Sendable {
        let endpoint: RulesetEndpoint
        /// Members the request carries besides `initial` and `events`, each with its comma.
        let settings: String
        /// Canonical events the generator picks from.
        let events: [String]
        /// The `initial` object that starts a request in a candidate's state, when
        /// `initial` can name all of it.
        let explicitInitial: @Sendable (String) -> String?
        /// The state after each event from a candidate's state, as the answer writes it.
        let truePath: @Sendable (_ start: String, _ events: [String]) -> [String]
    }

    private struct Setup {
        var start: Int
        /// The event whose observed value is corrupted, by position among the observed ones.
        var corrupted: Int?
    }

    /// An event, and whether its step's `after` is observed.
    private struct Event: CustomStringConvertible {
        var json: String
        var observed: Bool
        var description: String { "\(json)\(observed ? " observed" : "")" }
    }

    private static let runs = max(PropertyRuns.count / 8, 1)

    private static func explicitAnswer(_ endpoint: RulesetEndpoint, settings: String, initial: String, events: [String]) -> [String] {
        guard case .success(let answer) = endpoint.answer(Array(#"{\#(settings)"initial":\#(initial),"events":[\#(events.joined(separator: ","))]}"#.utf8)),
              let document = try? JSONReader.parse(answer.json) else { return [] }
        let steps = document.member(document.root, "steps").map { Array(document.elements($0)) } ?? []
        return steps.map { step in
            var writer = JSONWriter()
            writer.value(document.member(step, "after")!, of: document)
            return String(decoding: writer.bytes, as: UTF8.self)
        }
    }

    private static func wholeState(_ endpoint: RulesetEndpoint, settings: String) -> Ruleset {
        Ruleset(endpoint: endpoint, settings: settings, events: [], explicitInitial: { $0 }) { start, events in
            explicitAnswer(endpoint, settings: settings, initial: start, events: events)
        }
    }

    private static let playback: Ruleset = {
        var ruleset = wholeState(PlaybackRuleset.endpoint, settings: "")
        ruleset = Ruleset(endpoint: ruleset.endpoint, settings: "", events: [
            #"{"type":"interruptionBegan"}"#, #"{"type":"interruptionEnded","shouldResume":true}"#,
            #"{"type":"interruptionEnded","shouldResume":false}"#, #"{"type":"userPaused"}"#, #"{"type":"userPlayed"}"#,
            #"{"type":"outputDisconnected"}"#, #"{"type":"routeChanged","reason":"oldDeviceUnavailable"}"#,
            #"{"type":"routeChanged","reason":"categoryChange"}"#,
        ], explicitInitial: ruleset.explicitInitial, truePath: ruleset.truePath)
        return ruleset
    }()

    private static let audioSession: Ruleset = {
        let ruleset = wholeState(AudioSessionRuleset.endpoint, settings: #""category":"playback","#)
        return Ruleset(endpoint: ruleset.endpoint, settings: ruleset.settings, events: [
            #"{"type":"launched"}"#, #"{"type":"enteredBackground"}"#, #"{"type":"deactivationFailed"}"#,
            #"{"type":"deactivationSucceeded"}"#, #"{"type":"enteredForeground"}"#, #"{"type":"interruptionBegan"}"#,
            #"{"type":"interruptionEnded","shouldResume":true}"#, #"{"type":"interruptionEnded"}"#,
            #"{"type":"mediaServicesLost"}"#, #"{"type":"mediaServicesReset"}"#, #"{"type":"willTerminate"}"#,
            #"{"type":"playSound","name":"coin"}"#, #"{"type":"routeChanged","reason":"oldDeviceUnavailable"}"#,
        ], explicitInitial: ruleset.explicitInitial, truePath: ruleset.truePath)
    }()

    private static let hapticsEvents = HapticsEvent.allCases.map { #"{"type":"\#($0.rawValue)"}"# }

    /// Without haptics the engine is always `unsupported`, so `initial`'s `phase` names
    /// a whole candidate.
    private static let hapticsUnsupported: Ruleset = {
        let settings = #""supportsHaptics":false,"#
        return Ruleset(endpoint: HapticsRuleset.endpoint, settings: settings, events: hapticsEvents,
                       explicitInitial: { start in
                           start.replacingOccurrences(of: #","engine":"unsupported""#, with: "")
                       }) { start, events in
            explicitAnswer(HapticsRuleset.endpoint, settings: settings,
                           initial: start.replacingOccurrences(of: #","engine":"unsupported""#, with: ""), events: events)
        }
    }()

    /// With haptics a candidate's engine is not an `initial`: its true path is the machine's.
    private static let hapticsSupported = Ruleset(endpoint: HapticsRuleset.endpoint, settings: "", events: hapticsEvents,
                                                  explicitInitial: { _ in nil }) { start, events in
        guard let document = try? JSONReader.parse(Array(start.utf8)),
              let phase = document.member(document.root, "phase").flatMap(document.string).flatMap(SavePhase.init),
              let engine = document.member(document.root, "engine").flatMap(document.string).flatMap(HapticEngineState.init)
        else { return [] }
        var machine = HapticsMachine(state: HapticsState(phase: phase, engine: engine))
        return events.map { json in
            let type = json.dropFirst(9).dropLast(2)
            if let event = HapticsEvent(rawValue: String(type)) { _ = machine.apply(event) }
            return #"{"phase":"\#(machine.state.phase.rawValue)","engine":"\#(machine.state.engine.rawValue)"}"#
        }
    }

    private static func candidates(_ ruleset: Ruleset) -> [String] {
        guard case .success(let answer) = ruleset.endpoint.answer(Array(#"{\#(ruleset.settings)"initial":"unknown","events":[]}"#.utf8)),
              let document = try? JSONReader.parse(answer.json),
              let list = document.member(document.root, "initialCandidates") else { return [] }
        return document.elements(list).map { value in
            var writer = JSONWriter()
            writer.value(value, of: document)
            return String(decoding: writer.bytes, as: UTF8.self)
        }
    }

    private static func generate(_ ruleset: Ruleset, candidateCount: Int, corrupts: Bool) -> (inout SplitMix64) -> Sample<Setup, Event> {
        { random in
            let events = (0..<Int.random(in: 1...12, using: &random)).map { _ in
                Event(json: random.pick(ruleset.events), observed: random.chance(50))
            }
            let observedCount = events.filter(\.observed).count
            let corrupted = corrupts && observedCount > 0 ? Int.random(in: 0..<observedCount, using: &random) : nil
            return Sample(setup: Setup(start: Int.random(in: 0..<candidateCount, using: &random), corrupted: corrupted),
                          events: events)
        }
    }

    /// `observed` of one step: its whole `after`, or, corrupted, its first field with another value.
    private static func observed(_ after: String, corrupted: Bool) -> String {
        guard corrupted else { return after }
        let field = after.dropFirst().prefix { $0 != ":" }
        let value = after.dropFirst(field.count + 2).prefix { $0 != "," && $0 != "}" }
        let other = switch value {
        case "true": "false"
        case "false": "true"
        default: #""corrupted""#
        }
        return "{\(field):\(other)}"
    }

    /// The summary line of the NDJSON form of `body`.
    private static func streamedSummary(_ endpoint: RulesetEndpoint, _ body: String) -> Answer? {
        let check = NDJSONCheck(endpoint: endpoint, detail: .all, maxLineBytes: 1 << 20) { _ in Array("{}".utf8) }
        var output: [UInt8] = []
        _ = Array(body.utf8).withUnsafeBytes { check.receive($0, output: &output) }
        for _ in 0..<3 { _ = check.finish(output: &output) }
        guard let last = output.split(separator: UInt8(ascii: "\n")).last else { return nil }
        return try? parsed(Array(last))
    }

    /// The property, for one ruleset.
    private func check(_ ruleset: Ruleset, corrupts: Bool, _ name: String) {
        let candidates = Self.candidates(ruleset)
        XCTAssertFalse(candidates.isEmpty)
        checkProperty(name, runs: Self.runs, generate: Self.generate(ruleset, candidateCount: candidates.count, corrupts: corrupts)) { sample in
            let start = candidates[sample.setup.start % candidates.count]
            let plain = sample.events.map(\.json)
            let truth = ruleset.truePath(start, plain)
            guard truth.count == plain.count else { return "the true path has \(truth.count) steps" }
            var observedPosition = 0
            let events = zip(sample.events, truth).map { event, after in
                guard event.observed else { return event.json }
                defer { observedPosition += 1 }
                let observed = Self.observed(after, corrupted: observedPosition == sample.setup.corrupted)
                return String(event.json.dropLast()) + #","observed":\#(observed)}"#
            }
            let body = #"{\#(ruleset.settings)"initial":"unknown","events":[\#(events.joined(separator: ","))]}"#
            guard let late = try? answer(ruleset.endpoint, body) else { return "rejected: \(body)" }
            let lateCandidates = (0..<candidates.count).compactMap { late["/initialCandidates/\($0)"] }
            let anyObserved = sample.events.contains(where: \.observed)

            // The NDJSON form's summary: the same members, from every candidate followed at once.
            let head = #"{\#(ruleset.settings)"initial":"unknown"}"#
            guard let summary = Self.streamedSummary(ruleset.endpoint, ([head] + events).joined(separator: "\n")) else {
                return "the stream has no summary"
            }
            for member in ["/final", "/initialCandidates", "/determinedAt", "/verdict", "/mismatches", "/diagnostics", "/summary"]
                where summary[member] != late[member] {
                return "the stream's \(member) is \(summary[member] ?? "absent"), the JSON form's \(late[member] ?? "absent")"
            }

            if sample.setup.corrupted == nil {
                guard lateCandidates.contains(start) else { return "the true start \(start) is not among \(lateCandidates)" }
                guard late.verdict == (anyObserved ? .pass : .unchecked) else { return "verdict \(late.verdict)" }
            }

            // Brute force: each candidate as an explicit initial, where one names it.
            var firstMismatch: [Int?] = []
            var explicitTexts: [String] = []
            for candidate in candidates {
                guard let initial = ruleset.explicitInitial(candidate) else { return nil }
                let explicitBody = #"{\#(ruleset.settings)"initial":\#(initial),"events":[\#(events.joined(separator: ","))]}"#
                guard let explicit = try? answer(ruleset.endpoint, explicitBody) else { return "rejected: \(explicitBody)" }
                explicitTexts.append(explicit.text)
                firstMismatch.append(explicit["/mismatches/0/index"].map { $0 == "null" ? plain.count : Int($0) ?? -1 })
            }
            let consistent = candidates.indices.filter { firstMismatch[$0] == nil }
            let reported = consistent.first ?? candidates.indices.max { (firstMismatch[$0] ?? 0, $1) < (firstMismatch[$1] ?? 0, $0) }!
            guard lateCandidates == consistent.map({ candidates[$0] }) else {
                return "candidates \(lateCandidates), brute force \(consistent.map { candidates[$0] })"
            }
            let members = #","initialCandidates":\#(late["/initialCandidates"] ?? ""),"determinedAt":\#(late["/determinedAt"] ?? "")"#
            guard late.text.replacingOccurrences(of: members, with: "") == explicitTexts[reported] else {
                return "the answer is not candidate \(reported)'s explicit answer:\n\(late.text)\n\(explicitTexts[reported])"
            }
            // determinedAt: the first step from which every consistent candidate's path agrees.
            let paths = consistent.map { ruleset.truePath(candidates[$0], plain) }
            let agreeing = plain.indices.first { step in paths.allSatisfy { $0[step] == paths.first?[step] } }
            let expected = consistent.isEmpty ? "null" : agreeing.map(String.init) ?? "null"
            guard late["/determinedAt"] == expected else { return "determinedAt \(late["/determinedAt"] ?? ""), expected \(expected)" }
            return nil
        }
    }

    func testPlaybackTrueStartSurvives() { check(Self.playback, corrupts: false, "late-start playback true start") }
    func testPlaybackCorruptedValueReportsTheTieBreaksPath() { check(Self.playback, corrupts: true, "late-start playback corrupted") }
    func testAudioSessionTrueStartSurvives() { check(Self.audioSession, corrupts: false, "late-start audio-session true start") }
    func testAudioSessionCorruptedValueReportsTheTieBreaksPath() {
        check(Self.audioSession, corrupts: true, "late-start audio-session corrupted")
    }
    func testHapticsWithoutHapticsTrueStartSurvives() {
        check(Self.hapticsUnsupported, corrupts: false, "late-start haptics unsupported true start")
    }
    func testHapticsWithoutHapticsCorruptedValueReportsTheTieBreaksPath() {
        check(Self.hapticsUnsupported, corrupts: true, "late-start haptics unsupported corrupted")
    }
    func testHapticsTrueStartSurvives() { check(Self.hapticsSupported, corrupts: false, "late-start haptics true start") }
}
