import DeviceOracleJSON
import DeviceOracleRules

/// `playback/1`'s state model on the wire: walks replay as canonical events.
enum PlaybackModelCoding: CanonicalStepCoding {
    typealias Model = PlaybackModel
    static let graphs = ModelGraphs(PlaybackModel(), machine: PlaybackRuleset.machine(startingAt:))

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
