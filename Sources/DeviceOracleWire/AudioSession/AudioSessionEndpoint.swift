import DeviceOracleJSON
import DeviceOracleRules

/// `POST /audio-session/run` (audio-session.md): decodes the category and the event
/// log, runs one `AudioSessionMachine`, and writes every step. Members in this order:
/// `ruleset`, `category`, `final`, `steps`, `verdict`, `mismatches`, `diagnostics`.
enum AudioSessionEndpoint {
    static let endpoint = RulesetEndpoint(
        name: "audio-session/1", path: "/audio-session/run",
        summary: "A game's shared audio session over the app lifecycle: activation, interruptions, route changes, media-services reset.",
        model: RulesetModel(AudioSessionModelCoding.self)) { decoder, root in
            var run = AudioSessionRun()
            return run.answer(root, decoder: &decoder)
        }
}

private enum TopMember: String, CaseIterable, Sendable {
    case category, initial, events, observedFinal
}

/// The state fields, in the order answers write them.
private enum StateField: String, CaseIterable, Sendable {
    case foreground, active, interrupted, categorySet, observing, deactivationPending
}

/// What `observed` may name: any state field, and the step's decision fields.
private enum StepField: Sendable {
    case state(StateField)
    case actions, soundPlayed

    var name: String {
        switch self {
        case .state(let field): field.rawValue
        case .actions: "actions"
        case .soundPlayed: "soundPlayed"
        }
    }
}

private enum EventType: String, CaseIterable, Sendable {
    case launched, enteredBackground, deactivationFailed, deactivationSucceeded, enteredForeground
    case interruptionBegan, interruptionEnded, routeChanged, mediaServicesLost, mediaServicesReset
    case playSound, willTerminate
}

private enum EventMember: String, CaseIterable, Sendable {
    case type, notification, userInfo, shouldResume, reason, name
}

private let topMembers = ClosedNames<TopMember>("member")
private let categories = ClosedNames<AudioSessionCategory>("category")
private let initialFields = ClosedNames<StateField>("initial field")
private let observedFields = ClosedNames<StepField>(
    "observed field",
    StateField.allCases.map { ($0.rawValue, StepField.state($0)) } + [("actions", .actions), ("soundPlayed", .soundPlayed)])
private let observedFinalFields = ClosedNames<StateField>("observedFinal field")
private let eventTypes = ClosedNames<EventType>("event type")
private let eventMembers = ClosedNames<EventMember>("event member")

/// One event as decoded and applied; the steps are written from these once the
/// final state is known (the answer lists `final` before `steps`).
private struct StepRecord: Sendable {
    var id: JSONValue?
    /// What reached the machine: `nil` when a raw notification translated to nothing.
    var event: AudioSessionEvent?
    /// For `routeChanged`, the reason as given (echoed when unknown).
    var reason: GivenRouteChangeReason?
    var before = AudioSessionState()
    var after = AudioSessionState()
    var decision = AudioSessionDecision()
}

/// What audio-session writes of its answer: `category`, `final`, the steps.
private struct AudioSessionAnswer: SteppedAnswer {
    let document: JSONDocument
    let category: AudioSessionCategory
    let final: AudioSessionState
    let records: [StepRecord]

    var stepCount: Int { records.count }

    func writeHead(to writer: inout JSONWriter) {
        writer.key("category")
        writer.raw(category.json)
        writer.key("final")
        writer.raw(final.json)
    }

    func writeStep(_ index: Int, to writer: inout JSONWriter) {
        let record = records[index]
        writer.beginObject()
        writer.stepHead(index: index, id: record.id, document: document)
        writer.key("event")
        switch record.event {
        case nil: writer.null()
        case .routeChanged?: record.reason?.writeEvent(to: &writer, document: document)
        case .playSound(let name)?:
            writer.beginObject()
            writer.key("type")
            writer.string("playSound")
            writer.key("name")
            writer.string(escaping: name)
            writer.endObject()
        case let event?: writer.raw(event.json)
        }
        writer.key("before")
        writer.raw(record.before.json)
        writer.key("after")
        writer.raw(record.after.json)
        writer.key("actions")
        writer.beginArray()
        for action in record.decision.actions { writer.raw(action.json) }
        writer.endArray()
        writer.key("soundPlayed")
        writer.bool(record.decision.soundPlayed)
        if let hint = record.decision.resumeHint {
            writer.key("resumeHint")
            writer.raw(hint.json)
        }
        writer.endObject()
    }
}

private struct AudioSessionRun {
    var records: [StepRecord] = []
    var mismatches = MismatchList()
    var diagnostics: [Diagnostic] = []

