/// `playback/1`: a media player's decision after audio interruptions, route
/// changes and user actions. Conservative: an interruption pauses and remembers
/// whether the player was playing; it resumes only when the end of the
/// interruption allows it and that intent is still there; a user pause clears the
/// intent; losing the previous output device pauses at once, because the new
/// route's name cannot tell whether the user wants the speaker.
public struct PlaybackState: Equatable, Hashable, Sendable {
    /// The playback state the app wants; the player call follows from its change.
    public var isPlaying: Bool
    /// Whether the end of the current interruption may resume playback.
    public var resumeAfterInterruption: Bool

    public init(isPlaying: Bool = false, resumeAfterInterruption: Bool = false) {
        self.isPlaying = isPlaying
        self.resumeAfterInterruption = resumeAfterInterruption
    }
}

public enum PlaybackEvent: Hashable, Sendable {
    case interruptionBegan
    /// `shouldResume` is bit 0 of the interruption options; a missing option is `false`.
    case interruptionEnded(shouldResume: Bool)
    case userPaused
    /// The output the player was using disappeared.
    case outputDisconnected
    case userPlayed
    /// `nil` when the log's reason is not one AVAudioSession defines.
    case routeChanged(reason: RouteChangeReason?)
}

/// The player call the app makes, derived from the old and new `isPlaying`.
public enum PlayerAction: String, Sendable {
    case play, pause, none
}

/// Things a person should look at that do not change the decision.
public enum PlaybackDiagnostic: String, CaseIterable, Sendable {
    /// `interruptionEnded` with no `interruptionBegan` since the last end (info).
    case endWithoutBegin
    /// A known route change reason other than `oldDeviceUnavailable` (info).
    case routeChangeIgnored
    /// A route change reason AVAudioSession does not define (warning).
    case unknownRouteChangeReason
}

public struct PlaybackDecision: Equatable, Sendable {
    public var action: PlayerAction
    /// At most one for playback; a list, as on every ruleset's decision.
    public var diagnostics: [PlaybackDiagnostic]

    public init(action: PlayerAction, diagnostics: [PlaybackDiagnostic] = []) {
        self.action = action
        self.diagnostics = diagnostics
    }
}

/// A decision as the rules make it, its one diagnostic held inline: the oracle's
/// engine copies a decision several times per event, and the list's reference would
/// add a retain and a release to each copy (bench/RESULTS.md, issue 18).
package struct PlaybackStep: Equatable, Sendable {
    package var action: PlayerAction
    package var diagnostic: PlaybackDiagnostic?

    /// What a step no machine decided answers.
    package static let nothing = PlaybackStep(action: .none, diagnostic: nil)
}

/// The canonical playback state machine. Feed it events in the order the state
/// owner received them; it returns what the app must do.
public struct PlaybackMachine: Equatable, Sendable {
    public private(set) var state: PlaybackState
    /// Whether an `interruptionBegan` is waiting for its end (for `endWithoutBegin` only).
    private var interruptionOpen = false

    public init(state: PlaybackState = PlaybackState()) {
        self.state = state
    }

    public mutating func apply(_ event: PlaybackEvent) -> PlaybackDecision {
        let step = decide(event)
        return PlaybackDecision(action: step.action, diagnostics: step.diagnostic.map { [$0] } ?? [])
    }

    /// `apply` without the list (`PlaybackStep`): what the oracle's engine runs.
    package mutating func decide(_ event: PlaybackEvent) -> PlaybackStep {
        let before = state
        var diagnostic: PlaybackDiagnostic?
        switch event {
        case .interruptionBegan:
            state = PlaybackState(isPlaying: false, resumeAfterInterruption: before.isPlaying)
            interruptionOpen = true
        case .interruptionEnded(let shouldResume):
            // The reference rule assigns `isPlaying`, so a spurious end also pauses.
            state = PlaybackState(isPlaying: before.resumeAfterInterruption && shouldResume,
                                  resumeAfterInterruption: false)
            if !interruptionOpen { diagnostic = .endWithoutBegin }
            interruptionOpen = false
        case .userPaused, .outputDisconnected:
            state = PlaybackState(isPlaying: false, resumeAfterInterruption: false)
        case .userPlayed:
            state = PlaybackState(isPlaying: true, resumeAfterInterruption: false)
        case .routeChanged(.oldDeviceUnavailable?):
            state = PlaybackState(isPlaying: false, resumeAfterInterruption: false)
        case .routeChanged(_?):
            diagnostic = .routeChangeIgnored
        case .routeChanged(nil):
            diagnostic = .unknownRouteChangeReason
        }
        return PlaybackStep(action: Self.action(from: before, to: state), diagnostic: diagnostic)
    }

    static func action(from before: PlaybackState, to after: PlaybackState) -> PlayerAction {
        switch (before.isPlaying, after.isPlaying) {
        case (false, true): .play
        case (true, false): .pause
        default: .none
        }
    }
}
