import DeviceOracleJSON
import DeviceOracleRules
import PropertyChecking
@testable import DeviceOracleWire

/// A JSON value for a generated request, written with its members in the order given.
indirect enum JSON: CustomStringConvertible {
    case object([(String, JSON)])
    case array([JSON])
    case string(String)
    /// A number as written: `1`, `1.0`, `-1`, `2.5`.
    case number(String)
    case bool(Bool)
    case null

    static func int(_ value: Int) -> JSON { .number(String(value)) }

    var description: String {
        switch self {
        case .object(let members): "{" + members.map { JSON.quoted($0.0) + ":" + $0.1.description }.joined(separator: ",") + "}"
        case .array(let elements): "[" + elements.map(\.description).joined(separator: ",") + "]"
        case .string(let text): JSON.quoted(text)
        case .number(let text): text
        case .bool(let flag): flag ? "true" : "false"
        case .null: "null"
        }
    }

    private static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20: out += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                + String(scalar.value, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}

/// One event of a generated log: its JSON members, and what the rules must see —
/// `nil` when nothing reaches the state machine (an untranslatable notification).
struct GeneratedEvent<Meaning>: CustomStringConvertible {
    var members: [(String, JSON)]
    var meaning: Meaning?
    /// Its `at`, when it has one (for `outOfOrder`).
    var at: Double?
    /// The playback session it names, if any.
    var session: String?
    /// Its `observed` members, kept apart so a property can replace them.
    var observed: [(String, JSON)]?

    /// The event object as the request carries it.
    var json: JSON { .object(members + (observed.map { [("observed", JSON.object($0))] } ?? [])) }

    var description: String { json.description }
}

/// Why a property does not hold; `holds` turns it into the property's answer.
struct Broken: Error {
    let message: String
}

func expect(_ condition: Bool, _ message: @autoclosure () -> String) throws(Broken) {
    if !condition { throw Broken(message: message()) }
}

/// `nil` when `check` finds nothing wrong, else what it found.
func holds(_ check: () throws(Broken) -> Void) -> String? {
    do {
        try check()
        return nil
    } catch {
        return error.message
    }
}

/// An answer, parsed, with the few readers the properties need.
struct ParsedAnswer {
    let bytes: [UInt8]
    let verdict: Verdict
    let document: JSONDocument

    var root: JSONValue { document.root }

    subscript(_ value: JSONValue?, _ key: String) -> JSONValue? {
        guard let value, document.kind(value) == .object else { return nil }
        return document.member(value, named: key)
    }

    subscript(_ key: String) -> JSONValue? { self[root, key] }

    func elements(_ value: JSONValue?) -> [JSONValue] {
        guard let value, document.kind(value) == .array else { return [] }
        return Array(document.elements(value))
    }

    func bool(_ value: JSONValue?) -> Bool? { value.flatMap(document.bool) }
    func number(_ value: JSONValue?) -> Double? { value.flatMap(document.number) }
    func string(_ value: JSONValue?) -> String? { value.flatMap(document.string) }
    func strings(_ value: JSONValue?) -> [String] { elements(value).compactMap(document.string) }

    /// A value written compactly, `absent` when there is none.
    func text(_ value: JSONValue?) -> String {
        guard let value else { return "absent" }
        var writer = JSONWriter()
        writer.value(value, of: document)
        return String(decoding: writer.finish(), as: UTF8.self)
    }

    /// The diagnostics' `(index, code)` pairs.
    var diagnostics: [(index: Int?, code: String)] {
        elements(self["diagnostics"]).map { (number(self[$0, "index"]).map { Int($0) }, string(self[$0, "code"]) ?? "") }
    }
}

/// Answers `body` twice and checks what common.md promises of every answer: equal
/// requests give byte-identical answers, whole or in pieces; the answer is valid
/// JSON naming its ruleset, with one step per event and the verdict of its header.
func checkedAnswer(_ endpoint: RulesetEndpoint, _ body: JSON, steps: Int) throws(Broken) -> ParsedAnswer {
    let bytes = Array(body.description.utf8)
    guard case .success(let answer) = endpoint.answer(bytes) else {
        throw Broken(message: "refused: \(endpoint.answer(bytes))")
    }
    guard case .success(let again) = endpoint.answer(bytes), again.json == answer.json, again.verdict == answer.verdict else {
        throw Broken(message: "equal requests, different answers")
    }
    let joined = WrittenBytes()
    let pieces = answer.pieces()
    while pieces.next(into: joined, minimum: 1 + bytes.count % 200) {}
    try expect(joined.bytes == answer.json, "the answer's pieces differ from the whole")
    guard let document = try? JSONReader.parse(answer.json) else { throw Broken(message: "an answer that is not JSON") }
    let parsed = ParsedAnswer(bytes: answer.json, verdict: answer.verdict, document: document)
    try expect(parsed.string(parsed["ruleset"]) == endpoint.name, "ruleset \(parsed.text(parsed["ruleset"]))")
    try expect(parsed.elements(parsed["steps"]).count == steps, "\(parsed.elements(parsed["steps"]).count) steps for \(steps) events")
    try expect(parsed.string(parsed["verdict"]) == answer.verdict.rawValue, "the header's verdict differs from the body's")
    try checkStepDetails(answer, parsed)
    try checkTypedEvaluation(endpoint, answer, parsed)
    try checkNDJSONForm(endpoint, body, answer: answer)
    try checkUnifiedLogForm(endpoint, body, seed: answer.json.count)
    return parsed
}

/// streaming.md: the same log as NDJSON — its head line, one line per element, and
/// `observedFinal` in the head or as the tail, with blank lines and CR LF, fed in
/// pieces of any size — answers each step as a line byte-identical to the JSON
/// form's step, then the JSON form's answer without `steps` plus the three totals.
func checkNDJSONForm(_ endpoint: RulesetEndpoint, _ body: JSON, answer: RulesetAnswer) throws(Broken) {
    guard case .object(let members) = body else { return }
    let seed = answer.json.count
    var head: [(String, JSON)] = [], elements: [JSON] = [], tail: JSON?
    for (name, value) in members {
        if name == "events" || name == "runs", case .array(let values) = value {
            elements = values
        } else if name == "observedFinal", seed % 2 == 0 {
            tail = .object([(name, value)])
        } else {
            head.append((name, value))
        }
    }
    var lines = [JSON.object(head).description]
    if head.isEmpty, seed % 3 == 0 { lines = [] }  // no head line at all
    lines += elements.map(\.description)
    if let tail { lines.append(tail.description) }
    var text = ""
    for (position, line) in lines.enumerated() {
        text += line + (position % 3 == 1 ? "\r\n" : "\n")
        if position % 4 == 2 { text += " \t\n" }
    }
    let bytes = Array(text.utf8)
    let check = NDJSONCheck(endpoint: endpoint, detail: .all, maxLineBytes: 1 << 20) { _ in Array("problem".utf8) }
    var output: [UInt8] = []
    var offset = 0
    let piece = 1 + seed % 97
    while offset < bytes.count {
        let end = min(offset + piece, bytes.count)
        if case .begin = bytes[offset..<end].withUnsafeBytes({ check.receive($0, output: &output) }) {
            _ = check.receive(UnsafeRawBufferPointer(start: nil, count: 0), output: &output)
        }
        offset = end
    }
    var progress = check.finish(output: &output)
    if case .begin = progress { progress = check.finish(output: &output) }
    guard case .end(let verdict) = progress, verdict == answer.verdict.rawValue else {
        throw Broken(message: "NDJSON: ended with \(progress), not the verdict \(answer.verdict)")
    }
    let answerLines = output.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).dropLast().map(Array.init)
    try expect(answerLines.count == elements.count + 1,
               "NDJSON: \(answerLines.count) lines for \(elements.count) elements: \(String(decoding: output, as: UTF8.self))")
    let steps = answerLines.dropLast().map { String(decoding: $0, as: UTF8.self) }
    let whole = String(decoding: answer.json, as: UTF8.self)
    let listed = "\"steps\":[" + steps.joined(separator: ",") + "],"
    try expect(whole.contains(listed), "NDJSON: the step lines differ from the JSON form's steps")
    guard let counts = try? JSONReader.parse(answer.json) else { throw Broken(message: "not JSON") }
    let parsed = ParsedAnswer(bytes: answer.json, verdict: answer.verdict, document: counts)
    let expected = String(whole.replacing(listed, with: "").dropLast())
        + ",\"stepCount\":\(elements.count),\"mismatchCount\":\(parsed.elements(parsed["mismatches"]).count)"
        + ",\"diagnosticCount\":\(parsed.elements(parsed["diagnostics"]).count)}"
    let summary = String(decoding: answerLines.last!, as: UTF8.self)
    try expect(summary == expected, "NDJSON summary\n\(summary)\nexpected\n\(expected)")
    // The in-process result reads the summary's values, not its line.
    guard let typed = check.summary else { throw Broken(message: "NDJSON: no typed summary") }
    try expect(typed.verdict == answer.verdict && typed.mismatches.count == answer.mismatches.count
                   && zip(typed.mismatches, answer.mismatches).allSatisfy { $0.expected == $1.expected && $0.observed == $1.observed
                       && $0.field == $1.field && $0.step == $1.step && $0.detail == $1.detail }
                   && typed.diagnostics.map(\.code) == answer.diagnostics.map(\.code)
                   && typed.diagnostics.map(\.step) == answer.diagnostics.map(\.step),
               "NDJSON: the typed summary differs from the JSON form's findings")
}

