/// What the four rulesets' machines have in common: a state, and `apply`, which
/// moves it by one event and returns what the app must do. Code that drives any of
/// them (a test harness, a property check) is written once against this.
public protocol StateMachine {
    associatedtype State
    associatedtype Event
    associatedtype Decision

    var state: State { get }
    mutating func apply(_ event: Event) -> Decision
}

extension PlaybackMachine: StateMachine {}
extension HapticsMachine: StateMachine {}
extension RefreshMachine: StateMachine {}
extension AudioSessionMachine: StateMachine {}
