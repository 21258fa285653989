/// `audio-session/1`: a game's sound effects on the device-wide shared audio
/// session, over the app's whole lifecycle. The session may not stay active in the
/// background, other apps' music shares it, and an interruption (a phone call) must
/// not leave the game silent for the rest of the session. The app keeps its own flag
/// of whether the session is active and never tries to play a sound while it is not.
public struct AudioSessionState: Equatable, Hashable, Sendable {
    /// The app is in the foreground, so the game loop runs.
    public var foreground: Bool
    /// The app's own flag: the session is active and sounds may play.
    public var active: Bool
    /// An interruption (a phone call) began and has not ended.
    public var interrupted: Bool
    /// The game's category is set on the session.
    public var categorySet: Bool
    /// The app observes the session's notifications.
    public var observing: Bool
    /// A deactivation failed and is being retried.
    public var deactivationPending: Bool

    public init(foreground: Bool = false, active: Bool = false, interrupted: Bool = false,
                categorySet: Bool = false, observing: Bool = false, deactivationPending: Bool = false) {
        self.foreground = foreground
        self.active = active
        self.interrupted = interrupted
        self.categorySet = categorySet
        self.observing = observing
        self.deactivationPending = deactivationPending
    }
}

public enum AudioSessionEvent: Hashable, Sendable {
    case launched
    case enteredBackground
    /// Deactivating threw: other audio is still using the session.
    case deactivationFailed
    case deactivationSucceeded
    case enteredForeground
    /// The system deactivated the session (a phone call, an alarm).
    case interruptionBegan
    /// `shouldResume` is only a hint, `nil` when the log gave none.
    case interruptionEnded(shouldResume: Bool?)
    /// `nil` when the log's reason is not one AVAudioSession defines.
    case routeChanged(reason: RouteChangeReason?)
    /// The media server crashed: the session and every player are gone.
    case mediaServicesLost
    /// The media server restarted: the session must be set up again.
    case mediaServicesReset
    /// The game wants to play a sound effect.
    case playSound(name: String)
    case willTerminate
}

/// The calls the app makes, in the order it makes them within a step.
public enum AudioSessionAction: String, CaseIterable, Sendable {
    case setCategory, addObservers, activate
    /// Deactivation with the option that notifies other apps, so their music can come back.
    case deactivate
    /// The failed deactivation again: the error is retried until it succeeds, never ignored.
    case retryDeactivate
    case recreatePlayers
    /// A new player instance for this sound, so sounds overlap instead of cutting each other off.
    case playNewPlayer
    case removeObservers
}

/// What an interruption's end said about resuming. Only a hint: the session is
/// activated either way, so the sound comes back after a call without a restart.
public enum ResumeHint: Equatable, Sendable {
    case shouldResume
    case shouldNotResume
    /// The end of the interruption carried no `shouldResume`.
    case notGiven

    public init(_ shouldResume: Bool?) {
        switch shouldResume {
        case true?: self = .shouldResume
        case false?: self = .shouldNotResume
        case nil: self = .notGiven
        }
    }
}

/// Things a person should look at that do not change the decision.
public enum AudioSessionDiagnostic: String, CaseIterable, Sendable {
    /// `launched` while the app already observes the session (warning).
    case launchedTwice
    /// `launched` with a category that takes audio exclusively (warning).
    case exclusiveCategory
    /// `playSound` while not in the foreground: the game loop should not run (warning).
    case playWhileBackground
    /// `playSound` while the session is not active: nothing is attempted (info).
    case soundSuppressed
    /// A route change reason AVAudioSession does not define (warning).
    case unknownRouteChangeReason
}

public struct AudioSessionDecision: Equatable, Sendable {
    public var actions: [AudioSessionAction]
    /// `true` only on a `playSound` step that plays.
    public var soundPlayed: Bool
    /// On `interruptionEnded` steps only.
    public var resumeHint: ResumeHint?
    /// In the order the rules found them: about the event, then about its outcome.
    public var diagnostics: [AudioSessionDiagnostic]

    public init(actions: [AudioSessionAction] = [], soundPlayed: Bool = false, resumeHint: ResumeHint? = nil,
                diagnostics: [AudioSessionDiagnostic] = []) {
        self.actions = actions
        self.soundPlayed = soundPlayed
        self.resumeHint = resumeHint
        self.diagnostics = diagnostics
    }
}

