import DeviceOracleJSON
import DeviceOracleRules
@testable import DeviceOracleWire

// `playback/2`, served only in the tests: playback/1's rules and one more event, to
// prove that versions are served side by side (common.md, "Versions"). It is its
// rules (a machine and its model, on playback/1's types) and one description, all in
// this file; `PlaybackVersionsTests` registers it with one line.

/// playback/1's machine, and `userToggled`: a play/pause button, which plays when
/// paused and pauses when playing.
struct Playback2Machine: StateMachine, Sendable {
    enum Event: Hashable, Sendable {
        case playback(PlaybackEvent)
        case userToggled
    }

    private var machine: PlaybackMachine

    init(state: PlaybackState) { machine = PlaybackMachine(state: state) }

    var state: PlaybackState { machine.state }

    mutating func apply(_ event: Event) -> PlaybackDecision { machine.apply(playbackEvent(event)) }

    mutating func decide(_ event: Event) -> PlaybackStep { machine.decide(playbackEvent(event)) }

    private func playbackEvent(_ event: Event) -> PlaybackEvent {
        switch event {
        case .playback(let event): event
        case .userToggled: state.isPlaying ? .userPaused : .userPlayed
        }
    }
}

/// playback/1's model and `userToggled`, a class of its own.
struct Playback2Model: FiniteStateModel {
    static var stateFields: StateFieldTable<PlaybackState> { PlaybackModel.stateFields }

    enum EventClass: ModelEventClass {
        case playback(PlaybackModel.EventClass)
        case userToggled

        static let allCases = PlaybackModel.EventClass.allCases.map(Self.playback) + [.userToggled]

        init?(rawValue: String) {
            guard let named = Self.allCases.first(where: { $0.rawValue == rawValue }) else { return nil }
            self = named
        }

        init(_ event: Playback2Machine.Event) {
            switch event {
            case .playback(let event): self = .playback(PlaybackModel.EventClass(event))
            case .userToggled: self = .userToggled
            }
        }

        var rawValue: String {
            switch self {
            case .playback(let eventClass): eventClass.rawValue
            case .userToggled: "userToggled"
            }
        }

        var event: Playback2Machine.Event {
            switch self {
            case .playback(let eventClass): .playback(eventClass.event)
            case .userToggled: .userToggled
            }
        }
    }

    var starts: [Playback2Machine] { [Playback2Machine(state: PlaybackState())] }

    func label(of decision: PlaybackDecision) -> String { decision.action.rawValue }
}

/// playback/1's description with `userToggled` among the event types.
enum Playback2Ruleset: FiniteRulesetDescription {
    static let endpoint = EventLogDriver<Self>.endpoint(
        "playback/2", path: "/playback/apply", summary: "playback/1 and a play/pause button (userToggled).")
    static let model = Playback2Model()

    static var hasSessions: Bool { true }
    static let notificationEvents: NotificationEvents<Playback2Machine.Event>? = NotificationEvents(
        interruptionBegan: .playback(.interruptionBegan), interruptionEnded: { .playback(.interruptionEnded(shouldResume: $0)) },
        routeChanged: { .playback(.routeChanged(reason: $0)) }, mediaServices: nil)

    static let stepFields = StepField.stateFields + [.read("action") { .string($0.action.rawValue) }]
    typealias EventField = PlaybackRuleset.EventField
    typealias RuleDiagnostic = PlaybackDiagnostic
    typealias Decision = PlaybackStep

    enum EventType: String, NamedCase {
        case interruptionBegan, interruptionEnded, userPaused, outputDisconnected, userPlayed, routeChanged, userToggled
    }

    static func machine(initial: PlaybackState, settings: NoSettings) -> Playback2Machine { Playback2Machine(state: initial) }
    static func machine(startingAt state: PlaybackState) -> Playback2Machine { Playback2Machine(state: state) }

    static func event(_ type: EventType) -> Playback2Machine.Event? {
        switch type {
        case .userToggled: .userToggled
        default: PlaybackRuleset.EventType(rawValue: type.rawValue).flatMap(PlaybackRuleset.event).map { .playback($0) }
        }
    }

    static func event(_ type: EventType, _ fields: EventFields<EventField>, in object: JSONValue,
                      _ decoder: inout RequestDecoder) -> DecodedEvent<Playback2Machine.Event>? {
        guard let type = PlaybackRuleset.EventType(rawValue: type.rawValue),
              let decoded = PlaybackRuleset.event(type, fields, in: object, &decoder) else { return nil }
        return DecodedEvent(.playback(decoded.event), given: decoded.given)
    }

    static let fixedPayloadEvents = PlaybackRuleset.fixedPayloadEvents.map { Playback2Machine.Event.playback($0) }

    static func writePayloadEvent(_ event: Playback2Machine.Event, given: GivenRouteChangeReason?, to writer: inout JSONWriter,
                                  document: JSONDocument?) {
        guard case .playback(let event) = event else { return }
        PlaybackRuleset.writePayloadEvent(event, given: given, to: &writer, document: document)
    }

    static func decide(_ event: Playback2Machine.Event, on machine: inout Playback2Machine) -> PlaybackStep {
        machine.decide(event)
    }

    static func writeDecision(_ decision: PlaybackStep, to writer: inout JSONWriter) {
        PlaybackRuleset.writeDecision(decision, to: &writer)
    }

    static var noDecision: PlaybackStep { .nothing }

    static func forEachDiagnostic(of decision: PlaybackStep, _ body: (PlaybackDiagnostic) -> Void) {
        PlaybackRuleset.forEachDiagnostic(of: decision, body)
    }
}