/// `?steps=` (streaming.md, "Detail"): `failing` lists exactly the steps a mismatch
/// or a diagnostic names, in order, each as `all` writes it; `none` lists none; every
/// other member is the same and the answer still has `steps`.
func checkStepDetails(_ answer: RulesetAnswer, _ parsed: ParsedAnswer) throws(Broken) {
    let steps = parsed.elements(parsed["steps"]).map { parsed.text($0) }
    let flagged = Set((parsed.elements(parsed["mismatches"]) + parsed.elements(parsed["diagnostics"])).compactMap {
        parsed.number(parsed[$0, "index"]).map { Int($0) }
    })
    func othersThanSteps(_ answer: ParsedAnswer) -> [String] {
        answer.document.members(answer.root).compactMap { member in
            answer.document.string(member.key, equals: "steps") ? nil : answer.text(member.key) + answer.text(member.value)
        }
    }
    for detail in [StepDetail.failing, .none] {
        let listed = answer.listing(detail)
        guard let document = try? JSONReader.parse(listed.json) else { throw Broken(message: "steps=\(detail): not JSON") }
        let other = ParsedAnswer(bytes: listed.json, verdict: listed.verdict, document: document)
        let expected = detail == .none ? [] : steps.enumerated().filter { flagged.contains($0.offset) }.map(\.element)
        try expect(other["steps"] != nil && other.elements(other["steps"]).map { other.text($0) } == expected,
                   "steps=\(detail) lists \(other.text(other["steps"]))")
        try expect(othersThanSteps(other) == othersThanSteps(parsed), "steps=\(detail) changes more than the steps")
        try expect(listed.verdict == answer.verdict && listed.listing(.all).json == answer.json,
                   "steps=\(detail) changes the verdict, or all no longer lists every step")
    }
}

