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

/// A decision that lists what a person should look at besides what to do: every
/// ruleset's does, as a list of its own diagnostics.
public protocol DiagnosedDecision {
    associatedtype Diagnostic
    var diagnostics: [Diagnostic] { get }
}

extension PlaybackDecision: DiagnosedDecision {}
extension HapticsDecision: DiagnosedDecision {}
extension RefreshDecision: DiagnosedDecision {}
extension AudioSessionDecision: DiagnosedDecision {}
