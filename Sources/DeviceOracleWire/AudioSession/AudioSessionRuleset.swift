import DeviceOracleJSON
@_spi(Engine) import DeviceOracleRules

/// `POST /audio-session/run` (audio-session.md): one `AudioSessionMachine` over the
/// event log, answered by the event-log engine. Members in this order: `ruleset`,
/// `category`, `final`, `steps`, `verdict`, `mismatches`, `diagnostics`.
enum AudioSessionRuleset: FiniteRulesetDescription {
    static let endpoint = EventLogDriver<Self>.endpoint(
        "audio-session/1", path: "/audio-session/run",
        summary: "A game's shared audio session over the app lifecycle: activation, interruptions, route changes, media-services reset.")
    static let model = AudioSessionModel()

    static let notificationEvents: NotificationEvents<AudioSessionEvent>? = NotificationEvents(
        interruptionBegan: .interruptionBegan, interruptionEnded: { .interruptionEnded(shouldResume: $0) },
        routeChanged: { .routeChanged(reason: $0) }, mediaServices: (.mediaServicesLost, .mediaServicesReset))

    enum Setting: String, NamedCase {
        case category
    }

    /// What `observed` may name: any state field, and the step's decision fields.
    static let stepFields = StepField.stateFields + [
        .read("actions") { .array($0.actions.map { .string($0.rawValue) }) }, .read("soundPlayed") { .bool($0.soundPlayed) },
    ]

    enum EventType: String, NamedCase {
        case launched, enteredBackground, deactivationFailed, deactivationSucceeded, enteredForeground
        case interruptionBegan, interruptionEnded, routeChanged, mediaServicesLost, mediaServicesReset
        case playSound, willTerminate
    }

    enum EventField: String, NamedCase {
        case shouldResume, reason, name
    }

    typealias RuleDiagnostic = AudioSessionDiagnostic
    typealias Decision = AudioSessionStep

    private static let categories = ClosedNames<AudioSessionCategory>("category")

    static func settings(_ given: GivenMembers<Setting>, in request: JSONValue, eventsGiven: Bool,
                         _ decoder: inout RequestDecoder) -> AudioSessionCategory {
        guard let value = decoder.present(given[.category]), let named = decoder.name(value, in: categories) else {
            return .ambient
        }
        return named
    }

    static func machine(initial: AudioSessionState, settings category: AudioSessionCategory) -> AudioSessionMachine {
        AudioSessionMachine(state: initial, category: category)
    }

    /// The category changes only the `exclusiveCategory` diagnostic, never a step's tail.
    static func machine(startingAt state: AudioSessionState) -> AudioSessionMachine { AudioSessionMachine(state: state) }

    /// `playSound`'s class is spelled as its type, but its name is an echoed member.
    static func event(_ type: EventType) -> AudioSessionEvent? {
        type == .playSound ? nil : AudioSessionModel.EventClass.event(ofPlainType: type)
    }

    static func event(_ type: EventType, _ fields: EventFields<EventField>, in object: JSONValue,
                      _ decoder: inout RequestDecoder) -> DecodedEvent<AudioSessionEvent>? {
        switch type {
        case .interruptionEnded:
            // Optional: a wrong type is reported (and the run stops), absent is no hint.
            return DecodedEvent(.interruptionEnded(shouldResume: decoder.bool(fields[.shouldResume])))
        case .routeChanged:
            return decoder.routeChangedEvent(fields[.reason], in: object) { .routeChanged(reason: $0) }
        default:
            // `playSound`'s name is an echoed member, which the engine reads.
            preconditionFailure("\(type) carries nothing the rules read")
        }
    }

    static let fixedPayloadEvents = [nil, false, true].map { AudioSessionEvent.interruptionEnded(shouldResume: $0) }
        + RouteChangeReason.allCases.map { AudioSessionEvent.routeChanged(reason: $0) }

    /// A sound's name is echoed; the rules never read it.
    static let echoedMembers = [EchoedMember<Self>(type: .playSound, member: .name) { .playSound(name: $0) }]

    /// `interruptionEnded` shows `shouldResume` only when given; `playSound` echoes its name.
    static func writePayloadEvent(_ event: AudioSessionEvent, given: GivenRouteChangeReason?,
                                  to writer: inout JSONWriter, document: JSONDocument?) {
        switch event {
        case .interruptionEnded(let shouldResume):
            writer.interruptionEndedEvent(shouldResume)
        case .routeChanged(let reason):
            writer.routeChangedEvent(reason, given: given, document: document)
        case .playSound(let name):
            writer.playSoundEvent(name)
        default:
            preconditionFailure("\(event) carries nothing")
        }
    }

    static func writeDecision(_ decision: AudioSessionStep, to writer: inout JSONWriter) {
        writer.key("actions")
        writer.beginArray()
        decision.actions.forEach { writer.string(escaping: $0.rawValue) }
        writer.endArray()
        writer.key("soundPlayed")
        writer.bool(decision.soundPlayed)
        if let hint = decision.resumeHint {
            writer.key("resumeHint")
            switch hint {
            case .shouldResume: writer.bool(true)
            case .shouldNotResume: writer.bool(false)
            case .notGiven: writer.null()
            }
        }
    }

    static func decide(_ event: AudioSessionEvent, on machine: inout AudioSessionMachine) -> AudioSessionStep {
        machine.decide(event)
    }

    static var noDecision: AudioSessionStep { .nothing }

    static func forEachDiagnostic(of decision: AudioSessionStep, _ body: (AudioSessionDiagnostic) -> Void) {
        decision.diagnostics.forEach(body)
    }

    static func writeHead(_ category: AudioSessionCategory, to writer: inout JSONWriter, document: JSONDocument) {
        writer.key("category")
        writer.string(escaping: category.rawValue)
    }
}

extension AudioSessionCategory: NamedCase {}

extension JSONWriter {
    /// A request's `playSound`, its name echoed.
    mutating func playSoundEvent(_ name: String) {
        event("playSound") { writer in
            writer.key("name")
            writer.string(escaping: name)
        }
    }
}
