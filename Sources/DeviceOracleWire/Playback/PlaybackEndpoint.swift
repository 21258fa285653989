import DeviceOracleJSON
import DeviceOracleRules

/// `POST /playback/apply` (playback.md): decodes the event log, runs one
/// `PlaybackMachine` per session, and writes every step.
enum PlaybackEndpoint {
    static let endpoint = RulesetEndpoint(
        name: "playback/1", path: "/playback/apply",
        summary: "Media player decisions after audio interruptions, route changes (headphones unplugged) and user pause/play.",
        model: RulesetModel(PlaybackModelCoding.self)) { decoder, root in
            var run = PlaybackRun()
            return run.answer(root, decoder: &decoder)
        }
}

private enum TopMember: String, CaseIterable, Sendable {
    case initial, events, observedFinal
}

private enum StateField: String, CaseIterable, Sendable {
    case isPlaying, resumeAfterInterruption
}

private enum StepField: String, CaseIterable, Sendable {
    case isPlaying, resumeAfterInterruption, action
}

private enum EventType: String, CaseIterable, Sendable {
    case interruptionBegan, interruptionEnded, userPaused, outputDisconnected, userPlayed, routeChanged
}

private enum EventMember: String, CaseIterable, Sendable {
    case type, notification, userInfo, shouldResume, reason
}

private let topMembers = ClosedNames<TopMember>("member")
private let initialFields = ClosedNames<StateField>("initial field")
private let observedFields = ClosedNames<StepField>("observed field")
private let observedFinalFields = ClosedNames<StateField>("observedFinal field")
private let eventTypes = ClosedNames<EventType>("event type")
private let eventMembers = ClosedNames<EventMember>("event member")

/// One event as decoded and applied; the steps are written from these once the
/// final state is known (the answer lists `final` before `steps`).
private struct StepRecord: Sendable {
    var id: JSONValue?
    /// The session the event named, if it named one.
    var sessionName: JSONValue?
    /// What reached the machine: `nil` when a raw notification translated to nothing.
    var event: PlaybackEvent?
    /// For `routeChanged`, the reason as given (echoed when unknown).
    var reason: GivenRouteChangeReason?
    var before = PlaybackState()
    var after = PlaybackState()
    var action = PlayerAction.none
}

/// What playback writes of its answer: `final`, `sessions` when any event named
/// one, and the steps.
private struct PlaybackAnswer: SteppedAnswer {
    let document: JSONDocument
    let final: PlaybackState
    let sessions: [(name: [UInt8], state: PlaybackState)]?
    let records: [StepRecord]
    /// Held here so writing a step does not go through the global's lazy initializer.
    let tails = StepTail.table

    var stepCount: Int { records.count }

    func writeHead(to writer: inout JSONWriter) {
        writer.key("final")
        writer.raw(final.json)
        if let sessions {
            writer.key("sessions")
            writer.beginObject()
            for session in sessions {
                writer.key(escaping: String(decoding: session.name, as: UTF8.self))
                writer.raw(session.state.json)
            }
            writer.endObject()
        }
    }

    func writeStep(_ index: Int, to writer: inout JSONWriter) {
        let record = records[index]
        // Most steps of a long log: no id, no session, an event of fixed form.
        if record.id == nil, record.sessionName == nil, let event = record.event,
           StepTail.withTail(event, before: record.before, in: tails, {
               writer.object(key: "index", integer: index, members: $0)
           }) {
            return
        }
        writer.beginObject()
        writer.stepHead(index: index, id: record.id, document: document)
        if let name = record.sessionName {
            writer.key("session")
            writer.value(name, of: document)
        }
        if let event = record.event, StepTail.withTail(event, before: record.before, in: tails, { writer.members($0) }) {
            writer.endObject()
            return
        }
        PlaybackRun.writeTail(event: record.event, reason: record.reason, before: record.before, after: record.after,
                              action: record.action, to: &writer, document: document)
        writer.endObject()
    }
}

private struct PlaybackRun {
    var sessions = SessionMachines<PlaybackMachine>()
    var records: [StepRecord] = []
    var mismatches = MismatchList()
    var diagnostics: [Diagnostic] = []

