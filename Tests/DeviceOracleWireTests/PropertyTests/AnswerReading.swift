import DeviceOracleJSON
import DeviceOracleRules
import PropertyChecking
@testable import DeviceOracleWire

/// A ruleset endpoint's JSON answer read back from its text: per step the `before`
/// state, the canonical `event`, the `after` state and the decision; the answer's
/// mismatches, diagnostics, verdict, final state and the ruleset's own members.
///
/// Issue 42 makes every output a rendering of one typed evaluation. This is the
/// text side of the comparison its property test asks for: what today's
/// text-and-parse path says, extracted member by member, so that a typed value can be
/// held equal to it over the rulesets' random logs. Values are compact JSON text
/// (`true`, `"pause"`, `[{"id":"a","revision":1}]`), members in the answer's order.
struct AnswerReading: Equatable {
    struct Field: Equatable, CustomStringConvertible {
        var name: String
        /// The value as compact JSON text.
        var value: String
        var description: String { "\(name)=\(value)" }
    }

    struct Step: Equatable {
        var index: Int
        /// `id` and `session` as the step repeats them from the log (JSON text), when it does.
        var id: String?
        var session: String?
        /// The canonical event the rules decided (JSON text); `nil` when the step has
        /// none (refresh's runs, which carry their own members among the decision).
        var event: String?
        var before: [Field]
        var after: [Field]
        /// Every other member, in order: the decision and what it did — playback's
        /// `action`; haptics' `visible`, `haptic`, `actions`; refresh's `at`, `outcome`,
        /// `taskCompleted`, …; audio-session's `actions`, `soundPlayed`.
        var decision: [Field]
    }

    struct Mismatch: Equatable {
        /// `nil` for `observedFinal`.
        var index: Int?
        var field: String
        var expected: String
        var observed: String
        /// Any other member (`detail`).
        var others: [Field]
    }

    struct Diagnostic: Equatable {
        var index: Int?
        var severity: String
        var code: String
        var message: String
        var others: [Field]
    }

    var ruleset: String
    var verdict: String
    var final: [Field]
    var steps: [Step]
    var mismatches: [Mismatch]
    var diagnostics: [Diagnostic]
    /// The ruleset's own members, in order (`canonicalPattern`, `summary`, `category`,
    /// `configCheck`, `patternCheck`, …).
    var others: [Field]

    struct Unreadable: Error, CustomStringConvertible {
        let description: String
    }

    init(_ json: [UInt8]) throws(Unreadable) {
        guard let document = try? JSONReader.parse(json, maxDepth: .max) else { throw Unreadable(description: "not JSON") }
        let reader = Reader(document: document)
        let root = document.root
        guard document.kind(root) == .object else { throw Unreadable(description: "not an object") }
        var ruleset: String?, verdict: String?, final: [Field]?, steps: [Step]?
        var mismatches: [Mismatch]?, diagnostics: [Diagnostic]?, others: [Field] = []
        for member in document.members(root) {
            let name = document.string(member.key) ?? ""
            let value = member.value
            switch name {
            case "ruleset": ruleset = document.string(value)
            case "verdict": verdict = document.string(value)
            case "final": final = try reader.fields(value, "final")
            case "steps": steps = try reader.elements(value, "steps").map { step throws(Unreadable) in try reader.step(step) }
            case "mismatches":
                mismatches = try reader.elements(value, "mismatches").map { item throws(Unreadable) in
                    var rest = try reader.fields(item, "a mismatch")
                    return Mismatch(index: reader.index(item), field: AnswerReading.take("field", from: &rest).map(AnswerReading.unquoted) ?? "",
                                    expected: AnswerReading.take("expected", from: &rest) ?? "", observed: AnswerReading.take("observed", from: &rest) ?? "",
                                    others: rest.filter { $0.name != "index" })
                }
            case "diagnostics":
                diagnostics = try reader.elements(value, "diagnostics").map { item throws(Unreadable) in
                    var rest = try reader.fields(item, "a diagnostic")
                    return Diagnostic(index: reader.index(item), severity: AnswerReading.take("severity", from: &rest).map(AnswerReading.unquoted) ?? "",
                                      code: AnswerReading.take("code", from: &rest).map(AnswerReading.unquoted) ?? "",
                                      message: AnswerReading.take("message", from: &rest).map(AnswerReading.unquoted) ?? "",
                                      others: rest.filter { $0.name != "index" })
                }
            default: others.append(Field(name: name, value: reader.text(value)))
            }
        }
        guard let ruleset, let verdict, let final, let steps, let mismatches, let diagnostics else {
            throw Unreadable(description: "an answer without ruleset, verdict, final, steps, mismatches or diagnostics")
        }
        (self.ruleset, self.verdict, self.final, self.steps) = (ruleset, verdict, final, steps)
        (self.mismatches, self.diagnostics, self.others) = (mismatches, diagnostics, others)
    }

