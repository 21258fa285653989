import DeviceOracleJSON
import DeviceOracleRules

/// What the engine needs of every ruleset: its own members (names from an enum, so
/// the closed set is derived from `allCases`), what `observed` and `observedFinal`
/// may name (tables of `ObservedField`), its static check, and how its steps are
/// made (`Steps`).
/// Everything else is the engine's (`EventLogDriver`): walking the request's
/// members and `observedFinal`, the sequence in both forms, the answer's envelope. A
/// ruleset whose state is finite is a `FiniteRulesetDescription`, whose steps the
/// engine precomputes; refresh, whose store is of any size, brings its own
/// (`RefreshSteps`).
protocol RulesetDescription: Sendable {
    /// How the log's steps are made, run and written.
    associatedtype Steps: LogSteps where Steps.D == Self
    /// The request's own members besides `initial`, its sequence and `observedFinal`.
    associatedtype Setting: NamedCase = NoNames
    /// What those members decode to.
    associatedtype Settings: Sendable = NoSettings

    /// What a step's `observed` may name, in documented order: its `stepFields`' names.
    static var observables: [String] { get }
    /// What `observedFinal` may name, in documented order: its `finalFields`' names.
    static var finalFieldNames: [String] { get }
    /// The member that holds the JSON form's log: `events` (refresh: `runs`).
    static var sequence: String { get }
    /// Whether a request must carry its sequence (haptics may send a `pattern` alone).
    static var eventsRequired: Bool { get }
    /// Reads the request's own members, reporting their problems.
    static func settings(_ given: GivenMembers<Setting>, in request: JSONValue, eventsGiven: Bool,
                         _ decoder: inout RequestDecoder) -> Settings
    /// A static check run once the log is valid (haptics' pattern); its verdict, or `nil`.
    static func check(_ settings: inout Settings, _ decoder: RequestDecoder) -> Bool?
    /// What failed of the static check, a line each, as a JUnit report names it.
    static func staticCheckFailures(_ settings: Settings, document: JSONDocument) -> [String]
    /// Answer members before `final`.
    static func writeHead(_ settings: Settings, to writer: inout JSONWriter, document: JSONDocument)
}

extension RulesetDescription {
    static var sequence: String { "events" }
    static var eventsRequired: Bool { true }
    static func check(_ settings: inout Settings, _ decoder: RequestDecoder) -> Bool? { nil }
    static func staticCheckFailures(_ settings: Settings, document: JSONDocument) -> [String] { [] }
    static func writeHead(_ settings: Settings, to writer: inout JSONWriter, document: JSONDocument) {}
}

extension RulesetDescription where Settings == NoSettings, Setting == NoNames {
    static func settings(_ given: GivenMembers<Setting>, in request: JSONValue, eventsGiven: Bool,
                         _ decoder: inout RequestDecoder) -> Settings { NoSettings() }
}

/// A ruleset whose state is finite: its machine, its state's fields (one table), how
/// to read one event and how to write one step's decision. The engine
/// (`PrecomputedSteps`, `RulesetTables`) does the rest: `initial`, sessions, raw
/// notifications, observed comparison, diagnostics, late starts, and the
/// precomputed step tails; its `Steps` are `PrecomputedSteps<Self>`.
protocol FiniteRulesetDescription: RulesetDescription {
    associatedtype Steps = PrecomputedSteps<Self>
    associatedtype Machine: StateMachine & Sendable
        where Machine.State: Hashable & Sendable, Machine.Event: Hashable & Sendable, Machine.Decision: Sendable
    typealias State = Machine.State
    typealias Event = Machine.Event
    /// A step's decision as the engine carries it: the machine's, or a leaner form of
    /// it that holds no reference (playback's `PlaybackStep`).
    associatedtype Decision: Sendable = Machine.Decision

    /// The canonical event types (`"type": "userPaused"`).
    associatedtype EventType: NamedCase
    /// The members an event type carries besides `type` (`shouldResume`, `reason`).
    associatedtype EventField: NamedCase = NoNames
    /// The rules' diagnostics, each spelled as its `DiagnosticCode`.
    associatedtype RuleDiagnostic: CaseIterable & Hashable & Sendable & RawRepresentable<String>
    /// The rules' state model (`PlaybackModel`), which the ruleset's plans, diagrams,
    /// coverage and repros walk (`FiniteModelCoding`).
    associatedtype Model: FiniteStateModel where Model.Machine == Machine

