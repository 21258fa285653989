/// `haptics/1`, part 2: the haptic confirmation of a "Saved" message. The haptic
/// fires once, after a successful save — not on the tap — and never after a
/// failed save. It adds to the visible confirmation and never replaces it: the
/// visible result depends on the save alone, so a device without haptics or an
/// engine error leaves it exactly as it would be otherwise.
public enum SavePhase: String, CaseIterable, Sendable {
    case idle, saving, saved, failed
}

/// The haptic engine as the app must track it (`CHHapticEngine`).
public enum HapticEngineState: String, CaseIterable, Sendable {
    case stopped, running
    /// The hardware has no haptics (`capabilitiesForHardware().supportsHaptics` is
    /// false); it never changes.
    case unsupported
}

public struct HapticsState: Equatable, Hashable, Sendable {
    public var phase: SavePhase
    public var engine: HapticEngineState

    public init(phase: SavePhase = .idle, engine: HapticEngineState = .stopped) {
        self.phase = phase
        self.engine = engine
    }
}

public enum HapticsEvent: String, CaseIterable, Sendable {
    case saveTapped, saveSucceeded, saveFailed
    /// The engine reported an error while playing.
    case hapticFailed
    /// The system stopped the engine: interruption, idle timeout, background.
    case engineStopped
    /// The engine was reset; its old player is no longer usable.
    case engineReset
    case appBackgrounded, appForegrounded
}

/// What the screen must show after a step; a function of the phase alone.
public enum VisibleResult: String, Sendable {
    case none, saving, saved, error

    public init(_ phase: SavePhase) {
        switch phase {
        case .idle: self = .none
        case .saving: self = .saving
        case .saved: self = .saved
        case .failed: self = .error
        }
    }
}

/// Whether the step requests the confirmation haptic.
public enum HapticRequest: String, Sendable {
    case play, none
}

/// The ordered calls the playback layer makes.
public enum HapticsAction: String, Sendable {
    case startSave, startEngine, playHaptic
}

/// Things a person should look at that do not change the decision.
public enum HapticsDiagnostic: String, CaseIterable, Sendable {
    /// `saveTapped` while a save is in flight (info).
    case duplicateTapBlocked
    /// `saveSucceeded`/`saveFailed` with no save in flight (warning).
    case unexpectedCompletion
    /// `hapticFailed`: the engine must be prepared again (info).
    case hapticError
}

public struct HapticsDecision: Equatable, Sendable {
    public var visible: VisibleResult
    public var haptic: HapticRequest
    public var actions: [HapticsAction]
    /// At most one for haptics; a list, as on every ruleset's decision.
    public var diagnostics: [HapticsDiagnostic]

    public init(visible: VisibleResult, haptic: HapticRequest = .none, actions: [HapticsAction] = [],
                diagnostics: [HapticsDiagnostic] = []) {
        self.visible = visible
        self.haptic = haptic
        self.actions = actions
        self.diagnostics = diagnostics
    }
}

/// A decision as the rules make it, its actions and its one diagnostic held inline:
/// the oracle's engine copies a decision several times per event, and a list's
/// reference would add an allocation, a retain and a release (bench/RESULTS.md,
/// issues 17 and 18).
package struct HapticsStep: Equatable, Sendable {
    package var visible: VisibleResult
    package var haptic: HapticRequest
    package var actions: ShortList<HapticsAction>
    package var diagnostic: HapticsDiagnostic?

    /// What a step no machine decided answers.
    package static let nothing = HapticsStep(visible: .none, haptic: .none, actions: ShortList(), diagnostic: nil)
}

/// Totals over a run. By the rules `hapticRequests` equals `saves` when the
/// hardware supports haptics and is 0 otherwise.
public struct HapticsSummary: Equatable, Sendable {
    /// Completed saves: `saving` → `saved`.
    public var saves: Int
    /// Completed failures: `saving` → `failed`.
    public var failures: Int
    public var hapticRequests: Int

    public init(saves: Int = 0, failures: Int = 0, hapticRequests: Int = 0) {
        self.saves = saves
        self.failures = failures
        self.hapticRequests = hapticRequests
    }
}

/// The canonical confirmation flow. Feed it events in the order the state owner
/// received them; it returns what the screen shows and which calls the app makes.
public struct HapticsMachine: Equatable, Sendable {
    public private(set) var state: HapticsState
    public private(set) var summary = HapticsSummary()

    /// Starts in any state: a save in flight, an engine already running, or
    /// hardware without haptics (`engine: .unsupported`).
    public init(state: HapticsState = HapticsState()) {
        self.state = state
    }

    public mutating func apply(_ event: HapticsEvent) -> HapticsDecision {
        let step = decide(event)
        return HapticsDecision(visible: step.visible, haptic: step.haptic, actions: step.actions.array,
                               diagnostics: step.diagnostic.map { [$0] } ?? [])
    }

    /// `apply` without the diagnostics' list (`HapticsStep`): what the oracle's engine runs.
    package mutating func decide(_ event: HapticsEvent) -> HapticsStep {
        var haptic = HapticRequest.none
        var actions = ShortList<HapticsAction>()
        var diagnostic: HapticsDiagnostic?
        switch (event, state.phase) {
        case (.saveTapped, .saving):
            diagnostic = .duplicateTapBlocked
        case (.saveTapped, _):
            state.phase = .saving
            actions = ShortList(.startSave)
        case (.saveSucceeded, .saving):
            state.phase = .saved
            summary.saves += 1
            switch state.engine {
            case .unsupported: break
            case .stopped: actions = ShortList(.startEngine, .playHaptic)
            case .running: actions = ShortList(.playHaptic)
            }
            if state.engine != .unsupported {
                haptic = .play
                state.engine = .running
                summary.hapticRequests += 1
            }
        case (.saveFailed, .saving):
            state.phase = .failed
            summary.failures += 1
        case (.saveSucceeded, _), (.saveFailed, _):
            diagnostic = .unexpectedCompletion
        case (.hapticFailed, _):
            // The save result stays as it was; the engine is prepared again before the next play.
            stopEngine()
            diagnostic = .hapticError
        case (.engineStopped, _), (.engineReset, _), (.appBackgrounded, _):
            stopEngine()
        case (.appForegrounded, _):
            break
        }
        return HapticsStep(visible: VisibleResult(state.phase), haptic: haptic, actions: actions,
                           diagnostic: diagnostic)
    }

    /// An unsupported engine stays unsupported whatever the engine events say.
    private mutating func stopEngine() {
        if state.engine != .unsupported { state.engine = .stopped }
    }
}
