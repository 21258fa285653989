import DeviceOracleJSON
import DeviceOracleRules

/// How a ruleset's state model meets its requests and answers: the request that
/// replays a walk through the model, and the transitions a device log took. A value
/// made once, with its endpoint: it explores its graphs on first use and keeps them.
protocol ModelCoding: Sendable {
    associatedtype Model: StateModel
    /// The reachable graph, explored once.
    var graph: StateGraph<Model> { get }
    /// The request body that replays `events` from one of the model's starts.
    func writeRequest(start: Int, events: [Model.Event], to writer: inout JSONWriter)
    /// For each step of a log the ruleset answered, the transition it took (a
    /// position in `graph.transitions`), or `nil` when it took none of the model's.
    func transitions(ofLog log: JSONValue, in document: JSONDocument, answer: RulesetAnswer) -> [Int?]
}

/// A finite model's graphs, explored once: from its starts (plans, diagrams,
/// coverage), and from a machine in every state, where a log's `initial` may start
/// (a repro); each with its nodes by their fields, as `before` writes them.
struct ModelGraphs<Model: FiniteStateModel> {
    let graph: StateGraph<Model>
    let nodesByFields: [[ModelField]: Int]
    let everyState: StateGraph<Model>
    let everyStateNodesByFields: [[ModelField]: Int]

    /// `machine`: the machine in a state, as the ruleset's description makes it.
    init(_ model: Model, machine: (Model.Node) -> Model.Machine) {
        graph = StateGraph(model)
        nodesByFields = graph.nodesByFields
        everyState = StateGraph(model, starts: Model.stateFields.allStates.map(machine))
        everyStateNodesByFields = everyState.nodesByFields
    }
}

extension ModelGraphs: Sendable where Model.Machine: Sendable {}

/// A finite ruleset's state model on the wire, from its description alone
/// (`D.model`): a walk replays as the description's canonical events, after the
/// members its start needs (`D.writeWalkHead`); the ruleset's steps show the state
/// `before` them and the `event` in canonical form, so a step's transition is read
/// from its answer alone.
struct FiniteModelCoding<D: FiniteRulesetDescription>: ReproCoding {
    typealias Model = D.Model
    private let explored = MadeOnFirstUse { ModelGraphs(D.model, machine: D.machine(startingAt:)) }
    /// The type of each event that carries nothing else, by its event.
    private let plainTypes: [D.Event: D.EventType]
    /// `routeChanged` with a reason AVAudioSession does not define, where the ruleset reads it.
    private let unknownRouteChange: D.Event?

    init() {
        plainTypes = Dictionary(D.EventType.allCases.compactMap { type in D.event(type).map { ($0, type) } }) { first, _ in first }
        unknownRouteChange = D.notificationEvents?.routeChanged(nil)
    }

    var graphs: ModelGraphs<Model> { explored.value }
    var graph: StateGraph<Model> { graphs.graph }

    func writeRequest(start: Int, events: [Model.Event], to writer: inout JSONWriter) {
        let state = graph.nodes[graph.startNodes[start]]
        writer.eventLog(events, head: { D.writeWalkHead(startingIn: state, to: &$0) }, writeEvent)
    }

    /// One event of a request: a type alone as its type, the others as the description
    /// writes them, and an unknown route change reason as a number no reason has (a
    /// walk has no reason as given to echo).
    func writeEvent(_ event: D.Event, to writer: inout JSONWriter) {
        if let type = plainTypes[event] {
            writer.event(type.name)
        } else if event == unknownRouteChange {
            writer.routeChangedEvent(nil)
        } else {
            D.writePayloadEvent(event, given: nil, to: &writer, document: nil)
        }
    }

    /// A step whose state the model never reaches (set through `initial`) or
    /// whose event reached no machine took no transition of the model.
    func transitions(ofLog _: JSONValue, in _: JSONDocument, answer: RulesetAnswer) -> [Int?] {
        let stepped = answer.text.stepped
        let graphs = graphs
        let graph = graphs.graph
        return (0..<stepped.stepCount).map { index in
            let step = stepped.values(ofStep: index)
            guard let node = graphs.nodesByFields[step.before.fields], let event = step.event as? Model.Event else { return nil }
            return graph.transitionIndex(from: node, eventClass: graph.model.eventClass(of: event))
        }
    }
}

extension FiniteRulesetDescription {
    static func writeWalkHead(startingIn _: State, to _: inout JSONWriter) {}
    static var stateFields: StateFieldTable<State> { Model.stateFields }
}

extension EventLogDriver where D: FiniteRulesetDescription {
    /// The endpoint of a finite ruleset, whose model routes walk `D.model`.
    static func endpoint(_ name: StaticString, path: String, summary: String) -> RulesetEndpoint {
        endpoint(name, path: path, summary: summary, model: RulesetModel(FiniteModelCoding<D>()))
    }
}

extension StateGraph {
    /// Each node's position, by its fields.
    var nodesByFields: [[ModelField]: Int] {
        Dictionary(uniqueKeysWithValues: nodes.enumerated().map { (model.fields(of: $0.element), $0.offset) })
    }
}

extension JSONWriter {
    /// A node as a state object: its fields in order.
    mutating func node(_ fields: [ModelField]) {
        beginObject()
        for field in fields {
            key(escaping: field.name)
            switch field.value {
            case .bool(let flag): bool(flag)
            case .name(let name): string(escaping: name)
            }
        }
        endObject()
    }

    /// `{"type": …}` and then the members `rest` writes.
    mutating func event(_ type: String, _ rest: (inout JSONWriter) -> Void = { _ in }) {
        beginObject()
        key("type")
        string(escaping: type)
        rest(&self)
        endObject()
    }

    /// A request's `routeChanged`: a known reason by name; for the unknown class,
    /// a number AVAudioSession does not define.
    mutating func routeChangedEvent(_ reason: RouteChangeReason?) {
        event("routeChanged") { writer in
            writer.key("reason")
            if let reason { writer.string(escaping: reason.name) } else { writer.integer(undefinedRouteChangeReason) }
        }
    }

    /// A request's `interruptionEnded`, with `shouldResume` when there is one.
    mutating func interruptionEndedEvent(_ shouldResume: Bool?) {
        event("interruptionEnded") { writer in
            if let shouldResume {
                writer.key("shouldResume")
                writer.bool(shouldResume)
            }
        }
    }

    /// `{"events": [...]}` after the members `head` writes.
    mutating func eventLog<Event>(_ events: [Event], head: (inout JSONWriter) -> Void = { _ in },
                                  _ write: (Event, inout JSONWriter) -> Void) {
        beginObject()
        head(&self)
        key("events")
        beginArray()
        for event in events { write(event, &self) }
        endArray()
        endObject()
    }
}

/// The route change reason a plan uses for the class of unknown reasons: far
/// from the values AVAudioSession defines, so a reader sees it is not one.
let undefinedRouteChangeReason = 99

extension ModelEventClass {
    /// The event of a wire type that carries nothing: the one its class stands for,
    /// spelled as the type. `nil` for a type that carries more, whose classes are
    /// spelled with their payload. Read once, when a ruleset's tables are built.
    static func event(ofPlainType type: some NamedCase) -> Event? { Self(rawValue: type.name)?.event }
}