    /// Whether an event may name a `session` (playback.md, "Several playback sessions").
    static var hasSessions: Bool { get }
    /// What raw AVAudioSession notifications become; `nil`: events come as `type` only.
    static var notificationEvents: NotificationEvents<Event>? { get }
    static var model: Model { get }
    /// Members of a request that replays a walk from the model's start in `state`,
    /// before its events (haptics' `supportsHaptics`); none by default.
    static func writeWalkHead(startingIn state: State, to writer: inout JSONWriter)

    /// A field `observed` may name: a state field, or one of the step's decision's.
    typealias StepField = ObservedField<Self, Decision>
    /// A field `observedFinal` may name besides the state's: one of the final machine.
    typealias MachineField = ObservedField<Self, Machine>

    /// The state's fields, declared once (by default the model's table): what `initial`,
    /// `observed` and `observedFinal` may name, what `before`, `after` and `final`
    /// show, and every state the tables are computed for.
    static var stateFields: StateFieldTable<State> { get }
    /// The state fields a request's settings decide, which `initial` cannot name
    /// (haptics' `engine` follows from `supportsHaptics`).
    static var fieldsFromSettings: [PartialKeyPath<State>] { get }
    /// What a step's `observed` may name, in documented order: state fields
    /// (`.state(\.phase)`, or `StepField.stateFields`) and the decision's.
    static var stepFields: [StepField] { get }
    /// What `observedFinal` may name after the state's fields (haptics' `hapticRequests`).
    static var machineFields: [MachineField] { get }
    /// The machine a session starts with.
    static func machine(initial: State, settings: Settings) -> Machine
    /// A machine in any state, to precompute what each event does from it.
    static func machine(startingAt state: State) -> Machine
    /// The machine of a start candidate of `"initial": "unknown"` (late-start.md): as
    /// a request with `state` as its `initial` would start, unless `initial` cannot
    /// name all of `state` (haptics' engine).
    static func machine(candidate state: State, settings: Settings) -> Machine
    /// Whether two candidates' machines in the same state are the same from then on:
    /// false when the machine keeps more than its state that an answer shows
    /// (haptics' counts, which `observedFinal` compares and the summary writes), so
    /// each candidate's own machine is run too.
    static var pathsJoin: Bool { get }
    /// Runs the rules on one event.
    static func decide(_ event: Event, on machine: inout Machine) -> Decision

    /// The event of a type that carries nothing else; `nil` for one that does.
    static func event(_ type: EventType) -> Event?
    /// The event of a type that carries more (`fields`), reporting its problems.
    static func event(_ type: EventType, _ fields: EventFields<EventField>, in object: JSONValue,
                      _ decoder: inout RequestDecoder) -> DecodedEvent<Event>?
    /// The events with members whose canonical form is fixed all the same
    /// (`interruptionEnded` with either flag): their steps are precomputed too.
    static var fixedPayloadEvents: [Event] { get }
    /// The event types whose one member the answer echoes as given and the rules
    /// never read (`playSound`'s `name`): their steps are precomputed around it.
    static var echoedMembers: [EchoedMember<Self>] { get }
    /// Writes an event that carries more than its type; `given` is the route change
    /// reason as the log gave it, echoed when unknown (`document` is then not `nil`).
    static func writePayloadEvent(_ event: Event, given: GivenRouteChangeReason?, to writer: inout JSONWriter,
                                  document: JSONDocument?)

    /// A step's members after `after`.
    static func writeDecision(_ decision: Decision, to writer: inout JSONWriter)
    /// The decision of a step whose notification reached no machine.
    static var noDecision: Decision { get }
    static func forEachDiagnostic(of decision: Decision, _ body: (RuleDiagnostic) -> Void)

