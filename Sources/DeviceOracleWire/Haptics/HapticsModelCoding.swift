import DeviceOracleJSON
import DeviceOracleRules

/// `haptics/1`'s confirmation flow on the wire: a walk from the second start
/// replays on hardware without haptics (`"supportsHaptics": false`).
enum HapticsModelCoding: CanonicalStepCoding {
    typealias Model = HapticsModel
    static let graphs = ModelGraphs(HapticsModel(), machine: HapticsRuleset.machine(startingAt:))

    static func writeRequest(start: Int, events: [HapticsEvent], to writer: inout JSONWriter) {
        let supportsHaptics = graph.nodes[graph.startNodes[start]].engine != .unsupported
        writer.eventLog(events, head: { writer in
            if !supportsHaptics {
                writer.key("supportsHaptics")
                writer.bool(false)
            }
        }, writeEvent)
    }

    static func writeEvent(_ event: HapticsEvent, to writer: inout JSONWriter) {
        writer.event(event.rawValue)
    }
}
