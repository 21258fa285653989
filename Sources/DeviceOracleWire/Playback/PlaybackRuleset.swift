import DeviceOracleJSON
import DeviceOracleRules

/// `POST /playback/apply` (playback.md): one `PlaybackMachine` per session over
/// the event log, answered by the event-log engine.
enum PlaybackRuleset: FiniteRulesetDescription {
    static let endpoint = EventLogDriver<Self>.endpoint(
        "playback/1", path: "/playback/apply",
        summary: "Media player decisions after audio interruptions, route changes (headphones unplugged) and user pause/play.")
    static let model = PlaybackModel()

    static var hasSessions: Bool { true }
    static let notificationEvents: NotificationEvents<PlaybackEvent>? = NotificationEvents(
        interruptionBegan: .interruptionBegan, interruptionEnded: { .interruptionEnded(shouldResume: $0) },
        routeChanged: { .routeChanged(reason: $0) }, mediaServices: nil)

    static let stepFields = StepField.stateFields + [.read("action") { .string($0.action.rawValue) }]

    enum EventType: String, NamedCase {
        case interruptionBegan, interruptionEnded, userPaused, outputDisconnected, userPlayed, routeChanged
    }

    enum EventField: String, NamedCase {
        case shouldResume, reason
    }

    typealias RuleDiagnostic = PlaybackDiagnostic
    typealias Decision = PlaybackStep

    static func machine(initial: PlaybackState, settings: NoSettings) -> PlaybackMachine { PlaybackMachine(state: initial) }
    static func machine(startingAt state: PlaybackState) -> PlaybackMachine { PlaybackMachine(state: state) }

    static func event(_ type: EventType) -> PlaybackEvent? { PlaybackModel.EventClass.event(ofPlainType: type) }

    static func event(_ type: EventType, _ fields: EventFields<EventField>, in object: JSONValue,
                      _ decoder: inout RequestDecoder) -> DecodedEvent<PlaybackEvent>? {
        switch type {
        case .interruptionEnded:
            guard let flag = decoder.required(fields[.shouldResume], of: .bool, member: "shouldResume", in: object) else {
                return nil
            }
            return DecodedEvent(.interruptionEnded(shouldResume: decoder.document.bool(flag) ?? false))
        case .routeChanged:
            return decoder.routeChangedEvent(fields[.reason], in: object) { .routeChanged(reason: $0) }
        case .interruptionBegan, .userPaused, .outputDisconnected, .userPlayed:
            preconditionFailure("\(type) carries nothing")
        }
    }

    static let fixedPayloadEvents = [false, true].map { PlaybackEvent.interruptionEnded(shouldResume: $0) }
        + RouteChangeReason.allCases.map { PlaybackEvent.routeChanged(reason: $0) }

    static func writePayloadEvent(_ event: PlaybackEvent, given: GivenRouteChangeReason?, to writer: inout JSONWriter,
                                  document: JSONDocument?) {
        switch event {
        case .interruptionEnded(let shouldResume):
            writer.interruptionEndedEvent(shouldResume)
        case .routeChanged(let reason):
            writer.routeChangedEvent(reason, given: given, document: document)
        case .interruptionBegan, .userPaused, .outputDisconnected, .userPlayed:
            preconditionFailure("\(event) carries nothing")
        }
    }

    static func decide(_ event: PlaybackEvent, on machine: inout PlaybackMachine) -> PlaybackStep {
        machine.decide(event)
    }

    static func writeDecision(_ decision: PlaybackStep, to writer: inout JSONWriter) {
        writer.key("action")
        writer.string(escaping: decision.action.rawValue)
    }

    static var noDecision: PlaybackStep { .nothing }

    static func forEachDiagnostic(of decision: PlaybackStep, _ body: (PlaybackDiagnostic) -> Void) {
        if let diagnostic = decision.diagnostic { body(diagnostic) }
    }
}
