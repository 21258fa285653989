/// `playback/1` as a state model: the node is the state, the decision the player
/// call. `interruptionEnded` splits by `shouldResume`, `routeChanged` by reason
/// into the one that pauses, any other known one, and an unknown one — the
/// classes the rules tell apart.
public struct PlaybackModel: StateModel {
    private static let classes: [(name: String, event: PlaybackEvent)] = [
        ("interruptionBegan", .interruptionBegan),
        ("interruptionEnded(shouldResume=true)", .interruptionEnded(shouldResume: true)),
        ("interruptionEnded(shouldResume=false)", .interruptionEnded(shouldResume: false)),
        ("userPaused", .userPaused),
        ("outputDisconnected", .outputDisconnected),
        ("userPlayed", .userPlayed),
        ("routeChanged(reason=oldDeviceUnavailable)", .routeChanged(reason: .oldDeviceUnavailable)),
        ("routeChanged(reason=otherKnown)", .routeChanged(reason: .newDeviceAvailable)),
        ("routeChanged(reason=unknown)", .routeChanged(reason: nil)),
    ]

    public init() {}

    public var starts: [PlaybackMachine] { [PlaybackMachine()] }

    public var eventClasses: [String] { Self.classes.map(\.name) }

    public func node(of machine: PlaybackMachine) -> PlaybackState { machine.state }

    public func apply(eventClass: Int, to machine: inout PlaybackMachine) -> (event: PlaybackEvent, decision: PlaybackDecision) {
        let event = Self.classes[eventClass].event
        return (event, machine.apply(event))
    }

    public func label(of decision: PlaybackDecision) -> String { decision.action.rawValue }

    public func eventClass(of event: PlaybackEvent) -> Int {
        switch event {
        case .interruptionBegan: 0
        case .interruptionEnded(let shouldResume): shouldResume ? 1 : 2
        case .userPaused: 3
        case .outputDisconnected: 4
        case .userPlayed: 5
        case .routeChanged(.oldDeviceUnavailable?): 6
        case .routeChanged(_?): 7
        case .routeChanged(nil): 8
        }
    }

    public func fields(of node: PlaybackState) -> [ModelField] {
        [ModelField("isPlaying", .bool(node.isPlaying)),
         ModelField("resumeAfterInterruption", .bool(node.resumeAfterInterruption))]
    }
}