    mutating func answer(_ root: JSONValue, decoder: inout RequestDecoder) -> RulesetAnswer? {
        let document = decoder.document
        var categoryMember: JSONValue?, initialMember: JSONValue?, eventsMember: JSONValue?
        var observedFinalMember: JSONValue?
        for member in document.members(root) {
            switch topMembers.match(member.key, in: document) {
            case .category?: categoryMember = member.value
            case .initial?: initialMember = member.value
            case .events?: eventsMember = member.value
            case .observedFinal?: observedFinalMember = member.value
            case nil: break
            }
        }
        var category = AudioSessionCategory.ambient
        if let value = decoder.present(categoryMember), let named = decoder.name(value, in: categories) { category = named }
        var initial = AudioSessionState()
        if let object = decoder.value(initialMember, of: .object) {
            decoder.closedObject(object, names: initialFields) { decoder, field, value in
                if let flag = decoder.bool(value) { initial[field] = flag }
            }
        }
        let observedFinal = decoder.observed(observedFinalMember, names: observedFinalFields)
        guard let events = decoder.required(eventsMember, of: .array, member: "events", in: root) else { return nil }

        var machine = AudioSessionMachine(state: initial, category: category)
        records.reserveCapacity(document.count(events))
        decoder.forEachEvent(in: events, observedNames: observedFields, read: Self.readEvent) { logged in
            logged.appendLeadingDiagnostics(to: &diagnostics)
            var record = logged.decoded
            record.id = logged.envelope.id
            record.before = machine.state
            if let event = record.event {
                record.decision = machine.apply(event)
                for diagnostic in record.decision.diagnostics {
                    diagnostics.append(Diagnostic(index: logged.index, DiagnosticCode(diagnostic)))
                }
            }
            record.after = machine.state
            records.append(record)

            let after = record.after, decision = record.decision
            mismatches.compare(logged.observed(observedFields, in: document), index: logged.index, document: document, name: \.name) { field in
                switch field {
                case .state(let field): .bool(after[field])
                case .actions: .array(decision.actions.map { .string($0.rawValue) })
                case .soundPlayed: .bool(decision.soundPlayed)
                }
            }
        }
        guard !decoder.hasProblems else { return nil }

        let final = machine.state
        mismatches.compare(observedFinal, index: nil, prefix: "final.", document: document, name: \.rawValue) { field in
            .bool(final[field])
        }
        let envelope = AnswerEnvelope(ruleset: "audio-session/1", verdict: Verdict(mismatches: mismatches),
                                      mismatches: mismatches.entries, diagnostics: diagnostics)
        return envelope.answer(AudioSessionAnswer(document: document, category: category, final: final, records: records),
                               document: document)
    }


    /// Reads one event in canonical form (`type`) or raw notification form
    /// (`notification`, media-services names included); exactly one of the two.
    static func readEvent(_ decoder: inout RequestDecoder, _ object: JSONValue) -> ReadEvent<StepRecord> {
        var record = StepRecord()
        var translationDiagnostic: DiagnosticCode?
        var form = EventFormMembers()
        var shouldResume: JSONValue?, reason: JSONValue?, name: JSONValue?
        let envelope = decoder.envelope(of: object, own: eventMembers) { _, member, value in
            switch member {
            case .type: form.type = value
            case .notification: form.notification = value
            case .userInfo: form.userInfo = value
            case .shouldResume: shouldResume = value
            case .reason: reason = value
            case .name: name = value
            }
        }
        switch decoder.eventForm(form, of: object, types: eventTypes, mediaServices: true) {
        case .canonical(let type)?:
            switch type {
            case .launched: record.event = .launched
            case .enteredBackground: record.event = .enteredBackground
            case .deactivationFailed: record.event = .deactivationFailed
            case .deactivationSucceeded: record.event = .deactivationSucceeded
            case .enteredForeground: record.event = .enteredForeground
            case .interruptionBegan: record.event = .interruptionBegan
            case .interruptionEnded:
                // Optional: a wrong type is reported (and the run stops), absent is no hint.
                record.event = .interruptionEnded(shouldResume: decoder.bool(shouldResume))
            case .routeChanged:
                if let given = decoder.routeChangeReason(reason, in: object) {
                    record.event = .routeChanged(reason: given.reason)
                    record.reason = given
                }
            case .mediaServicesLost: record.event = .mediaServicesLost
            case .mediaServicesReset: record.event = .mediaServicesReset
            case .playSound:
                if let name = decoder.required(name, of: .string, member: "name", in: object) {
                    record.event = .playSound(name: decoder.document.string(name) ?? "")
                }
            case .willTerminate: record.event = .willTerminate
            }
        case .notification(let translated, let diagnostic)?:
            translationDiagnostic = diagnostic
            switch translated {
            case .interruptionBegan: record.event = .interruptionBegan
            case .interruptionEnded(let resume): record.event = .interruptionEnded(shouldResume: resume)
            case .routeChanged(let given):
                record.event = .routeChanged(reason: given.reason)
                record.reason = given
            case .mediaServicesLost: record.event = .mediaServicesLost
            case .mediaServicesReset: record.event = .mediaServicesReset
            case .untranslated: break
            }
        case nil:
            break
        }
        return ReadEvent(envelope: envelope, decoded: record, translationDiagnostic: translationDiagnostic)
    }
}

