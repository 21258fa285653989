/// A ruleset's state machine seen as a finite graph, for model-based testing: a
/// few representative events (one per *event class*), the observable state that
/// is a node of the graph, and the decision that labels an edge. Generic tools
/// explore it (`StateGraph`), cover it (`TransitionCover`) and walk it
/// (`RandomWalk`) by driving the real machine, so whatever they report is what
/// the rules do.
///
/// The abstraction must be sound: machines with equal nodes take an event class
/// to equal nodes with equal decisions. `StateGraph` relies on it; the tests
/// check it along random walks.
public protocol StateModel: Sendable {
    /// The real machine, with whatever a walk needs to build its next event
    /// (refresh: the clock and the server's next page).
    associatedtype Machine
    /// The observable state: a node of the graph.
    associatedtype Node: Hashable & Sendable
    /// A concrete event, as the machine applies it.
    associatedtype Event
    /// What the machine decides, as it returns it.
    associatedtype Decision: DiagnosedDecision

    /// The machines a request starts from when it sets no `initial`: one per
    /// configuration that changes the rules (haptics: hardware with and without
    /// haptics).
    var starts: [Machine] { get }
    /// One name per event class, in the order the ruleset documents its events.
    var eventClasses: [String] { get }
    func node(of machine: Machine) -> Node
    /// Applies a representative event of the class. Returns the event, for a
    /// request that replays the walk, and the machine's decision.
    func apply(eventClass: Int, to machine: inout Machine) -> (event: Event, decision: Decision)
    /// What labels a decision's edge in plans and diagrams (`pause`, `startSave, startEngine`).
    func label(of decision: Decision) -> String
    /// The class an event of a device log belongs to.
    func eventClass(of event: Event) -> Int
    /// The node's observable fields, in the order answers write the state.
    func fields(of node: Node) -> [ModelField]
}

/// One observable field of a node: a flag or a name (`phase: saving`).
public struct ModelField: Hashable, Sendable {
    public enum Value: Hashable, Sendable {
        case bool(Bool)
        case name(String)
    }

    public let name: String
    public let value: Value

    public init(_ name: String, _ value: Value) {
        self.name = name
        self.value = value
    }
}

/// A walk through a model: a start and the event classes taken from it.
public struct ModelPath: Equatable, Sendable {
    /// The index into the model's `starts`.
    public let start: Int
    public var eventClasses: [Int]

    public init(start: Int, eventClasses: [Int] = []) {
        self.start = start
        self.eventClasses = eventClasses
    }
}

/// The decision label of rulesets whose decision is a list of calls.
func actionsLabel<Action: RawRepresentable<String>>(_ actions: [Action]) -> String {
    actions.isEmpty ? "none" : actions.map(\.rawValue).joined(separator: ", ")
}

/// A model's event classes as the cases of an enum, each spelled as its raw value
/// (`interruptionEnded(shouldResume=true)`): a class's number is its position in
/// `allCases`, so a new class renumbers nothing by hand.
public protocol ModelEventClass: CaseIterable, Hashable, Sendable, RawRepresentable<String> where AllCases == [Self] {
    associatedtype Event
    /// The class an event of a device log belongs to.
    init(_ event: Event)
    /// The event that stands for the class in walks and plans.
    var event: Event { get }
}

/// Event classes whose standing events come from the model's event alphabet: each
/// class stands for its first event there, so `init(_:)`, which says which events a
/// class holds, is the one place a class is matched to its events.
public protocol AlphabetEventClass: ModelEventClass where Event: Sendable {
    /// The model's events, at least one of each class (the model's tests check it).
    static var alphabet: EventAlphabet<Event> { get }
}

extension AlphabetEventClass {
    public var event: Event { Self.alphabet.first { Self($0) == self } }
}

/// Events in any order, at least one: a model's events up to what no class tells
/// apart (a known reason, a sound's name).
public struct EventAlphabet<Event: Sendable>: Sendable {
    private let head: Event
    private let tail: [Event]

    public init(_ first: Event, _ rest: Event...) {
        head = first
        tail = rest
    }

    /// The first event `isWanted` accepts; the first of all when none does (a class
    /// the alphabet lacks, which the models' tests rule out).
    func first(where isWanted: (Event) -> Bool) -> Event {
        isWanted(head) ? head : tail.first(where: isWanted) ?? head
    }
}

/// Events that are their own classes (haptics').
extension ModelEventClass where Event == Self {
    public init(_ event: Self) { self = event }
    public var event: Self { self }
}

extension CaseIterable where Self: Equatable {
    /// The case's position in `allCases`.
    public var caseIndex: Int {
        var index = 0
        for other in Self.allCases {
            if other == self { break }
            index += 1
        }
        return index
    }
}

/// A model whose node is its machine's whole state, declared field by field, and
/// whose event classes are an enum's cases: only its starts and its edge labels
/// are its own.
public protocol FiniteStateModel: StateModel
    where Machine: StateMachine, Node == Machine.State, Event == Machine.Event, Decision == Machine.Decision {
    associatedtype EventClass: ModelEventClass where EventClass.Event == Event
    /// The state's fields: the rules' one declaration of them, which the wire layer reads too.
    static var stateFields: StateFieldTable<Node> { get }
}

extension FiniteStateModel {
    public var eventClasses: [String] { EventClass.allCases.map(\.rawValue) }

    public func node(of machine: Machine) -> Node { machine.state }

    public func apply(eventClass: Int, to machine: inout Machine) -> (event: Event, decision: Decision) {
        let event = EventClass.allCases[eventClass].event
        return (event, machine.apply(event))
    }

    public func eventClass(of event: Event) -> Int { EventClass(event).caseIndex }

    public func fields(of node: Node) -> [ModelField] { Self.stateFields.modelFields(of: node) }
}