    /// Checks of a step's `observed` beyond field by field (haptics' timing); its
    /// entries name positions in `stepFields`.
    static func compareMore(_ observed: ObservedFields<Int>, decision: Decision, index: Int,
                            settings: Settings, document: JSONDocument, mismatches: inout MismatchList)
    /// Answer members after `steps`.
    static func writeSummary(of machine: Machine, to writer: inout JSONWriter)
}

extension FiniteRulesetDescription {
    static var hasSessions: Bool { false }
    static var notificationEvents: NotificationEvents<Event>? { nil }
    static var fixedPayloadEvents: [Event] { [] }
    static var fieldsFromSettings: [PartialKeyPath<State>] { [] }
    static var machineFields: [MachineField] { [] }
    /// The state's fields, then the machine's.
    static var finalFields: [MachineField] { MachineField.stateFields + machineFields }
    static var observables: [String] { stepFields.map(\.name) }
    static var finalFieldNames: [String] { finalFields.map(\.name) }
    static func machine(candidate state: State, settings: Settings) -> Machine { machine(initial: state, settings: settings) }
    static var pathsJoin: Bool { true }
    static var echoedMembers: [EchoedMember<Self>] { [] }
    static func event(_ type: EventType, _ fields: EventFields<EventField>, in object: JSONValue,
                      _ decoder: inout RequestDecoder) -> DecodedEvent<Event>? {
        preconditionFailure("\(type.name) carries no members")
    }
    static func writePayloadEvent(_ event: Event, given: GivenRouteChangeReason?, to writer: inout JSONWriter,
                                  document: JSONDocument?) {
        preconditionFailure("every event is a type alone")
    }
    static func compareMore(_ observed: ObservedFields<Int>, decision: Decision, index: Int,
                            settings: Settings, document: JSONDocument, mismatches: inout MismatchList) {}
    static func writeSummary(of machine: Machine, to writer: inout JSONWriter) {}
}

extension FiniteRulesetDescription where Decision == Machine.Decision {
    static func decide(_ event: Event, on machine: inout Machine) -> Decision { machine.apply(event) }
}


/// A field a request's `observed` or `observedFinal` may name, and where its
/// canonical value comes from: the state (after the step, at the end), or `Source`
/// (the step's decision, the final machine; refresh's run and store).
struct ObservedField<D: RulesetDescription, Source>: Sendable {
    enum Canonical: Sendable {
        /// The state field at this position of `D.stateFields`.
        case state(Int)
        /// Read from the source; `nil` for a field checked otherwise (`compareMore`).
        case read(@Sendable (Source) -> FieldValue?)
    }

    let name: String
    let canonical: Canonical

    /// A field read from `Source`.
    static func read(_ name: String, _ value: @escaping @Sendable (Source) -> FieldValue?) -> Self {
        Self(name: name, canonical: .read(value))
    }

    fileprivate init(name: String, canonical: Canonical) {
        self.name = name
        self.canonical = canonical
    }

    /// The canonical value of a field read from `Source`; `nil` for one compared
    /// otherwise, and for a state field (the tables read those by slot).
    func value(of source: Source) -> FieldValue? {
        guard case .read(let read) = canonical else { return nil }
        return read(source)
    }
}

extension ObservedField where D: FiniteRulesetDescription {
    /// The state field that lives at `keyPath`.
    static func state(_ keyPath: PartialKeyPath<D.State>) -> Self {
        guard let position = D.stateFields.position(of: keyPath) else {
            preconditionFailure("\(keyPath) is not one of \(D.self)'s state fields")
        }
        return Self(statePosition: position)
    }

    /// Every state field, in the order answers write them.
    static var stateFields: [Self] { D.stateFields.fields.indices.map(Self.init(statePosition:)) }

    private init(statePosition position: Int) {
        self.init(name: D.stateFields.fields[position].name, canonical: .state(position))
    }
}

extension ClosedNames<Int> {
    /// The names of `fields`, each to its position.
    convenience init<D, Source>(observed fields: [ObservedField<D, Source>], _ kind: String) {
        self.init(kind, fields.enumerated().map { ($0.element.name, $0.offset) })
    }
}

