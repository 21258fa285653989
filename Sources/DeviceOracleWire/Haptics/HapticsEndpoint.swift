import DeviceOracleJSON
import DeviceOracleRules

/// `POST /haptics/contract` (haptics.md): checks the exported `pattern` against
/// the confirmation contract, runs the `events` through one `HapticsMachine`, and
/// answers both. Members in this order: `ruleset`, `canonicalPattern`,
/// `patternCheck` (when `pattern` was given), `final`, `steps`, `summary`,
/// `verdict`, `mismatches`, `diagnostics`.
enum HapticsEndpoint {
    static let endpoint = RulesetEndpoint(
        name: "haptics/1", path: "/haptics/contract",
        summary: "The \"Saved\" haptic confirmation: the pattern contract and when the haptic is requested.",
        model: RulesetModel(HapticsModelCoding.self)) { decoder, root in
            var run = HapticsRun()
            return run.answer(root, decoder: &decoder)
        }
}

private enum TopMember: String, CaseIterable, Sendable {
    case pattern, expectedParameters, supportsHaptics, timingToleranceMs, initial, events, observedFinal
}

private enum InitialField: String, CaseIterable, Sendable {
    case phase
}

private enum StepField: String, CaseIterable, Sendable {
    case phase, visible, haptic, engine
    /// Device-clock times (ms) that feed the `timing` check on a step that plays a haptic.
    case visibleAt, hapticAt
}

private enum FinalField: String, CaseIterable, Sendable {
    case phase, engine, hapticRequests
}

private enum EventMember: String, CaseIterable, Sendable {
    case type
}

private let topMembers = ClosedNames<TopMember>("member")
private let initialFields = ClosedNames<InitialField>("initial field")
private let phases = ClosedNames<SavePhase>("phase")
private let observedFields = ClosedNames<StepField>("observed field")
private let observedFinalFields = ClosedNames<FinalField>("observedFinal field")
private let eventTypes = ClosedNames<HapticsEvent>("event type")
private let eventMembers = ClosedNames<EventMember>("event member")

/// One event as applied; the steps are written from these once the final state
/// is known (the answer lists `final` before `steps`).
private struct StepRecord: Sendable {
    var id: JSONValue?
    var event: HapticsEvent
    var before: HapticsState
    var after: HapticsState
    var decision: HapticsDecision
}

/// What haptics writes of its answer: `canonicalPattern`, `patternCheck` when a
/// pattern was given, `final`, the steps, then `summary`.
private struct HapticsAnswer: SteppedAnswer {
    let document: JSONDocument
    let patternCheck: HapticsPatternCheck?
    let final: HapticsState
    let summary: HapticsSummary
    let records: [StepRecord]

    var stepCount: Int { records.count }

    func writeHead(to writer: inout JSONWriter) {
        writer.key("canonicalPattern")
        HapticsPatternCheck.writeCanonicalPattern(to: &writer)
        if let patternCheck {
            writer.key("patternCheck")
            patternCheck.write(to: &writer, document: document)
        }
        writer.key("final")
        final.write(to: &writer)
    }

    func writeStep(_ index: Int, to writer: inout JSONWriter) {
        let record = records[index]
        writer.beginObject()
        writer.stepHead(index: index, id: record.id, document: document)
        writer.key("event")
        writer.raw(record.event.json)
        writer.key("before")
        record.before.write(to: &writer)
        writer.key("after")
        record.after.write(to: &writer)
        writer.key("visible")
        writer.raw(record.decision.visible.json)
        writer.key("haptic")
        writer.raw(record.decision.haptic.json)
        writer.key("actions")
        writer.beginArray()
        for action in record.decision.actions { writer.raw(action.json) }
        writer.endArray()
        writer.endObject()
    }

    func writeTail(to writer: inout JSONWriter) {
        writer.key("summary")
        writer.beginObject()
        writer.key("saves")
        writer.integer(summary.saves)
        writer.key("failures")
        writer.integer(summary.failures)
        writer.key("hapticRequests")
        writer.integer(summary.hapticRequests)
        writer.endObject()
    }
}

private struct HapticsRun {
    var records: [StepRecord] = []
    var mismatches = MismatchList()
    var diagnostics: [Diagnostic] = []

