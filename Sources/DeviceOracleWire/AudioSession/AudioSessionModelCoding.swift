import DeviceOracleJSON
import DeviceOracleRules

/// `audio-session/1`'s state model on the wire: walks replay as canonical events.
enum AudioSessionModelCoding: CanonicalStepCoding {
    typealias Model = AudioSessionModel
    /// The category changes only a diagnostic, so every state's machine keeps `ambient`.
    static let graphs = ModelGraphs(AudioSessionModel(), machine: AudioSessionRuleset.machine(startingAt:))

    static func writeEvent(_ event: AudioSessionEvent, to writer: inout JSONWriter) {
        switch event {
        case .interruptionEnded(let shouldResume): writer.interruptionEndedEvent(shouldResume)
        case .routeChanged(let reason): writer.routeChangedEvent(reason)
        case .playSound(let name): writer.playSoundEvent(name)
        default:
            // An event without members is a class of its own, spelled as its type.
            writer.event(AudioSessionModel.EventClass(event).rawValue)
        }
    }
}

extension JSONWriter {
    /// A request's `playSound`, its name echoed.
    mutating func playSoundEvent(_ name: String) {
        event("playSound") { writer in
            writer.key("name")
            writer.string(escaping: name)
        }
    }
}
