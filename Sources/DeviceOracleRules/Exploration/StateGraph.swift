/// The reachable part of a model: breadth-first from its starts over every event
/// class, driving the real machine. The machines are total (every event applies
/// in every state), so each reachable node has one transition per event class.
public struct StateGraph<Model: StateModel> {
    public struct Transition: Hashable, Sendable {
        public let from: Int
        public let eventClass: Int
        public let to: Int
        public let decision: String
        /// Whether the rules flag the step with a diagnostic: an event a device does
        /// not send in that state (an interruption that ends without beginning).
        public let diagnosed: Bool
    }

    public let model: Model
    /// Reachable nodes in breadth-first order: the starts' nodes first.
    public let nodes: [Model.Node]
    /// The node each of the model's starts begins in.
    public let startNodes: [Int]
    /// Every reachable transition, by node, then by event class.
    public let transitions: [Transition]
    private let indices: [Model.Node: Int]
    /// The first machine that reached each node: it stands for the node, as by the
    /// model's soundness any other would take the same transitions.
    private let machines: [Model.Machine]

    public init(_ model: Model) {
        self.init(model, starts: model.starts)
    }

    /// The part reachable from other machines than the model's starts: given a
    /// machine in every state, the whole graph, which a device log's `initial` may
    /// start anywhere in. `startNodes` are then those machines' nodes.
    public init(_ model: Model, starts: [Model.Machine]) {
        var nodes: [Model.Node] = [], machines: [Model.Machine] = [], indices: [Model.Node: Int] = [:]
        func visit(_ machine: Model.Machine) -> Int {
            let node = model.node(of: machine)
            if let index = indices[node] { return index }
            indices[node] = nodes.count
            nodes.append(node)
            machines.append(machine)
            return nodes.count - 1
        }
        let startNodes = starts.map(visit)
        var transitions: [Transition] = []
        var next = 0
        while next < nodes.count {
            for eventClass in model.eventClasses.indices {
                var machine = machines[next]
                let decision = model.apply(eventClass: eventClass, to: &machine).decision
                transitions.append(Transition(from: next, eventClass: eventClass, to: visit(machine),
                                              decision: model.label(of: decision), diagnosed: !decision.diagnostics.isEmpty))
            }
            next += 1
        }
        self.model = model
        self.nodes = nodes
        self.startNodes = startNodes
        self.transitions = transitions
        self.indices = indices
        self.machines = machines
    }

    /// A machine at a node, to walk on from it.
    public func machine(at node: Int) -> Model.Machine { machines[node] }

    public var eventClassCount: Int { model.eventClasses.count }

    /// The position of a node, when it is reachable.
    public func index(of node: Model.Node) -> Int? { indices[node] }

    /// The position in `transitions` of the transition a node takes on an event class.
    public func transitionIndex(from node: Int, eventClass: Int) -> Int { node * eventClassCount + eventClass }

    /// The transition a node takes on an event class.
    public func transition(from node: Int, eventClass: Int) -> Transition {
        transitions[transitionIndex(from: node, eventClass: eventClass)]
    }

    /// For every node, the last transition of a shortest route from `origin` to it
    /// (breadth-first, event classes in order); `nil` for `origin` and for the nodes
    /// it does not reach.
    func lastTransitions(from origin: Int) -> [Int?] {
        var reachedBy = [Int?](repeating: nil, count: nodes.count)
        var visited = [Bool](repeating: false, count: nodes.count)
        visited[origin] = true
        var frontier = [origin], position = 0
        while position < frontier.count {
            let node = frontier[position]
            position += 1
            for eventClass in 0..<eventClassCount {
                let index = transitionIndex(from: node, eventClass: eventClass)
                let target = transitions[index].to
                guard !visited[target] else { continue }
                visited[target] = true
                reachedBy[target] = index
                frontier.append(target)
            }
        }
        return reachedBy
    }

    /// The transitions of a shortest route from `origin` to `target`, as positions in
    /// `transitions`: empty when they are the same node, `nil` when `target` is out
    /// of reach. Of equally short routes, one with the fewest steps the rules flag with
    /// a diagnostic, the events a device would hardly send; then the first found
    /// taking event classes in order.
    public func shortestRoute(from origin: Int, to target: Int) -> [Int]? {
        // Dijkstra over (steps, flagged steps); the graphs have at most a few dozen nodes.
        var cost = [(steps: Int, flagged: Int)?](repeating: nil, count: nodes.count)
        var lastTransitions = [Int?](repeating: nil, count: nodes.count)
        var settled = [Bool](repeating: false, count: nodes.count)
        cost[origin] = (0, 0)
        func nearestUnsettled() -> (node: Int, cost: (steps: Int, flagged: Int))? {
            cost.indices.compactMap { node in settled[node] ? nil : cost[node].map { (node, $0) } }.min { $0.cost < $1.cost }
        }
        while let (node, here) = nearestUnsettled() {
            settled[node] = true
            if node == target { break }
            for eventClass in 0..<eventClassCount {
                let index = transitionIndex(from: node, eventClass: eventClass)
                let next = transitions[index].to
                let reached = (steps: here.steps + 1, flagged: here.flagged + (transitions[index].diagnosed ? 1 : 0))
                if !settled[next], cost[next].map({ reached < $0 }) ?? true {
                    cost[next] = reached
                    lastTransitions[next] = index
                }
            }
        }
        return route(from: origin, to: target, lastTransitions: lastTransitions)
    }

    func route(from origin: Int, to target: Int, lastTransitions: [Int?]) -> [Int]? {
        var route: [Int] = []
        var node = target
        while node != origin {
            guard let index = lastTransitions[node] else { return nil }
            route.append(index)
            node = transitions[index].from
        }
        return route.reversed()
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

extension StateGraph: Sendable where Model.Node: Sendable, Model.Machine: Sendable {}