extension DiagnosticCode {
    init(_ diagnostic: AudioSessionDiagnostic) {
        switch diagnostic {
        case .launchedTwice: self = .launchedTwice
        case .exclusiveCategory: self = .exclusiveCategory
        case .playWhileBackground: self = .playWhileBackground
        case .soundSuppressed: self = .soundSuppressed
        case .unknownRouteChangeReason: self = .unknownRouteChangeReason
        }
    }
}

private extension AudioSessionState {
    subscript(field: StateField) -> Bool {
        get {
            switch field {
            case .foreground: foreground
            case .active: active
            case .interrupted: interrupted
            case .categorySet: categorySet
            case .observing: observing
            case .deactivationPending: deactivationPending
            }
        }
        set {
            switch field {
            case .foreground: foreground = newValue
            case .active: active = newValue
            case .interrupted: interrupted = newValue
            case .categorySet: categorySet = newValue
            case .observing: observing = newValue
            case .deactivationPending: deactivationPending = newValue
            }
        }
    }

    /// The state as JSON. Every step writes two states, so all 64 are written once,
    /// up front, and a step copies bytes.
    var json: [UInt8] {
        // Bit i is the i-th `StateField`, as `fragments` is built.
        let bits = (foreground ? 1 : 0) | (active ? 2 : 0) | (interrupted ? 4 : 0) | (categorySet ? 8 : 0)
            | (observing ? 16 : 0) | (deactivationPending ? 32 : 0)
        return Self.fragments[bits]
    }

    static let fragments: [[UInt8]] = (0..<1 << StateField.allCases.count).map { bits in
        var writer = JSONWriter(capacity: 160)
        writer.beginObject()
        for (offset, field) in StateField.allCases.enumerated() {
            writer.key(escaping: field.rawValue)
            writer.bool(bits & 1 << offset != 0)
        }
        writer.endObject()
        return writer.finish()
    }
}

// Answers are mostly a few fixed fragments; writing them as literals keeps a
// 100k-event log fast.
private extension AudioSessionCategory {
    var json: StaticString {
        switch self {
        case .ambient: #""ambient""#
        case .soloAmbient: #""soloAmbient""#
        case .playback: #""playback""#
        }
    }
}

private extension AudioSessionAction {
    var json: StaticString {
        switch self {
        case .setCategory: #""setCategory""#
        case .addObservers: #""addObservers""#
        case .activate: #""activate""#
        case .deactivate: #""deactivate""#
        case .retryDeactivate: #""retryDeactivate""#
        case .recreatePlayers: #""recreatePlayers""#
        case .playNewPlayer: #""playNewPlayer""#
        case .removeObservers: #""removeObservers""#
        }
    }
}

private extension ResumeHint {
    /// The `shouldResume` given, or `null` when there was none.
    var json: StaticString {
        switch self {
        case .shouldResume: "true"
        case .shouldNotResume: "false"
        case .notGiven: "null"
        }
    }
}

private extension AudioSessionEvent {
    /// The canonical form of every event but `routeChanged` and `playSound`, which
    /// echo what the log gave. `interruptionEnded` shows `shouldResume` only when given.
    var json: StaticString {
        switch self {
        case .launched: #"{"type":"launched"}"#
        case .enteredBackground: #"{"type":"enteredBackground"}"#
        case .deactivationFailed: #"{"type":"deactivationFailed"}"#
        case .deactivationSucceeded: #"{"type":"deactivationSucceeded"}"#
        case .enteredForeground: #"{"type":"enteredForeground"}"#
        case .interruptionBegan: #"{"type":"interruptionBegan"}"#
        case .interruptionEnded(nil): #"{"type":"interruptionEnded"}"#
        case .interruptionEnded(false?): #"{"type":"interruptionEnded","shouldResume":false}"#
        case .interruptionEnded(true?): #"{"type":"interruptionEnded","shouldResume":true}"#
        case .mediaServicesLost: #"{"type":"mediaServicesLost"}"#
        case .mediaServicesReset: #"{"type":"mediaServicesReset"}"#
        case .willTerminate: #"{"type":"willTerminate"}"#
        case .routeChanged, .playSound: preconditionFailure("routeChanged and playSound are written with what the log gave")
        }
    }
}