    mutating func answer(_ root: JSONValue, decoder: inout RequestDecoder) -> RulesetAnswer? {
        let document = decoder.document
        var initialMember: JSONValue?, eventsMember: JSONValue?, observedFinalMember: JSONValue?
        for member in document.members(root) {
            switch topMembers.match(member.key, in: document) {
            case .initial?: initialMember = member.value
            case .events?: eventsMember = member.value
            case .observedFinal?: observedFinalMember = member.value
            case nil: break
            }
        }
        var initial = PlaybackState()
        if let object = decoder.value(initialMember, of: .object) {
            decoder.closedObject(object, names: initialFields) { decoder, field, value in
                guard let flag = decoder.bool(value) else { return }
                switch field {
                case .isPlaying: initial.isPlaying = flag
                case .resumeAfterInterruption: initial.resumeAfterInterruption = flag
                }
            }
        }
        let observedFinal = decoder.observed(observedFinalMember, names: observedFinalFields)
        guard let events = decoder.required(eventsMember, of: .array, member: "events", in: root) else { return nil }

        records.reserveCapacity(document.count(events))
        decoder.forEachEvent(in: events, observedNames: observedFields, read: Self.readEvent) { logged in
            run(logged, initial: initial, document: document)
        }
        guard !decoder.hasProblems else { return nil }

        let final = sessions.defaultIndex.map { sessions.machines[$0].state } ?? initial
        mismatches.compare(observedFinal, index: nil, prefix: "final.", document: document, name: \.rawValue) { field in
            switch field {
            case .isPlaying: .bool(final.isPlaying)
            case .resumeAfterInterruption: .bool(final.resumeAfterInterruption)
            }
        }
        let envelope = AnswerEnvelope(ruleset: "playback/1", verdict: Verdict(mismatches: mismatches),
                                      mismatches: mismatches.entries, diagnostics: diagnostics)
        let answer = PlaybackAnswer(document: document, final: final,
                                    sessions: sessions.anyNamed ? sessions.sessions.map { ($0.name, $0.machine.state) } : nil,
                                    records: records)
        return envelope.answer(answer, document: document)
    }

    /// Applies one event to its session's machine and records the step. Inlined,
    /// with `readEvent`, into the walk: a long log's per-event values then stay in
    /// registers instead of being copied from struct to struct.
    @inline(__always)
    mutating func run(_ logged: LoggedEvent<StepRecord, StepField>, initial: PlaybackState, document: JSONDocument) {
        logged.appendLeadingDiagnostics(to: &diagnostics)
        var record = logged.decoded
        let session = sessions.index(of: logged.envelope.session, in: document) { PlaybackMachine(state: initial) }
        record.id = logged.envelope.id
        record.sessionName = logged.envelope.session
        record.before = sessions.machines[session].state
        if let event = record.event {
            let decision = sessions.machines[session].apply(event)
            record.action = decision.action
            if let diagnostic = decision.diagnostic {
                diagnostics.append(Diagnostic(index: logged.index, DiagnosticCode(diagnostic)))
            }
        }
        record.after = sessions.machines[session].state
        records.append(record)

        let after = record.after, action = record.action
        mismatches.compare(logged.observed(observedFields, in: document), index: logged.index, document: document, name: \.rawValue) { field in
            switch field {
            case .isPlaying: .bool(after.isPlaying)
            case .resumeAfterInterruption: .bool(after.resumeAfterInterruption)
            case .action: .string(action.rawValue)
            }
        }
    }

    /// `"event":…,"before":…,"after":…,"action":…` — everything of a step after its head.
    static func writeTail(event: PlaybackEvent?, reason: GivenRouteChangeReason?, before: PlaybackState,
                          after: PlaybackState, action: PlayerAction, to writer: inout JSONWriter, document: JSONDocument?) {
        writer.key("event")
        switch event {
        case nil: writer.null()
        case .routeChanged?:
            if let reason, let document { reason.writeEvent(to: &writer, document: document) }
        case let event?: writer.raw(event.json)
        }
        writer.key("before")
        writer.raw(before.json)
        writer.key("after")
        writer.raw(after.json)
        writer.key("action")
        writer.raw(action.json)
    }

    /// Reads one event in canonical form (`type`) or raw notification form
    /// (`notification`); exactly one of the two.
    @inline(__always)
    static func readEvent(_ decoder: inout RequestDecoder, _ object: JSONValue) -> ReadEvent<StepRecord> {
        var record = StepRecord()
        var translationDiagnostic: DiagnosticCode?
        var form = EventFormMembers()
        var shouldResume: JSONValue?, reason: JSONValue?
        let envelope = decoder.envelope(of: object, own: eventMembers, sessions: true) { _, member, value in
            switch member {
            case .type: form.type = value
            case .notification: form.notification = value
            case .userInfo: form.userInfo = value
            case .shouldResume: shouldResume = value
            case .reason: reason = value
            }
        }
        switch decoder.eventForm(form, of: object, types: eventTypes, mediaServices: false) {
        case .canonical(let type)?:
            switch type {
            case .interruptionBegan: record.event = .interruptionBegan
            case .interruptionEnded:
                if let flag = decoder.required(shouldResume, of: .bool, member: "shouldResume", in: object) {
                    record.event = .interruptionEnded(shouldResume: decoder.document.bool(flag) ?? false)
                }
            case .userPaused: record.event = .userPaused
            case .outputDisconnected: record.event = .outputDisconnected
            case .userPlayed: record.event = .userPlayed
            case .routeChanged:
                if let given = decoder.routeChangeReason(reason, in: object) {
                    record.event = .routeChanged(reason: given.reason)
                    record.reason = given
                }
            }
        case .notification(let translated, let diagnostic)?:
            translationDiagnostic = diagnostic
            switch translated {
            case .interruptionBegan: record.event = .interruptionBegan
            case .interruptionEnded(let resume): record.event = .interruptionEnded(shouldResume: resume)
            case .routeChanged(let given):
                record.event = .routeChanged(reason: given.reason)
                record.reason = given
            case .untranslated: break
            case .mediaServicesLost, .mediaServicesReset: preconditionFailure("not translated for playback")
            }
        case nil:
            break
        }
        return ReadEvent(envelope: envelope, decoded: record, translationDiagnostic: translationDiagnostic)
    }
}

