/// The reachable part of a model: breadth-first from its starts over every event
/// class, driving the real machine. The machines are total (every event applies
/// in every state), so each reachable node has one transition per event class.
public struct StateGraph<Model: StateModel> {
    public struct Transition: Hashable, Sendable {
        public let from: Int
        public let eventClass: Int
        public let to: Int
        public let decision: String
    }

    public let model: Model
    /// Reachable nodes in breadth-first order: the starts' nodes first.
    public let nodes: [Model.Node]
    /// The node each of the model's starts begins in.
    public let startNodes: [Int]
    /// Every reachable transition, by node, then by event class.
    public let transitions: [Transition]
    private let indices: [Model.Node: Int]

    public init(_ model: Model) {
        var nodes: [Model.Node] = [], machines: [Model.Machine] = [], indices: [Model.Node: Int] = [:]
        func visit(_ machine: Model.Machine) -> Int {
            let node = model.node(of: machine)
            if let index = indices[node] { return index }
            indices[node] = nodes.count
            nodes.append(node)
            // The first machine that reached a node stands for it: by the model's
            // soundness any other would take the same transitions.
            machines.append(machine)
            return nodes.count - 1
        }
        let startNodes = model.starts.map(visit)
        var transitions: [Transition] = []
        var next = 0
        while next < nodes.count {
            for eventClass in model.eventClasses.indices {
                var machine = machines[next]
                let decision = model.label(of: model.apply(eventClass: eventClass, to: &machine).decision)
                transitions.append(Transition(from: next, eventClass: eventClass, to: visit(machine), decision: decision))
            }
            next += 1
        }
        self.model = model
        self.nodes = nodes
        self.startNodes = startNodes
        self.transitions = transitions
        self.indices = indices
    }

    public var eventClassCount: Int { model.eventClasses.count }

    /// The position of a node, when it is reachable.
    public func index(of node: Model.Node) -> Int? { indices[node] }

    /// The position in `transitions` of the transition a node takes on an event class.
    public func transitionIndex(from node: Int, eventClass: Int) -> Int { node * eventClassCount + eventClass }

    /// The transition a node takes on an event class.
    public func transition(from node: Int, eventClass: Int) -> Transition {
        transitions[transitionIndex(from: node, eventClass: eventClass)]
    }

    /// The transitions a path takes, in order, as positions in `transitions`.
    public func transitionIndices(along path: ModelPath) -> [Int] {
        var node = startNodes[path.start]
        return path.eventClasses.map { eventClass in
            let index = transitionIndex(from: node, eventClass: eventClass)
            node = transitions[index].to
            return index
        }
    }
}

extension StateGraph: Sendable where Model.Node: Sendable {}