    mutating func answer(_ root: JSONValue, decoder: inout RequestDecoder) -> RulesetAnswer? {
        let document = decoder.document
        var patternMember: JSONValue?, expectedMember: JSONValue?, supportsMember: JSONValue?
        var toleranceMember: JSONValue?, initialMember: JSONValue?, eventsMember: JSONValue?
        var observedFinalMember: JSONValue?
        for member in document.members(root) {
            switch topMembers.match(member.key, in: document) {
            case .pattern?: patternMember = member.value
            case .expectedParameters?: expectedMember = member.value
            case .supportsHaptics?: supportsMember = member.value
            case .timingToleranceMs?: toleranceMember = member.value
            case .initial?: initialMember = member.value
            case .events?: eventsMember = member.value
            case .observedFinal?: observedFinalMember = member.value
            case nil: break
            }
        }
        if decoder.present(patternMember) == nil, decoder.present(eventsMember) == nil {
            decoder.reportMissing("events", in: root,
                                  "a request needs 'pattern' (the pattern contract), 'events' (the flow) or both")
        }
        let pattern = decoder.value(patternMember, of: .array).map { (array: $0, objects: decoder.objects(in: $0)) }
        let contract = decoder.patternContract(expectedParameters: expectedMember)
        let supportsHaptics = decoder.bool(supportsMember) ?? true
        let timing = decoder.timing(toleranceMs: toleranceMember)
        let phase = decoder.initialPhase(initialMember)
        let observedFinal = decoder.observed(observedFinalMember, names: observedFinalFields)
        let events = decoder.value(eventsMember, of: .array)

        var machine = HapticsMachine(phase: phase, supportsHaptics: supportsHaptics)
        if let events {
            records.reserveCapacity(document.count(events))
            decoder.forEachEvent(in: events, observedNames: observedFields, read: Self.readEvent) { logged in
                // A missing or unknown type is reported, so nothing is run.
                guard let event = logged.decoded else { return }
                logged.appendLeadingDiagnostics(to: &diagnostics)
                let before = machine.state
                let decision = machine.apply(event)
                if let diagnostic = decision.diagnostic {
                    diagnostics.append(Diagnostic(index: logged.index, DiagnosticCode(diagnostic)))
                }
                let record = StepRecord(id: logged.envelope.id, event: event, before: before, after: machine.state,
                                        decision: decision)
                records.append(record)
                compare(logged.observed(observedFields, in: document), with: record, index: logged.index, timing: timing, document: document)
            }
        }
        guard !decoder.hasProblems else { return nil }

        let patternCheck = pattern.map { pattern in
            HapticsPatternCheck(pattern: pattern.array, at: decoder.pointer(to: pattern.array),
                                events: pattern.objects.map { GivenPatternEvent($0.object, index: $0.index, in: document) },
                                contract: contract, document: document)
        }
        let final = machine.state, summary = machine.summary
        mismatches.compare(observedFinal, index: nil, prefix: "final.", document: document, name: \.rawValue) { field in
            switch field {
            case .phase: .string(final.phase.rawValue)
            case .engine: .string(final.engine.rawValue)
            case .hapticRequests: .number(Double(summary.hapticRequests))
            }
        }
        let envelope = AnswerEnvelope(ruleset: "haptics/1",
                                      verdict: Verdict(mismatches: mismatches, staticCheckPassed: patternCheck?.passed),
                                      mismatches: mismatches.entries, diagnostics: diagnostics)
        let answer = HapticsAnswer(document: document, patternCheck: patternCheck, final: final, summary: summary,
                                   records: records)
        return envelope.answer(answer, document: document)
    }

    /// Reads one event: its `type` (required) and the shared members.
    static func readEvent(_ decoder: inout RequestDecoder, _ object: JSONValue) -> ReadEvent<HapticsEvent?> {
        var type: JSONValue?
        let envelope = decoder.envelope(of: object, own: eventMembers) { _, member, value in
            switch member {
            case .type: type = value
            }
        }
        let event: HapticsEvent?
        if let type {
            event = decoder.name(type, in: eventTypes)
        } else {
            event = nil
            decoder.reportMissing("type", in: object, "required string is missing")
        }
        return ReadEvent(envelope: envelope, decoded: event)
    }

    /// The named fields in the order `observed` names them, then `timing`: on a
    /// step that plays a haptic, when both times are given, |hapticAt − visibleAt|
    /// against `timingToleranceMs`.
    mutating func compare(_ observed: ObservedFields<StepField>?, with record: StepRecord, index: Int,
                          timing: HapticTiming, document: JSONDocument) {
        let after = record.after, decision = record.decision
        mismatches.compare(observed, index: index, document: document, name: \.rawValue) { field in
            switch field {
            case .phase: .string(after.phase.rawValue)
            case .visible: .string(decision.visible.rawValue)
            case .haptic: .string(decision.haptic.rawValue)
            case .engine: .string(after.engine.rawValue)
            case .visibleAt, .hapticAt: nil
            }
        }
        guard let observed, decision.haptic == .play,
              let visibleAt = observed.entries.first(where: { $0.field == .visibleAt })?.value,
              let hapticAt = observed.entries.first(where: { $0.field == .hapticAt })?.value else { return }
        let tolerance = FieldValue.number(timing.toleranceMs)
        guard let visibleMs = document.number(visibleAt), let hapticMs = document.number(hapticAt) else {
            mismatches.append(Mismatch(index: index, field: "timing", expected: tolerance, observed: .null,
                                       detail: "'visibleAt' and 'hapticAt' must both be numbers (ms) to measure the timing"))
            return
        }
        guard !timing.accepts(visibleAt: visibleMs, hapticAt: hapticMs) else { return }
        let gap = HapticTiming.gap(visibleAt: visibleMs, hapticAt: hapticMs)
        if gap.isFinite {
            mismatches.append(Mismatch(index: index, field: "timing", expected: tolerance, observed: .number(gap)))
        } else {
            mismatches.append(Mismatch(index: index, field: "timing", expected: tolerance, observed: .null,
                                       detail: "|hapticAt - visibleAt| is beyond the range of a double"))
        }
    }

}