    /// What does not hang together in the reading of a log of `events` events (the
    /// text alone; the typed evaluation is the real reference): one step per event in
    /// order; findings that name existing steps; a verdict its mismatches allow; each
    /// step starting where the one before on its machine (its `session`) ended, the
    /// first on each machine from `initial` when given; and `final` where the default
    /// machine's last step ended.
    func inconsistencies(events: Int, initial: [Field]? = nil) -> [String] {
        var found: [String] = []
        if steps.map(\.index) != Array(0..<events) { found.append("step indexes \(steps.map(\.index)) for \(events) events") }
        for index in mismatches.compactMap(\.index) + diagnostics.compactMap(\.index) where !(0..<events).contains(index) {
            found.append("a finding at step \(index) of \(events)")
        }
        if !mismatches.isEmpty && verdict != "fail" { found.append("\(mismatches.count) mismatches, verdict \(verdict)") }
        if !["pass", "fail", "unchecked"].contains(verdict) { found.append("verdict \(verdict)") }
        var machines: [String: [Field]] = [:]
        let defaultMachine = "\"default\""
        for step in steps {
            let machine = step.session ?? defaultMachine
            if let start = machines[machine] ?? initial, step.before != start {
                found.append("step \(step.index) starts from \(step.before), its machine was at \(start)")
            }
            machines[machine] = step.after
        }
        if let last = machines[defaultMachine], last != final {
            found.append("final \(final), the default machine's last step ended at \(last)")
        }
        return found
    }

    private static func unquoted(_ text: String) -> String {
        guard text.count >= 2, text.first == "\"", text.last == "\"" else { return text }
        return String(text.dropFirst().dropLast())
    }

    private static func take(_ name: String, from fields: inout [Field]) -> String? {
        guard let position = fields.firstIndex(where: { $0.name == name }) else { return nil }
        return fields.remove(at: position).value
    }

    private struct Reader {
        let document: JSONDocument

        func text(_ value: JSONValue) -> String {
            var writer = JSONWriter()
            writer.value(value, of: document)
            return String(decoding: writer.finish(), as: UTF8.self)
        }

        func fields(_ value: JSONValue, _ what: String) throws(Unreadable) -> [Field] {
            guard document.kind(value) == .object else { throw Unreadable(description: "\(what) is not an object") }
            return document.members(value).map { Field(name: document.string($0.key) ?? "", value: text($0.value)) }
        }

        func elements(_ value: JSONValue, _ what: String) throws(Unreadable) -> [JSONValue] {
            guard document.kind(value) == .array else { throw Unreadable(description: "\(what) is not an array") }
            return Array(document.elements(value))
        }

        func index(_ value: JSONValue) -> Int? {
            document.member(value, "index").flatMap(document.integer)
        }

        func step(_ value: JSONValue) throws(Unreadable) -> Step {
            guard let index = index(value) else { throw Unreadable(description: "a step without its index") }
            var step = Step(index: index, before: [], after: [], decision: [])
            for member in document.members(value) {
                switch document.string(member.key) ?? "" {
                case "index": continue
                case "id": step.id = text(member.value)
                case "session": step.session = text(member.value)
                case "event": step.event = text(member.value)
                case "before": step.before = try fields(member.value, "before")
                case "after": step.after = try fields(member.value, "after")
                case let name: step.decision.append(Field(name: name, value: text(member.value)))
                }
            }
            return step
        }
    }
}

/// The property each ruleset's wire tests run over its random logs: the answer reads
/// as an `AnswerReading` that hangs together, with the header's verdict.
func checkAnswerReading<Setup, Meaning>(
    _ endpoint: RulesetEndpoint, runs: Int,
    generate: (inout SplitMix64) -> Sample<Setup, GeneratedEvent<Meaning>>,
    body: (Sample<Setup, GeneratedEvent<Meaning>>) -> JSON,
    initial: (Setup) -> [AnswerReading.Field]? = { _ in nil },
    file: StaticString = #filePath, line: UInt = #line
) {
    checkProperty("answer reading", runs: runs, generate: generate, file: file, line: line) { sample in
        holds { () throws(Broken) in
            let bytes = Array(body(sample).description.utf8)
            guard case .success(let answer) = endpoint.answer(bytes) else { throw Broken(message: "refused") }
            let reading: AnswerReading
            do {
                reading = try AnswerReading(answer.json)
            } catch {
                throw Broken(message: "unreadable: \(error)")
            }
            try expect(reading.ruleset == endpoint.name, "ruleset \(reading.ruleset)")
            try expect(reading.verdict == answer.verdict.rawValue, "verdict \(reading.verdict), header \(answer.verdict)")
            let problems = reading.inconsistencies(events: sample.events.count, initial: initial(sample.setup))
            try expect(problems.isEmpty, problems.joined(separator: "; "))
        }
    }
}
