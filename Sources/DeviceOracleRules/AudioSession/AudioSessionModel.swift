/// `audio-session/1` as a state model: the node is the state, the decision the
/// calls the app makes. `interruptionEnded` splits by its hint (given true, given
/// false, absent) and `routeChanged` by reason as in playback — classes the rules
/// must treat alike, which a plan shows. The category changes no decision (only
/// the `exclusiveCategory` diagnostic), so the model keeps the default one.
public struct AudioSessionModel: FiniteStateModel {
    public static let stateFields = StateFieldTable(
        initial: AudioSessionState(), numbering: .firstFieldFastest,
        .flag("foreground", \.foreground), .flag("active", \.active), .flag("interrupted", \.interrupted),
        .flag("categorySet", \.categorySet), .flag("observing", \.observing),
        .flag("deactivationPending", \.deactivationPending))

    public enum EventClass: String, AlphabetEventClass {
        case launched, enteredBackground, deactivationFailed, deactivationSucceeded, enteredForeground, interruptionBegan
        case interruptionEndedResuming = "interruptionEnded(shouldResume=true)"
        case interruptionEndedNotResuming = "interruptionEnded(shouldResume=false)"
        case interruptionEndedWithoutHint = "interruptionEnded(shouldResume=absent)"
        case routeChangedOldDeviceUnavailable = "routeChanged(reason=oldDeviceUnavailable)"
        case routeChangedOtherKnown = "routeChanged(reason=otherKnown)"
        case routeChangedUnknown = "routeChanged(reason=unknown)"
        case mediaServicesLost, mediaServicesReset, playSound, willTerminate

        public init(_ event: AudioSessionEvent) {
            self = switch event {
            case .launched: .launched
            case .enteredBackground: .enteredBackground
            case .deactivationFailed: .deactivationFailed
            case .deactivationSucceeded: .deactivationSucceeded
            case .enteredForeground: .enteredForeground
            case .interruptionBegan: .interruptionBegan
            case .interruptionEnded(true?): .interruptionEndedResuming
            case .interruptionEnded(false?): .interruptionEndedNotResuming
            case .interruptionEnded(nil): .interruptionEndedWithoutHint
            case .routeChanged(.oldDeviceUnavailable?): .routeChangedOldDeviceUnavailable
            case .routeChanged(_?): .routeChangedOtherKnown
            case .routeChanged(nil): .routeChangedUnknown
            case .mediaServicesLost: .mediaServicesLost
            case .mediaServicesReset: .mediaServicesReset
            case .playSound: .playSound
            case .willTerminate: .willTerminate
            }
        }

        /// A known reason other than `oldDeviceUnavailable` is `newDeviceAvailable` in
        /// walks, and a sound is a tap.
        public static let alphabet = EventAlphabet<AudioSessionEvent>(
            .launched, .enteredBackground, .deactivationFailed, .deactivationSucceeded, .enteredForeground,
            .interruptionBegan, .interruptionEnded(shouldResume: true), .interruptionEnded(shouldResume: false),
            .interruptionEnded(shouldResume: nil), .routeChanged(reason: .oldDeviceUnavailable),
            .routeChanged(reason: .newDeviceAvailable), .routeChanged(reason: nil),
            .mediaServicesLost, .mediaServicesReset, .playSound(name: "tap"), .willTerminate)
    }

    public init() {}

    public var starts: [AudioSessionMachine] { [AudioSessionMachine()] }

    public func label(of decision: AudioSessionDecision) -> String { actionsLabel(decision.actions) }
}