private extension RequestDecoder {
    /// `expectedParameters`: either value or both, each a number in [0, 1] — a
    /// tuned value outside the range no pattern could meet is a harness error.
    mutating func patternContract(expectedParameters value: JSONValue?) -> HapticPatternContract {
        var contract = HapticPatternContract()
        guard let object = self.value(value, of: .object) else { return contract }
        closedObject(object, names: hapticParameterNames) { decoder, parameter, value in
            guard let number = decoder.number(value) else { return }
            guard HapticPatternContract.parameterRange.contains(number) else {
                decoder.report("expected a number from 0 to 1", at: value)
                return
            }
            contract.expected[parameter] = number
        }
        return contract
    }

    /// `timingToleranceMs`: a number of milliseconds, not negative.
    mutating func timing(toleranceMs value: JSONValue?) -> HapticTiming {
        guard let value = present(value), let tolerance = number(value) else { return HapticTiming() }
        guard tolerance >= 0 else {
            report("expected a number that is not negative", at: value)
            return HapticTiming()
        }
        return HapticTiming(toleranceMs: tolerance)
    }

    /// `initial` names `phase` only: the engine follows from `supportsHaptics`.
    mutating func initialPhase(_ value: JSONValue?) -> SavePhase {
        var phase = SavePhase.idle
        guard let object = self.value(value, of: .object) else { return phase }
        closedObject(object, names: initialFields) { decoder, field, value in
            switch field {
            case .phase: phase = decoder.name(value, in: phases) ?? phase
            }
        }
        return phase
    }
}

// Answers are mostly a few fixed fragments; writing them as literals keeps a
// 100k-event log fast.
private extension HapticsState {
    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("phase")
        writer.raw(phase.json)
        writer.key("engine")
        writer.raw(engine.json)
        writer.endObject()
    }
}

private extension SavePhase {
    var json: StaticString {
        switch self {
        case .idle: #""idle""#
        case .saving: #""saving""#
        case .saved: #""saved""#
        case .failed: #""failed""#
        }
    }
}

private extension HapticEngineState {
    var json: StaticString {
        switch self {
        case .stopped: #""stopped""#
        case .running: #""running""#
        case .unsupported: #""unsupported""#
        }
    }
}

private extension VisibleResult {
    var json: StaticString {
        switch self {
        case .none: #""none""#
        case .saving: #""saving""#
        case .saved: #""saved""#
        case .error: #""error""#
        }
    }
}

private extension HapticRequest {
    var json: StaticString {
        switch self {
        case .play: #""play""#
        case .none: #""none""#
        }
    }
}

private extension HapticsAction {
    var json: StaticString {
        switch self {
        case .startSave: #""startSave""#
        case .startEngine: #""startEngine""#
        case .playHaptic: #""playHaptic""#
        }
    }
}

private extension HapticsEvent {
    /// The canonical event: haptics events carry no fields of their own.
    var json: StaticString {
        switch self {
        case .saveTapped: #"{"type":"saveTapped"}"#
        case .saveSucceeded: #"{"type":"saveSucceeded"}"#
        case .saveFailed: #"{"type":"saveFailed"}"#
        case .hapticFailed: #"{"type":"hapticFailed"}"#
        case .engineStopped: #"{"type":"engineStopped"}"#
        case .engineReset: #"{"type":"engineReset"}"#
        case .appBackgrounded: #"{"type":"appBackgrounded"}"#
        case .appForegrounded: #"{"type":"appForegrounded"}"#
        }
    }
}

extension DiagnosticCode {
    init(_ diagnostic: HapticsDiagnostic) {
        switch diagnostic {
        case .duplicateTapBlocked: self = .duplicateTapBlocked
        case .unexpectedCompletion: self = .unexpectedCompletion
        case .hapticError: self = .hapticError
        }
    }
}
