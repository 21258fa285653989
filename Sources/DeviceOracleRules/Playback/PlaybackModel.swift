/// `playback/1` as a state model: the node is the state, the decision the player
/// call. `interruptionEnded` splits by `shouldResume`, `routeChanged` by reason
/// into the one that pauses, any other known one, and an unknown one — the
/// classes the rules tell apart.
public struct PlaybackModel: FiniteStateModel {
    public static let stateFields = StateFieldTable(
        initial: PlaybackState(),
        .flag("isPlaying", \.isPlaying), .flag("resumeAfterInterruption", \.resumeAfterInterruption))

    public enum EventClass: String, AlphabetEventClass {
        case interruptionBegan
        case interruptionEndedResuming = "interruptionEnded(shouldResume=true)"
        case interruptionEndedNotResuming = "interruptionEnded(shouldResume=false)"
        case userPaused, outputDisconnected, userPlayed
        case routeChangedOldDeviceUnavailable = "routeChanged(reason=oldDeviceUnavailable)"
        case routeChangedOtherKnown = "routeChanged(reason=otherKnown)"
        case routeChangedUnknown = "routeChanged(reason=unknown)"

        public init(_ event: PlaybackEvent) {
            self = switch event {
            case .interruptionBegan: .interruptionBegan
            case .interruptionEnded(let shouldResume): shouldResume ? .interruptionEndedResuming : .interruptionEndedNotResuming
            case .userPaused: .userPaused
            case .outputDisconnected: .outputDisconnected
            case .userPlayed: .userPlayed
            case .routeChanged(.oldDeviceUnavailable?): .routeChangedOldDeviceUnavailable
            case .routeChanged(_?): .routeChangedOtherKnown
            case .routeChanged(nil): .routeChangedUnknown
            }
        }

        /// A known reason other than `oldDeviceUnavailable` is `newDeviceAvailable` in walks.
        public static let alphabet = EventAlphabet<PlaybackEvent>(
            .interruptionBegan, .interruptionEnded(shouldResume: true), .interruptionEnded(shouldResume: false),
            .userPaused, .outputDisconnected, .userPlayed,
            .routeChanged(reason: .oldDeviceUnavailable), .routeChanged(reason: .newDeviceAvailable), .routeChanged(reason: nil))
    }

    public init() {}

    public var starts: [PlaybackMachine] { [PlaybackMachine()] }

    public func label(of decision: PlaybackDecision) -> String { decision.action.rawValue }
}
