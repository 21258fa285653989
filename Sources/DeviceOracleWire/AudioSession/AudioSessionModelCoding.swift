import DeviceOracleJSON
import DeviceOracleRules

/// `audio-session/1`'s state model on the wire: walks replay as canonical events.
enum AudioSessionModelCoding: CanonicalStepCoding {
    static let graph = StateGraph(AudioSessionModel())
    static let nodesByFields = graph.nodesByFields

    /// The category changes only a diagnostic, so every state's machine keeps `ambient`.
    static let everyStateGraph = StateGraph(AudioSessionModel(),
                                            starts: AudioSessionModel.stateFields.allStates.map { AudioSessionMachine(state: $0) })
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
            // An event without members is a class of its own, spelled as its type.
            writer.event(AudioSessionModel.EventClass(event).rawValue)
        }
    }
}
