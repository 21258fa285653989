/// `haptics/1`'s confirmation flow as a state model: the node is the phase and
/// the engine, the decision the calls the app makes (the visible result follows
/// from the phase). It starts twice, because the rules differ on hardware
/// without haptics: idle with a stopped engine, and idle with an unsupported one.
public struct HapticsModel: FiniteStateModel {
    public static let stateFields = StateFieldTable(initial: HapticsState(),
                                                    .name("phase", \.phase), .name("engine", \.engine))

    /// Each event is a class of its own.
    public typealias EventClass = HapticsEvent

    public init() {}

    public var starts: [HapticsMachine] { [HapticsMachine(), HapticsMachine(state: HapticsState(engine: .unsupported))] }

    public func label(of decision: HapticsDecision) -> String { actionsLabel(decision.actions) }
}

extension HapticsEvent: ModelEventClass {}
