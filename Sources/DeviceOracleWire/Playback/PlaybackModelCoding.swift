import DeviceOracleJSON
import DeviceOracleRules

/// `playback/1`'s state model on the wire: walks replay as canonical events.
enum PlaybackModelCoding: CanonicalStepCoding {
    static let graph = StateGraph(PlaybackModel())
    static let nodesByFields = graph.nodesByFields

    static let everyStateGraph = StateGraph(PlaybackModel(),
                                            starts: PlaybackModel.stateFields.allStates.map { PlaybackMachine(state: $0) })
    static let everyStateNodesByFields = everyStateGraph.nodesByFields

    static func writeRequest(start _: Int, events: [PlaybackEvent], to writer: inout JSONWriter) {
        writer.eventLog(events, writeEvent)
    }

    static func writeEvent(_ event: PlaybackEvent, to writer: inout JSONWriter) {
        switch event {
        case .interruptionEnded(let shouldResume): writer.interruptionEndedEvent(shouldResume)
        case .routeChanged(let reason): writer.routeChangedEvent(reason)
        case .interruptionBegan, .userPaused, .outputDisconnected, .userPlayed:
            // An event without members is a class of its own, spelled as its type.
            writer.event(PlaybackModel.EventClass(event).rawValue)
        }
    }
}