extension ObservedFields<Int> {
    /// What was observed of `field`, one of `fields`, whose positions the entries hold.
    func value<D, Source>(of field: ObservedField<D, Source>, among fields: [ObservedField<D, Source>]) -> JSONValue? {
        entries.first { fields[$0.field].name == field.name }?.value
    }
}

/// A closed set of names from an enum: the names a request may use.
protocol NamedCase: CaseIterable, Hashable, Sendable {
    var name: String { get }
}

extension NamedCase where Self: RawRepresentable, RawValue == String {
    var name: String { rawValue }
}

/// No names at all: a ruleset without members of its own.
enum NoNames: NamedCase {
    var name: String { switch self {} }
}

struct NoSettings: Sendable {}

/// An event type whose one member (`member`, a required string) is echoed as given and
/// never read by the rules. The engine reads the member itself (`event(_:_:in:_:)` is
/// not asked for this type), runs the machine on `event` with a text of its own, checks
/// once per process that the text changes nothing (`RulesetTables`), and writes each
/// step as a precomputed tail around the member's value.
struct EchoedMember<D: FiniteRulesetDescription>: Sendable {
    let type: D.EventType
    let member: D.EventField
    /// The event whose member is `text`.
    let event: @Sendable (_ text: String) -> D.Event
}

/// An event as it reaches the machine, with the route change reason as the log gave it.
struct DecodedEvent<Event> {
    var event: Event
    var given: GivenRouteChangeReason?
    /// Its slot among the fixed events, once the engine has looked (`nil`: not fixed).
    var slot: Int?
    /// The value of its echoed member (`EchoedMember`), which its step's tail goes around.
    var echo: JSONValue?

    init(_ event: Event, given: GivenRouteChangeReason? = nil) {
        self.event = event
        self.given = given
    }
}

/// The request's own top-level members, as given (last one wins; a repeat is a `422` anyway).
struct GivenMembers<Name: NamedCase> {
    fileprivate(set) var entries: [(name: Name, value: JSONValue)] = []

    subscript(name: Name) -> JSONValue? {
        entries.last { $0.name == name }?.value
    }

    mutating func append(_ name: Name, _ value: JSONValue) { entries.append((name, value)) }
}

/// The members an event carried besides `type`: at most three, kept inline so
/// reading an event allocates nothing.
struct EventFields<Field: NamedCase> {
    private var first: (Field, JSONValue)?
    private var second: (Field, JSONValue)?
    private var third: (Field, JSONValue)?

    subscript(field: Field) -> JSONValue? {
        get {
            if let first, first.0 == field { return first.1 }
            if let second, second.0 == field { return second.1 }
            if let third, third.0 == field { return third.1 }
            return nil
        }
        set {
            guard let newValue else { return }
            if first == nil || first!.0 == field { first = (field, newValue) }
            else if second == nil || second!.0 == field { second = (field, newValue) }
            else if third == nil || third!.0 == field { third = (field, newValue) }
            else { preconditionFailure("an event type carries at most three members") }
        }
    }
}

/// What each translated AVAudioSession notification becomes in one ruleset: one
/// translation (`AudioSessionNotification`) for every ruleset that reads them.
struct NotificationEvents<Event: Sendable>: Sendable {
    let interruptionBegan: Event
    let interruptionEnded: @Sendable (_ shouldResume: Bool) -> Event
    let routeChanged: @Sendable (RouteChangeReason?) -> Event
    /// `nil`: the ruleset does not model the media server, whose notifications are then unknown.
    let mediaServices: (lost: Event, reset: Event)?

    func event(_ notification: AudioSessionNotification) -> DecodedEvent<Event>? {
        switch notification {
        case .interruptionBegan: DecodedEvent(interruptionBegan)
        case .interruptionEnded(let shouldResume): DecodedEvent(interruptionEnded(shouldResume))
        case .routeChanged(let given): DecodedEvent(routeChanged(given.reason), given: given)
        case .mediaServicesLost: mediaServices.map { DecodedEvent($0.lost) }
        case .mediaServicesReset: mediaServices.map { DecodedEvent($0.reset) }
        case .untranslated: nil
        }
    }
}
