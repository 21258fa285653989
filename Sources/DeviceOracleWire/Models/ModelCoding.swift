import DeviceOracleJSON
import DeviceOracleRules

/// How a ruleset's state model meets its requests and answers: the request that
/// replays a walk through the model, and the transitions a device log took.
protocol ModelCoding: SendableMetatype {
    associatedtype Model: StateModel
    /// The reachable graph, explored once.
    static var graph: StateGraph<Model> { get }
    /// The request body that replays `events` from one of the model's starts.
    static func writeRequest(start: Int, events: [Model.Event], to writer: inout JSONWriter)
    /// For each step of a log the ruleset answered, the transition it took (a
    /// position in `graph.transitions`), or `nil` when it took none of the model's.
    static func transitions(ofLog log: JSONValue, in document: JSONDocument, answer: JSONDocument) -> [Int?]
}

/// A ruleset whose steps show the state `before` them and the `event` in
/// canonical form: a step's transition is read from its answer alone.
protocol CanonicalStepCoding: ReproCoding {
    /// The graph's nodes by their fields, as `before` writes them.
    static var nodesByFields: [[ModelField]: Int] { get }
    /// The event a step's canonical `event` stands for; `nil` for `null` (nothing
    /// reached the state machine).
    static func event(_ value: JSONValue, in answer: JSONDocument) -> Model.Event?
    /// The graph from a machine in every state, where a log's `initial` may start.
    static var everyStateGraph: StateGraph<Model> { get }
    /// Its nodes by their fields.
    static var everyStateNodesByFields: [[ModelField]: Int] { get }
    /// Writes one event of a request, as `writeRequest` does.
    static func writeEvent(_ event: Model.Event, to writer: inout JSONWriter)
}

extension CanonicalStepCoding {
    /// A step whose state the model never reaches (set through `initial`) or
    /// whose event reached no machine took no transition of the model.
    static func transitions(ofLog _: JSONValue, in _: JSONDocument, answer: JSONDocument) -> [Int?] {
        guard let steps = answer.member(answer.root, "steps") else { return [] }
        return answer.elements(steps).map { step in
            guard let before = answer.member(step, "before"),
                  let node = nodesByFields[answer.modelFields(of: before)],
                  let event = answer.member(step, "event").flatMap({ event($0, in: answer) }) else { return nil }
            return graph.transitionIndex(from: node, eventClass: graph.model.eventClass(of: event))
        }
    }
}

extension StateGraph {
    /// Each node's position, by its fields.
    var nodesByFields: [[ModelField]: Int] {
        Dictionary(uniqueKeysWithValues: nodes.enumerated().map { (model.fields(of: $0.element), $0.offset) })
    }
}

extension JSONDocument {
    /// A state object's members as model fields, in the order written.
    func modelFields(of state: JSONValue) -> [ModelField] {
        members(state).compactMap { member in
            guard let name = string(member.key) else { return nil }
            if let flag = bool(member.value) { return ModelField(name, .bool(flag)) }
            return string(member.value).map { ModelField(name, .name($0)) }
        }
    }

    /// The `type` of a canonical event object; `nil` for `null`.
    func eventType(_ event: JSONValue) -> String? {
        guard kind(event) == .object else { return nil }
        return member(event, "type").flatMap(string)
    }

    /// A canonical `routeChanged`'s reason: a step shows a known reason by its
    /// name, so anything else is one AVAudioSession does not define.
    func routeChangeReason(of event: JSONValue) -> RouteChangeReason? {
        member(event, "reason").flatMap(string).flatMap(RouteChangeReason.init(name:))
    }

    /// A canonical `interruptionEnded`'s `shouldResume`, when it shows one.
    func shouldResume(of event: JSONValue) -> Bool? {
        member(event, "shouldResume").flatMap(bool)
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
