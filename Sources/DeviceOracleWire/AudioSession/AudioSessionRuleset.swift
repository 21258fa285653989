import DeviceOracleJSON
@_spi(Engine) import DeviceOracleRules

/// `POST /audio-session/run` (audio-session.md): one `AudioSessionMachine` over the
/// event log, answered by the event-log engine. Members in this order: `ruleset`,
/// `category`, `final`, `steps`, `verdict`, `mismatches`, `diagnostics`.
enum AudioSessionRuleset: FiniteRulesetDescription {
    typealias Steps = PrecomputedSteps<Self>
    static let endpoint = EventLogDriver<Self>.endpoint(
        "audio-session/1", path: "/audio-session/run",
        summary: "A game's shared audio session over the app lifecycle: activation, interruptions, route changes, media-services reset.",
        model: RulesetModel(AudioSessionModelCoding.self))

    static let notificationEvents: NotificationEvents<AudioSessionEvent>? = NotificationEvents(
        interruptionBegan: .interruptionBegan, interruptionEnded: { .interruptionEnded(shouldResume: $0) },
        routeChanged: { .routeChanged(reason: $0) }, mediaServices: (.mediaServicesLost, .mediaServicesReset))

    enum Setting: String, NamedCase {
        case category
    }

    /// The state fields, in the order answers write them.
    enum StateField: String, NamedCase {
        case foreground, active, interrupted, categorySet, observing, deactivationPending
    }
    typealias InitialField = StateField
    typealias FinalField = StateField

    /// What `observed` may name: any state field, and the step's decision fields.
    enum StepField: NamedCase {
        case state(StateField)
        case actions, soundPlayed

        static let allCases = StateField.allCases.map(state) + [actions, soundPlayed]

        var name: String {
            switch self {
            case .state(let field): field.rawValue
            case .actions: "actions"
            case .soundPlayed: "soundPlayed"
            }
        }
    }

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

    /// Bit i of a state's number is its i-th field.
    static let allStates = (0..<1 << StateField.allCases.count).map { bits in
        var state = AudioSessionState()
        for (offset, field) in StateField.allCases.enumerated() { state[field] = bits & 1 << offset != 0 }
        return state
    }
    static var initialState: AudioSessionState { AudioSessionState() }

    static func settings(_ given: GivenMembers<Setting>, in request: JSONValue, eventsGiven: Bool,
                         _ decoder: inout RequestDecoder) -> AudioSessionCategory {
        guard let value = decoder.present(given[.category]), let named = decoder.name(value, in: categories) else {
            return .ambient
        }
        return named
    }

    static func readInitial(_ field: StateField, _ value: JSONValue, into state: inout AudioSessionState,
                            _ decoder: inout RequestDecoder) {
        if let flag = decoder.bool(value) { state[field] = flag }
    }

    static func machine(initial: AudioSessionState, settings category: AudioSessionCategory) -> AudioSessionMachine {
        AudioSessionMachine(state: initial, category: category)
    }

    /// The category changes only the `exclusiveCategory` diagnostic, never a step's tail.
    static func machine(startingAt state: AudioSessionState) -> AudioSessionMachine { AudioSessionMachine(state: state) }

    static func event(_ type: EventType) -> AudioSessionEvent? {
        switch type {
        case .launched: .launched
        case .enteredBackground: .enteredBackground
        case .deactivationFailed: .deactivationFailed
        case .deactivationSucceeded: .deactivationSucceeded
        case .enteredForeground: .enteredForeground
        case .interruptionBegan: .interruptionBegan
        case .mediaServicesLost: .mediaServicesLost
        case .mediaServicesReset: .mediaServicesReset
        case .willTerminate: .willTerminate
        case .interruptionEnded, .routeChanged, .playSound: nil
        }
    }

    static func event(_ type: EventType, _ fields: EventFields<EventField>, in object: JSONValue,
                      _ decoder: inout RequestDecoder) -> DecodedEvent<AudioSessionEvent>? {
        switch type {
        case .interruptionEnded:
            // Optional: a wrong type is reported (and the run stops), absent is no hint.
            return DecodedEvent(.interruptionEnded(shouldResume: decoder.bool(fields[.shouldResume])))
        case .routeChanged:
            return decoder.routeChangeReason(fields[.reason], in: object).map {
                DecodedEvent(.routeChanged(reason: $0.reason), given: $0)
            }
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
            writer.beginObject()
            writer.key("type")
            writer.string("interruptionEnded")
            if let shouldResume {
                writer.key("shouldResume")
                writer.bool(shouldResume)
            }
            writer.endObject()
        case .routeChanged(let reason):
            writer.routeChangedEvent(reason, given: given, document: document)
        case .playSound(let name):
            writer.beginObject()
            writer.key("type")
            writer.string("playSound")
            writer.key("name")
            writer.string(escaping: name)
            writer.endObject()
        default:
            preconditionFailure("\(event) carries nothing")
        }
    }

    static func value(_ field: StateField, of state: AudioSessionState) -> FieldValue { .bool(state[field]) }

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

    static func expected(_ field: StepField, after: AudioSessionState, decision: AudioSessionStep) -> FieldValue? {
        switch field {
        case .state(let field): .bool(after[field])
        case .actions: .array(decision.actions.map { .string($0.rawValue) })
        case .soundPlayed: .bool(decision.soundPlayed)
        }
    }

    static func expectedFinal(_ field: StateField, of machine: AudioSessionMachine) -> FieldValue {
        value(field, of: machine.state)
    }

    static func writeHead(_ category: AudioSessionCategory, to writer: inout JSONWriter, document: JSONDocument) {
        writer.key("category")
        writer.string(escaping: category.rawValue)
    }
}

extension AudioSessionCategory: NamedCase {}

private extension AudioSessionState {
    subscript(field: AudioSessionRuleset.StateField) -> Bool {
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
}