/// The property every ruleset's answers share (common.md): byte-identical answers
/// with one step per event and the header's verdict (`checkedAnswer`), `outOfOrder`
/// exactly where `at` goes back, `unchecked` exactly when nothing is observed.
func checkAnswersProperty<Setup, Meaning>(
    _ endpoint: RulesetEndpoint, runs: Int,
    generate: (inout SplitMix64) -> Sample<Setup, GeneratedEvent<Meaning>>,
    body: (Sample<Setup, GeneratedEvent<Meaning>>) -> JSON,
    observesFinal: (Setup) -> Bool = { _ in false },
    file: StaticString = #filePath, line: UInt = #line
) {
    checkProperty("answers", runs: runs, generate: generate, file: file, line: line) { sample in
        holds { () throws(Broken) in
            let answer = try checkedAnswer(endpoint, body(sample), steps: sample.events.count)
            try checkOutOfOrder(answer, sample.events)
            let observes = observesFinal(sample.setup) || sample.events.contains { $0.observed != nil }
            try expect((answer.verdict == .unchecked) == !observes, "verdict \(answer.verdict)")
        }
    }
}

/// common.md "Ordering diagnostic": an `outOfOrder` warning exactly on each event whose
/// `at` is smaller than that of the event before it, when both carry one.
func checkOutOfOrder<Meaning>(_ answer: ParsedAnswer, _ events: [GeneratedEvent<Meaning>]) throws(Broken) {
    let flagged = answer.diagnostics.filter { $0.code == "outOfOrder" }.compactMap(\.index)
    let expected = events.indices.filter { index in
        guard index > 0, let at = events[index].at, let previous = events[index - 1].at else { return false }
        return at < previous
    }
    try expect(flagged == expected, "outOfOrder on \(flagged), expected \(expected)")
}

/// The envelope members any event may carry (common.md): `id`, `at`, and fields
/// the rules ignore. `at` is sometimes earlier than the one before.
func envelope(_ random: inout SplitMix64, previousAt: inout Double) -> (members: [(String, JSON)], at: Double?) {
    var members: [(String, JSON)] = []
    if random.chance(30) { members.append(("id", .string("line-\(Int.random(in: 0...999, using: &random))"))) }
    var at: Double?
    if random.chance(60) {
        previousAt += Double(Int.random(in: random.chance(15) ? -500...0 : 0...3000, using: &random))
        at = previousAt
        members.append(("at", .number(String(Int(previousAt)))))
    }
    if random.chance(15) { members.append(("deviceId", .string("iPhone15,2"))) }
    return (members, at)
}

/// What a raw AVAudioSession notification means once translated (playback.md).
enum RawMeaning: Equatable {
    case interruptionBegan
    case interruptionEnded(shouldResume: Bool)
    case routeChanged(RouteChangeReason?)
    case mediaServicesLost
    case mediaServicesReset
    /// Nothing reaches the state machine.
    case nothing
}