/// A decision as the rules make it, its lists held inline (`ShortList`): what the
/// oracle's engine runs on every event.
package struct AudioSessionStep: Equatable, Sendable {
    package var actions = ShortList<AudioSessionAction>()
    package var soundPlayed = false
    package var resumeHint: ResumeHint?
    package var diagnostics = ShortList<AudioSessionDiagnostic>()

    /// What a step no machine decided answers.
    package static let nothing = AudioSessionStep()
}

/// The canonical audio-session discipline. Feed it events in the order the state
/// owner received them; it returns the calls the app makes.
///
/// `active` becomes true only together with an `activate` call. So a row's condition
/// that does not hold ("active when foreground", "unless interrupted") leaves
/// `active` as it was; `initial` states that are inconsistent are taken as given.
public struct AudioSessionMachine: Equatable, Sendable {
    public let category: AudioSessionCategory
    public private(set) var state: AudioSessionState

    public init(state: AudioSessionState = AudioSessionState(), category: AudioSessionCategory = .ambient) {
        self.state = state
        self.category = category
    }

    public mutating func apply(_ event: AudioSessionEvent) -> AudioSessionDecision {
        let step = decide(event)
        return AudioSessionDecision(actions: step.actions.array, soundPlayed: step.soundPlayed,
                                    resumeHint: step.resumeHint, diagnostics: step.diagnostics.array)
    }

    /// `apply` without its arrays (`AudioSessionStep`): what the oracle's engine runs.
    package mutating func decide(_ event: AudioSessionEvent) -> AudioSessionStep {
        var decision = AudioSessionStep()
        switch event {
        case .launched:
            if state.observing { decision.diagnostics.append(.launchedTwice) }
            if category.isExclusive { decision.diagnostics.append(.exclusiveCategory) }
            state.foreground = true
            state.categorySet = true
            state.observing = true
            decision.actions = ShortList(.setCategory, .addObservers)
            if !state.interrupted { activate(&decision) }
        case .enteredBackground:
            // The session may not stay active in the background.
            if state.active { decision.actions = ShortList(.deactivate) }
            state.foreground = false
            state.active = false
        case .deactivationFailed:
            state.deactivationPending = true
            decision.actions = ShortList(.retryDeactivate)
        case .deactivationSucceeded:
            state.deactivationPending = false
        case .enteredForeground:
            state.foreground = true
            if !state.interrupted { activate(&decision) }
        case .interruptionBegan:
            // The system deactivated the session; the app's flag follows.
            state.interrupted = true
            state.active = false
        case .interruptionEnded(let shouldResume):
            state.interrupted = false
            // Activated whatever the hint says, or the game stays silent after a call.
            if state.foreground { activate(&decision) }
            decision.resumeHint = ResumeHint(shouldResume)
        case .routeChanged(let reason):
            // Even `oldDeviceUnavailable`: the game's sound continues on the speaker,
            // with no pause and no deactivation.
            if reason == nil { decision.diagnostics.append(.unknownRouteChangeReason) }
        case .mediaServicesLost:
            state.active = false
            state.categorySet = false
        case .mediaServicesReset:
            state.categorySet = true
            decision.actions = ShortList(.setCategory, .recreatePlayers)
            if state.foreground, !state.interrupted { activate(&decision) }
        case .playSound:
            if !state.foreground { decision.diagnostics.append(.playWhileBackground) }
            if state.active {
                decision.actions = ShortList(.playNewPlayer)
                decision.soundPlayed = true
            } else {
                decision.diagnostics.append(.soundSuppressed)
            }
        case .willTerminate:
            decision.actions = ShortList(.removeObservers)
            if state.active { decision.actions.append(.deactivate) }
            state.observing = false
            state.active = false
        }
        return decision
    }

    /// An `activate` call. A deactivation still being retried is dropped first: the
    /// app is in the foreground again and wants the session.
    private mutating func activate(_ decision: inout AudioSessionStep) {
        state.deactivationPending = false
        state.active = true
        decision.actions.append(.activate)
    }
}
