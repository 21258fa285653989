import DeviceOracleJSON
import DeviceOracleRules

/// `haptics/1`'s confirmation flow on the wire: a walk from the second start
/// replays on hardware without haptics (`"supportsHaptics": false`).
enum HapticsModelCoding: CanonicalStepCoding {
    static let graph = StateGraph(HapticsModel())
    static let nodesByFields = graph.nodesByFields

    static func writeRequest(start: Int, events: [HapticsEvent], to writer: inout JSONWriter) {
        let supportsHaptics = graph.nodes[graph.startNodes[start]].engine != .unsupported
        writer.eventLog(events, head: { writer in
            if !supportsHaptics {
                writer.key("supportsHaptics")
                writer.bool(false)
            }
        }, writeEvent)
    }

    static let everyStateGraph = StateGraph(HapticsModel(),
                                            starts: HapticsModel.stateFields.allStates.map { HapticsMachine(state: $0) })
    static let everyStateNodesByFields = everyStateGraph.nodesByFields

    static func writeEvent(_ event: HapticsEvent, to writer: inout JSONWriter) {
        writer.event(event.rawValue)
    }
}