/// A raw notification in any spelling and value form the spec accepts, with its meaning.
/// `mediaServices`: whether the ruleset translates the media-services notifications.
func rawNotification(_ random: inout SplitMix64, mediaServices: Bool) -> (members: [(String, JSON)], meaning: RawMeaning) {
    let interruption = ["AVAudioSessionInterruptionNotification", "AVAudioSession.interruptionNotification", "interruption"]
    let routeChange = ["AVAudioSessionRouteChangeNotification", "AVAudioSession.routeChangeNotification", "routeChange"]
    let lost = ["AVAudioSessionMediaServicesWereLostNotification", "AVAudioSession.mediaServicesWereLostNotification",
                "mediaServicesWereLost"]
    let reset = ["AVAudioSessionMediaServicesWereResetNotification", "AVAudioSession.mediaServicesWereResetNotification",
                 "mediaServicesWereReset"]
    func notification(_ name: String, _ userInfo: [(String, JSON)]?) -> [(String, JSON)] {
        [("notification", .string(name))] + (userInfo.map { [("userInfo", JSON.object($0))] } ?? [])
    }
    // Other userInfo keys are ignored.
    let extra: [(String, JSON)] = random.chance(20) ? [("AVAudioSessionInterruptionReasonKey", .int(1))] : []
    switch Int.random(in: 0..<10, using: &random) {
    case 0...2:
        let began = random.pick([JSON.int(1), .string("began"), .number("1.0")])
        return (notification(random.pick(interruption), [("AVAudioSessionInterruptionTypeKey", began)] + extra), .interruptionBegan)
    case 3...5:
        let ended = random.pick([JSON.int(0), .string("ended"), .number("0.0")])
        // Bit 0 of the options, "shouldResume", or an array holding it; missing or null is false.
        let options: [(JSON?, Bool)] = [
            (nil, false), (.null, false), (.int(1), true), (.int(3), true), (.int(0), false), (.int(2), false),
            (.int(-1), true), (.number("2.5"), false), (.number("1.0"), true), (.string("shouldResume"), true),
            (.string("other"), false), (.array([.string("shouldResume")]), true),
            (.array([.string("x"), .string("shouldResume")]), true), (.array([]), false), (.array([.int(1)]), false),
            (.bool(true), false),
        ]
        let (option, shouldResume) = random.pick(options)
        let optionMember: [(String, JSON)] = option.map { [("AVAudioSessionInterruptionOptionKey", $0)] } ?? []
        return (notification(random.pick(interruption), [("AVAudioSessionInterruptionTypeKey", ended)] + optionMember + extra),
                .interruptionEnded(shouldResume: shouldResume))
    case 6:
        // A missing or unknown interruption type reaches nothing.
        let type: [(String, JSON)] = random.pick([[], [("AVAudioSessionInterruptionTypeKey", .int(2))],
                                                  [("AVAudioSessionInterruptionTypeKey", .string("paused"))]])
        return (notification(random.pick(interruption), random.chance(20) ? nil : type), .nothing)
    case 7, 8:
        let reasons: [(JSON?, RawMeaning)] = [(nil, .nothing), (.null, .nothing)]
            + RouteChangeReason.allCases.map { (.int($0.rawValue), .routeChanged($0)) }
            + RouteChangeReason.allCases.map { (.string($0.name), .routeChanged($0)) }
            + [(.int(5), .routeChanged(nil)), (.int(42), .routeChanged(nil)), (.string("headphonesGone"), .routeChanged(nil))]
        let (reason, meaning) = random.pick(reasons)
        return (notification(random.pick(routeChange), reason.map { [("AVAudioSessionRouteChangeReasonKey", $0)] } ?? []),
                meaning)
    default:
        let name = random.pick(lost + reset + ["AVAudioSessionSilenceSecondaryAudioHintNotification"])
        let meaning: RawMeaning = !mediaServices ? .nothing : lost.contains(name) ? .mediaServicesLost
            : reset.contains(name) ? .mediaServicesReset : .nothing
        return (notification(name, nil), meaning)
    }
}

/// A route change in canonical form: the reason as a number or a name, known or not.
func canonicalRouteChange(_ random: inout SplitMix64) -> (members: [(String, JSON)], reason: RouteChangeReason?) {
    let reason: JSON, meaning: RouteChangeReason?
    switch Int.random(in: 0..<3, using: &random) {
    case 0:
        meaning = random.pick(RouteChangeReason.allCases)
        reason = .int(meaning!.rawValue)
    case 1:
        meaning = random.pick(RouteChangeReason.allCases)
        reason = .string(meaning!.name)
    default:
        meaning = nil
        reason = random.pick([.int(5), .int(99), .string("speakerGone")])
    }
    return ([("type", .string("routeChanged")), ("reason", reason)], meaning)
}

/// Random logs are this long: long enough to reach every state, short enough
/// that each property's requests take a fraction of a second.
let sequenceLengths = 0...24
