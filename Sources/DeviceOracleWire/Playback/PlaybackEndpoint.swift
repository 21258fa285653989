import DeviceOracleJSON
import DeviceOracleRules

/// `POST /playback/apply` (playback.md): decodes the event log, runs one
/// `PlaybackMachine` per session, and writes every step.
enum PlaybackEndpoint {
    static let endpoint = RulesetEndpoint(
        name: "playback/1", path: "/playback/apply",
        summary: "Media player decisions after audio interruptions, route changes (headphones unplugged) and user pause/play.",
        run: answer)

    static func answer(_ body: [UInt8]) -> Result<RulesetAnswer, RequestRejection> {
        RequestBody.answer(body, served: ["playback/1"]) { decoder, root in
            var run = PlaybackRun()
            return run.answer(root, decoder: &decoder)
        }
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

/// One decoded event: what reaches the machine (`nil` when a raw notification
/// translated to nothing) and what the step shows.
private struct DecodedEvent {
    var event: PlaybackEvent?
    /// For `routeChanged`, the reason as given (echoed when unknown).
    var reason: GivenRouteChangeReason?
    var translationDiagnostic: DiagnosticCode?
}

private struct Session {
    let name: [UInt8]
    var machine: PlaybackMachine
}

private struct PlaybackRun {
    var sessions: [Session] = []
    var anySessionNamed = false
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

        var steps = JSONWriter(capacity: 64 + document.count(events) * 170)
        steps.beginArray()
        var arrival = ArrivalOrder()
        for (index, object) in decoder.objects(in: events) {
            var decoded = DecodedEvent()
            let envelope = decodeEvent(object, into: &decoded, decoder: &decoder)
            let observed = decoder.observed(envelope.observed, names: observedFields)
            // Keep validating after a problem, but stop running: the answer is a 422.
            guard !decoder.hasProblems else { continue }

            if arrival.isOutOfOrder(envelope.at) { diagnostics.append(Diagnostic(index: index, .outOfOrder)) }
            if let code = decoded.translationDiagnostic { diagnostics.append(Diagnostic(index: index, code)) }
            let session = sessionIndex(envelope.session, initial: initial, document: document)
            let before = sessions[session].machine.state
            let decision = decoded.event.map { sessions[session].machine.apply($0) }
            let after = sessions[session].machine.state
            if let code = decision?.diagnostic.map(DiagnosticCode.init) { diagnostics.append(Diagnostic(index: index, code)) }
            let action = decision?.action ?? .none

            steps.beginObject()
            steps.stepHead(index: index, id: envelope.id, document: document)
            if let name = envelope.session {
                steps.key("session")
                steps.value(name, of: document)
            }
            steps.key("event")
            writeEvent(decoded, to: &steps, document: document)
            steps.key("before")
            steps.raw(before.json)
            steps.key("after")
            steps.raw(after.json)
            steps.key("action")
            steps.raw(action.json)
            steps.endObject()

            mismatches.compare(observed, index: index, document: document, name: \.rawValue) { field in
                switch field {
                case .isPlaying: .bool(after.isPlaying)
                case .resumeAfterInterruption: .bool(after.resumeAfterInterruption)
                case .action: .string(action.rawValue)
                }
            }
        }
        steps.endArray()
        guard !decoder.hasProblems else { return nil }

        let final = sessions.first { $0.name == defaultSession }?.machine.state ?? initial
        mismatches.compare(observedFinal, index: nil, prefix: "final.", document: document, name: \.rawValue) { field in
            switch field {
            case .isPlaying: .bool(final.isPlaying)
            case .resumeAfterInterruption: .bool(final.resumeAfterInterruption)
            }
        }
        let envelope = AnswerEnvelope(ruleset: "playback/1", verdict: Verdict(mismatches: mismatches),
                                      mismatches: mismatches.entries, diagnostics: diagnostics)
        return envelope.write(document: document, capacity: steps.bytes.count + 512) { writer in
            writer.key("final")
            writer.raw(final.json)
            if anySessionNamed {
                writer.key("sessions")
                writer.beginObject()
                for session in sessions {
                    writer.key(String(decoding: session.name, as: UTF8.self))
                    writer.raw(session.machine.state.json)
                }
                writer.endObject()
            }
            writer.key("steps")
            writer.raw(steps.bytes)
        }
    }

    /// Reads one event in canonical form (`type`) or raw notification form
    /// (`notification`); exactly one of the two.
    func decodeEvent(_ object: JSONValue, into decoded: inout DecodedEvent,
                     decoder: inout RequestDecoder) -> EventEnvelope {
        var type: JSONValue?, notification: JSONValue?, userInfo: JSONValue?
        var shouldResume: JSONValue?, reason: JSONValue?
        let envelope = decoder.envelope(of: object, own: eventMembers, sessions: true) { _, member, value in
            switch member {
            case .type: type = value
            case .notification: notification = value
            case .userInfo: userInfo = value
            case .shouldResume: shouldResume = value
            case .reason: reason = value
            }
        }
        let document = decoder.document
        switch (type, notification) {
        case (let type?, nil):
            switch decoder.name(type, in: eventTypes) {
            case .interruptionBegan?: decoded.event = .interruptionBegan
            case .interruptionEnded?:
                if let flag = decoder.required(shouldResume, of: .bool, member: "shouldResume", in: object) {
                    decoded.event = .interruptionEnded(shouldResume: document.bool(flag) ?? false)
                }
            case .userPaused?: decoded.event = .userPaused
            case .outputDisconnected?: decoded.event = .outputDisconnected
            case .userPlayed?: decoded.event = .userPlayed
            case .routeChanged?:
                if let given = decoder.routeChangeReason(reason, in: object) {
                    decoded.event = .routeChanged(reason: given.reason)
                    decoded.reason = given
                }
            case nil: break
            }
        case (nil, let notification?):
            guard let name = decoder.value(notification, of: .string) else { break }
            let info = decoder.value(userInfo, of: .object)
            if decoder.present(userInfo) != nil, info == nil { break }
            var missingOptions = false
            let translated = AudioSessionNotification.translate(name, userInfo: info, in: document,
                                                                mediaServices: false, missingOptions: &missingOptions)
            if missingOptions { decoded.translationDiagnostic = .missingInterruptionOptions }
            switch translated {
            case .interruptionBegan: decoded.event = .interruptionBegan
            case .interruptionEnded(let resume): decoded.event = .interruptionEnded(shouldResume: resume)
            case .routeChanged(let given):
                decoded.event = .routeChanged(reason: given.reason)
                decoded.reason = given
            case .untranslated(let code): decoded.translationDiagnostic = code
            case .mediaServicesLost, .mediaServicesReset: preconditionFailure("not translated for playback")
            }
        case (_?, _?):
            decoder.report("an event has either 'type' or 'notification', not both", at: object)
        case (nil, nil):
            decoder.reportMissing("type", in: object, "an event needs 'type' (canonical form) or 'notification' (raw form)")
        }
        return envelope
    }

    /// The session an event belongs to, created from `initial` on first sight.
    mutating func sessionIndex(_ name: JSONValue?, initial: PlaybackState, document: JSONDocument) -> Int {
        if name != nil { anySessionNamed = true }
        let found: Int? = if let name {
            document.withUTF8(name) { bytes in sessions.firstIndex { $0.name.elementsEqual(bytes) } }
        } else {
            sessions.firstIndex { $0.name == defaultSession }
        }
        if let found { return found }
        let bytes = name.map { document.withUTF8($0) { Array($0) } } ?? defaultSession
        sessions.append(Session(name: bytes, machine: PlaybackMachine(state: initial)))
        return sessions.count - 1
    }

    func writeEvent(_ decoded: DecodedEvent, to writer: inout JSONWriter, document: JSONDocument) {
        switch decoded.event {
        case nil: writer.null()
        case .routeChanged?: decoded.reason?.writeEvent(to: &writer, document: document)
        case let event?: writer.raw(event.json)
        }
    }
}

private let defaultSession = Array("default".utf8)

extension DiagnosticCode {
    init(_ diagnostic: PlaybackDiagnostic) {
        switch diagnostic {
        case .endWithoutBegin: self = .endWithoutBegin
        case .routeChangeIgnored: self = .routeChangeIgnored
        case .unknownRouteChangeReason: self = .unknownRouteChangeReason
        }
    }
}

// Answers are mostly a few fixed fragments; writing them once keeps a
// 100k-event log fast.
private extension PlaybackState {
    static let fragments: [[UInt8]] = [false, true].flatMap { playing in
        [false, true].map { resume in
            Array(#"{"isPlaying":\#(playing),"resumeAfterInterruption":\#(resume)}"#.utf8)
        }
    }

    var json: [UInt8] { Self.fragments[(isPlaying ? 2 : 0) + (resumeAfterInterruption ? 1 : 0)] }
}

private extension PlayerAction {
    static let fragments: [[UInt8]] = [PlayerAction.play, .pause, .none].map { Array("\"\($0.rawValue)\"".utf8) }

    var json: [UInt8] {
        switch self {
        case .play: Self.fragments[0]
        case .pause: Self.fragments[1]
        case .none: Self.fragments[2]
        }
    }
}

private extension PlaybackEvent {
    static let fragments: [[UInt8]] = [
        #"{"type":"interruptionBegan"}"#, #"{"type":"interruptionEnded","shouldResume":false}"#,
        #"{"type":"interruptionEnded","shouldResume":true}"#, #"{"type":"userPaused"}"#,
        #"{"type":"outputDisconnected"}"#, #"{"type":"userPlayed"}"#,
    ].map { Array($0.utf8) }

    /// The canonical form of every event but `routeChanged`, which echoes its reason.
    var json: [UInt8] {
        switch self {
        case .interruptionBegan: Self.fragments[0]
        case .interruptionEnded(let shouldResume): Self.fragments[shouldResume ? 2 : 1]
        case .userPaused: Self.fragments[3]
        case .outputDisconnected: Self.fragments[4]
        case .userPlayed: Self.fragments[5]
        case .routeChanged: preconditionFailure("routeChanged is written with its reason")
        }
    }
}
