/// `haptics/1`'s confirmation flow as a state model: the node is the phase and
/// the engine, the decision the calls the app makes (the visible result follows
/// from the phase). It starts twice, because the rules differ on hardware
/// without haptics: idle with a stopped engine, and idle with an unsupported one.
public struct HapticsModel: StateModel {
    public init() {}

    public var starts: [HapticsMachine] { [HapticsMachine(), HapticsMachine(state: HapticsState(engine: .unsupported))] }

    public var eventClasses: [String] { HapticsEvent.allCases.map(\.rawValue) }

    public func node(of machine: HapticsMachine) -> HapticsState { machine.state }

    public func apply(eventClass: Int, to machine: inout HapticsMachine) -> (event: HapticsEvent, decision: HapticsDecision) {
        let event = HapticsEvent.allCases[eventClass]
        return (event, machine.apply(event))
    }

    public func label(of decision: HapticsDecision) -> String { actionsLabel(decision.actions) }

    public func eventClass(of event: HapticsEvent) -> Int {
        HapticsEvent.allCases.firstIndex(of: event)!
    }

    public func fields(of node: HapticsState) -> [ModelField] {
        [ModelField("phase", .name(node.phase.rawValue)), ModelField("engine", .name(node.engine.rawValue))]
    }
}