/// The rest of a step after its head is a function of the event and the state
/// before it (the rules decide the rest), so a long log writes it by copying one of
/// these, made once by running the rules. `routeChanged` echoes its reason as given
/// and is written member by member.
private enum StepTail {
    /// The events with a fixed canonical form, in table order.
    private static let events: [PlaybackEvent] = [
        .interruptionBegan, .interruptionEnded(shouldResume: false), .interruptionEnded(shouldResume: true),
        .userPaused, .outputDisconnected, .userPlayed,
    ]
    private static func slot(_ event: PlaybackEvent) -> Int? {
        switch event {
        case .interruptionBegan: 0
        case .interruptionEnded(let shouldResume): shouldResume ? 2 : 1
        case .userPaused: 3
        case .outputDisconnected: 4
        case .userPlayed: 5
        case .routeChanged: nil
        }
    }
    private static func slot(_ state: PlaybackState) -> Int {
        (state.isPlaying ? 2 : 0) + (state.resumeAfterInterruption ? 1 : 0)
    }
    typealias Table = (bytes: [UInt8], ends: [Int])

    /// Every tail back to back, and where each one ends.
    static let table: Table = {
        var bytes: [UInt8] = [], ends: [Int] = []
        for event in events {
            for slot in 0..<4 {
                let before = PlaybackState(isPlaying: slot >= 2, resumeAfterInterruption: slot % 2 == 1)
                var machine = PlaybackMachine(state: before)
                let action = machine.apply(event).action
                var writer = JSONWriter(capacity: 256)
                PlaybackRun.writeTail(event: event, reason: nil, before: before, after: machine.state, action: action,
                                      to: &writer, document: nil)
                bytes += writer.finish()
                ends.append(bytes.count)
            }
        }
        return (bytes, ends)
    }()

    /// Calls `body` with the tail of a step when the event has a fixed form; false otherwise.
    static func withTail(_ event: PlaybackEvent, before: PlaybackState, in table: Table,
                         _ body: (UnsafeBufferPointer<UInt8>) -> Void) -> Bool {
        guard let eventSlot = slot(event) else { return false }
        let entry = eventSlot * 4 + slot(before)
        let start = entry == 0 ? 0 : table.ends[entry - 1]
        table.bytes.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[start..<table.ends[entry]])) }
        return true
    }
}

extension DiagnosticCode {
    init(_ diagnostic: PlaybackDiagnostic) {
        switch diagnostic {
        case .endWithoutBegin: self = .endWithoutBegin
        case .routeChangeIgnored: self = .routeChangeIgnored
        case .unknownRouteChangeReason: self = .unknownRouteChangeReason
        }
    }
}

// Answers are mostly a few fixed fragments; writing them as literals keeps a
// 100k-event log fast.
private extension PlaybackState {
    var json: StaticString {
        switch (isPlaying, resumeAfterInterruption) {
        case (false, false): #"{"isPlaying":false,"resumeAfterInterruption":false}"#
        case (false, true): #"{"isPlaying":false,"resumeAfterInterruption":true}"#
        case (true, false): #"{"isPlaying":true,"resumeAfterInterruption":false}"#
        case (true, true): #"{"isPlaying":true,"resumeAfterInterruption":true}"#
        }
    }
}

private extension PlayerAction {
    var json: StaticString {
        switch self {
        case .play: #""play""#
        case .pause: #""pause""#
        case .none: #""none""#
        }
    }
}

private extension PlaybackEvent {
    /// The canonical form of every event but `routeChanged`, which echoes its reason.
    var json: StaticString {
        switch self {
        case .interruptionBegan: #"{"type":"interruptionBegan"}"#
        case .interruptionEnded(false): #"{"type":"interruptionEnded","shouldResume":false}"#
        case .interruptionEnded(true): #"{"type":"interruptionEnded","shouldResume":true}"#
        case .userPaused: #"{"type":"userPaused"}"#
        case .outputDisconnected: #"{"type":"outputDisconnected"}"#
        case .userPlayed: #"{"type":"userPlayed"}"#
        case .routeChanged: preconditionFailure("routeChanged is written with its reason")
        }
    }
}
