import DeviceOracleJSON
import DeviceOracleRules

/// `audio-session/1`'s state model on the wire: walks replay as canonical events.
enum AudioSessionModelCoding: CanonicalStepCoding {
    static let graph = StateGraph(AudioSessionModel())
    static let nodesByFields = graph.nodesByFields

    /// Events without members of their own, by their type.
    private static let plainEvents: [String: AudioSessionEvent] = [
        "launched": .launched, "enteredBackground": .enteredBackground, "deactivationFailed": .deactivationFailed,
        "deactivationSucceeded": .deactivationSucceeded, "enteredForeground": .enteredForeground,
        "interruptionBegan": .interruptionBegan, "mediaServicesLost": .mediaServicesLost,
        "mediaServicesReset": .mediaServicesReset, "willTerminate": .willTerminate,
    ]

    /// The category changes only a diagnostic, so every state's machine keeps `ambient`.
    static let everyStateGraph = StateGraph(AudioSessionModel(),
                                            starts: AudioSessionRuleset.allStates.map { AudioSessionMachine(state: $0) })
    static let everyStateNodesByFields = everyStateGraph.nodesByFields

    static func writeRequest(start _: Int, events: [AudioSessionEvent], to writer: inout JSONWriter) {
        writer.eventLog(events, writeEvent)
    }

    static func writeEvent(_ event: AudioSessionEvent, to writer: inout JSONWriter) {
        switch event {
        case .interruptionEnded(let shouldResume): writer.interruptionEndedEvent(shouldResume)
        case .routeChanged(let reason): writer.routeChangedEvent(reason)
        case .playSound(let name):
            writer.event("playSound") { writer in
                writer.key("name")
                writer.string(escaping: name)
            }
        default:
            guard let type = plainEvents.first(where: { $0.value == event })?.key else {
                preconditionFailure("every other event is a plain one")
            }
            writer.event(type)
        }
    }
}
