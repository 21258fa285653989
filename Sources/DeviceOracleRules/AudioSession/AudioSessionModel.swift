/// `audio-session/1` as a state model: the node is the state, the decision the
/// calls the app makes. `interruptionEnded` splits by its hint (given true, given
/// false, absent) and `routeChanged` by reason as in playback — classes the rules
/// must treat alike, which a plan shows. The category changes no decision (only
/// the `exclusiveCategory` diagnostic), so the model keeps the default one.
public struct AudioSessionModel: StateModel {
    private static let classes: [(name: String, event: AudioSessionEvent)] = [
        ("launched", .launched),
        ("enteredBackground", .enteredBackground),
        ("deactivationFailed", .deactivationFailed),
        ("deactivationSucceeded", .deactivationSucceeded),
        ("enteredForeground", .enteredForeground),
        ("interruptionBegan", .interruptionBegan),
        ("interruptionEnded(shouldResume=true)", .interruptionEnded(shouldResume: true)),
        ("interruptionEnded(shouldResume=false)", .interruptionEnded(shouldResume: false)),
        ("interruptionEnded(shouldResume=absent)", .interruptionEnded(shouldResume: nil)),
        ("routeChanged(reason=oldDeviceUnavailable)", .routeChanged(reason: .oldDeviceUnavailable)),
        ("routeChanged(reason=otherKnown)", .routeChanged(reason: .newDeviceAvailable)),
        ("routeChanged(reason=unknown)", .routeChanged(reason: nil)),
        ("mediaServicesLost", .mediaServicesLost),
        ("mediaServicesReset", .mediaServicesReset),
        ("playSound", .playSound(name: "tap")),
        ("willTerminate", .willTerminate),
    ]

    public init() {}

    public var starts: [AudioSessionMachine] { [AudioSessionMachine()] }

    public var eventClasses: [String] { Self.classes.map(\.name) }

    public func node(of machine: AudioSessionMachine) -> AudioSessionState { machine.state }

    public func apply(eventClass: Int, to machine: inout AudioSessionMachine)
        -> (event: AudioSessionEvent, decision: AudioSessionDecision) {
        let event = Self.classes[eventClass].event
        return (event, machine.apply(event))
    }

    public func label(of decision: AudioSessionDecision) -> String { actionsLabel(decision.actions) }

    public func eventClass(of event: AudioSessionEvent) -> Int {
        switch event {
        case .launched: 0
        case .enteredBackground: 1
        case .deactivationFailed: 2
        case .deactivationSucceeded: 3
        case .enteredForeground: 4
        case .interruptionBegan: 5
        case .interruptionEnded(true?): 6
        case .interruptionEnded(false?): 7
        case .interruptionEnded(nil): 8
        case .routeChanged(.oldDeviceUnavailable?): 9
        case .routeChanged(_?): 10
        case .routeChanged(nil): 11
        case .mediaServicesLost: 12
        case .mediaServicesReset: 13
        case .playSound: 14
        case .willTerminate: 15
        }
    }

    public func fields(of node: AudioSessionState) -> [ModelField] {
        [ModelField("foreground", .bool(node.foreground)), ModelField("active", .bool(node.active)),
         ModelField("interrupted", .bool(node.interrupted)), ModelField("categorySet", .bool(node.categorySet)),
         ModelField("observing", .bool(node.observing)),
         ModelField("deactivationPending", .bool(node.deactivationPending))]
    }
}
