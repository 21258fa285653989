/// Paths that take every reachable transition of a graph at least once, with as
/// few steps as possible: the directed Chinese postman problem, where starting a
/// new path (a new request, from a start) costs nothing.
///
/// A set of paths from the starts exists exactly when, counting each transition
/// as often as the paths take it, no node other than a start is left more often
/// than it is entered. So the tour takes every transition once, plus the
/// cheapest extra walks (shortest routes, chosen by a min-cost flow) from starts
/// and from nodes entered more often than left, to nodes left more often than
/// entered; Hierholzer's algorithm then walks that multigraph, restarting at a
/// start where a path ends. Every transition needs a step of its own, so the
/// number of transitions is a lower bound on any plan; the flow's cost is
/// exactly what the optimum needs beyond it.
///
/// A path longer than `maxLength` is cut, and the rest continues in a new path
/// that first takes the shortest route from a start to where the cut was; a path
/// takes at least one step, so a `maxLength` below 1 counts as 1.
public enum TransitionCover {
    public static func paths<Model>(covering graph: StateGraph<Model>, maxLength: Int) -> [ModelPath] {
        let maxLength = max(1, maxLength)
        let routes = ShortestRoutes(graph)
        let tour = PostmanTour(graph, routes: routes).paths
        guard tour.contains(where: { $0.eventClasses.count > maxLength }) else { return tour }
        // Cut pieces may repeat only what earlier ones took (the tour's walks back
        // to nodes left more often than entered): those are left out.
        var taken = Set<Int>()
        return tour.flatMap { cut($0, to: maxLength, graph: graph, routes: routes) }.filter { piece in
            let transitions = graph.transitionIndices(along: piece)
            defer { taken.formUnion(transitions) }
            return !taken.isSuperset(of: transitions)
        }
    }

    /// Pieces of `path` of at most `maxLength` steps; each after the first leads
    /// from its nearest start to where the previous one stopped. A transition
    /// from a node no start reaches within `maxLength - 1` steps cannot be in any
    /// plan of that length and is left out.
    private static func cut<Model>(_ path: ModelPath, to maxLength: Int, graph: StateGraph<Model>,
                                   routes: ShortestRoutes) -> [ModelPath] {
        guard path.eventClasses.count > maxLength else { return [path] }
        let transitions = graph.transitionIndices(along: path)
        var pieces: [ModelPath] = []
        var next = 0
        while next < transitions.count {
            let node = graph.transitions[transitions[next]].from
            let nearest = graph.startNodes.indices.compactMap { start in
                routes.route(from: graph.startNodes[start], to: node).map { (start: start, route: $0) }
            }.min { $0.route.count < $1.route.count }
            guard let nearest, nearest.route.count < maxLength else {
                next += 1
                continue
            }
            let taken = min(maxLength - nearest.route.count, transitions.count - next)
            let steps = nearest.route + transitions[next..<next + taken]
            pieces.append(ModelPath(start: nearest.start, eventClasses: steps.map { graph.transitions[$0].eventClass }))
            next += taken
        }
        return pieces
    }
}

/// The shortest route (as transitions) between every pair of nodes.
private struct ShortestRoutes {
    /// `lastTransitions[from][to]`: the last transition of a shortest route.
    private let lastTransitions: [[Int?]]
    private let route: (Int, Int, [Int?]) -> [Int]?

    init<Model>(_ graph: StateGraph<Model>) {
        lastTransitions = graph.nodes.indices.map(graph.lastTransitions(from:))
        route = graph.route(from:to:lastTransitions:)
    }

    /// The transitions from `origin` to `target`; empty when they are the same
    /// node, `nil` when `target` is not reachable.
    func route(from origin: Int, to target: Int) -> [Int]? {
        route(origin, target, lastTransitions[origin])
    }
}

/// The optimal tour: every transition, the extra walks that balance the graph,
/// walked by Hierholzer's algorithm and split into paths from the starts.
private struct PostmanTour<Model: StateModel> {
    let paths: [ModelPath]

    init(_ graph: StateGraph<Model>, routes: ShortestRoutes) {
        // How often each transition is taken: once, plus the balancing walks.
        var takes = [Int](repeating: 1, count: graph.transitions.count)
        for walk in Self.balancingWalks(graph, routes: routes) {
            for index in walk { takes[index] += 1 }
        }
        paths = Self.walk(graph, takes: takes)
    }

    /// The cheapest walks that leave no node but a start with more exits than
    /// entries: a min-cost flow from starts (any amount) and from nodes with
    /// spare entries, to nodes short of entries, along shortest routes.
    private static func balancingWalks(_ graph: StateGraph<Model>, routes: ShortestRoutes) -> [[Int]] {
        var balance = [Int](repeating: -graph.eventClassCount, count: graph.nodes.count)  // entries − exits
        for transition in graph.transitions { balance[transition.to] += 1 }
        let starts = Set(graph.startNodes)
        let suppliers = graph.nodes.indices.filter { starts.contains($0) || balance[$0] > 0 }
        let demanders = graph.nodes.indices.filter { !starts.contains($0) && balance[$0] < 0 }
        guard !demanders.isEmpty else { return [] }

        // Network: source, suppliers, demanders, sink.
        let source = 0, sink = suppliers.count + demanders.count + 1
        var network = FlowNetwork(nodeCount: sink + 1)
        let unlimited = graph.transitions.count * graph.nodes.count
        var links: [(supplier: Int, demander: Int, edge: FlowNetwork.EdgeID)] = []
        for (position, supplier) in suppliers.enumerated() {
            network.addEdge(from: source, to: 1 + position, capacity: starts.contains(supplier) ? unlimited : balance[supplier],
                            cost: 0)
            for (offset, demander) in demanders.enumerated() {
                guard let route = routes.route(from: supplier, to: demander) else { continue }
                let edge = network.addEdge(from: 1 + position, to: 1 + suppliers.count + offset, capacity: unlimited,
                                           cost: route.count)
                links.append((supplier, demander, edge))
            }
        }
        for (offset, demander) in demanders.enumerated() {
            network.addEdge(from: 1 + suppliers.count + offset, to: sink, capacity: -balance[demander], cost: 0)
        }
        network.minimumCostFlow(from: source, to: sink)

        var walks: [[Int]] = []
        for link in links {
            let route = routes.route(from: link.supplier, to: link.demander) ?? []
            walks += Array(repeating: route, count: network.flow(link.edge))
        }
        return walks
    }

    /// Hierholzer's algorithm on the transitions (each as often as `takes` says)
    /// plus a root node: an edge from the root to a start for every path that
    /// begins there, and from each node to the root for every path that ends there.
    private static func walk(_ graph: StateGraph<Model>, takes: [Int]) -> [ModelPath] {
        let root = graph.nodes.count
        var balance = [Int](repeating: 0, count: graph.nodes.count)  // entries − exits
        for (index, transition) in graph.transitions.enumerated() {
            balance[transition.to] += takes[index]
            balance[transition.from] -= takes[index]
        }
        // A start whose part of the graph has no path ending or beginning in it
        // still needs one path: a root edge there and back.
        var extraStarts: [Int] = []
        while true {
            var adjacency = [[(to: Int, transition: Int?)]](repeating: [], count: graph.nodes.count + 1)
            // Pushed in reverse, popped in event-class order: plans read in the
            // order the ruleset documents its events.
            for (index, transition) in graph.transitions.enumerated().reversed() {
                adjacency[transition.from] += Array(repeating: (transition.to, index), count: takes[index])
            }
            for node in graph.nodes.indices {
                if balance[node] > 0 { adjacency[node] += Array(repeating: (root, nil), count: balance[node]) }
                if balance[node] < 0 { adjacency[root] += Array(repeating: (node, nil), count: -balance[node]) }
            }
            for start in extraStarts {
                adjacency[root].append((start, nil))
                adjacency[start].append((root, nil))
            }
            let edgeCount = adjacency.reduce(0) { $0 + $1.count }
            let circuit = eulerCircuit(from: root, adjacency: adjacency)
            if circuit.count == edgeCount { return split(circuit, root: root, graph: graph) }
            let used = Set(circuit.compactMap(\.transition))
            let unwalked = graph.startNodes.first { start in
                graph.transitions.indices.contains { graph.transitions[$0].from == start && !used.contains($0) }
            }
            guard let unwalked else { preconditionFailure("every node is reachable from a start") }
            extraStarts.append(unwalked)
        }
    }

    private static func eulerCircuit(from root: Int, adjacency: [[(to: Int, transition: Int?)]]) -> [(to: Int, transition: Int?)] {
        var adjacency = adjacency
        var stack: [(to: Int, transition: Int?)] = [(root, nil)]
        var circuit: [(to: Int, transition: Int?)] = []
        while let top = stack.last {
            if let edge = adjacency[top.to].popLast() {
                stack.append(edge)
            } else {
                circuit.append(stack.removeLast())
            }
        }
        // The first entry is the root itself, not an edge.
        return circuit.reversed().dropFirst().map { $0 }
    }

    /// The circuit's stretches between visits of the root, as paths from starts.
    private static func split(_ circuit: [(to: Int, transition: Int?)], root: Int,
                              graph: StateGraph<Model>) -> [ModelPath] {
        var paths: [ModelPath] = []
        var current: ModelPath?
        for edge in circuit {
            if let transition = edge.transition {
                current?.eventClasses.append(graph.transitions[transition].eventClass)
            } else if edge.to == root {
                if let path = current, !path.eventClasses.isEmpty { paths.append(path) }
                current = nil
            } else {
                current = ModelPath(start: graph.startNodes.firstIndex(of: edge.to)!)
            }
        }
        return paths
    }
}

/// Min-cost flow by successive shortest paths (Bellman–Ford on the residual
/// network): plain, and plenty for graphs of tens of nodes.
private struct FlowNetwork {
    struct EdgeID {
        let node: Int
        let position: Int
    }

    private struct Edge {
        let to: Int
        var capacity: Int
        let cost: Int
        /// The position of the opposite edge in `edges[to]`.
        let reverse: Int
    }

    private var edges: [[Edge]]

    init(nodeCount: Int) {
        edges = Array(repeating: [], count: nodeCount)
    }

    @discardableResult
    mutating func addEdge(from: Int, to: Int, capacity: Int, cost: Int) -> EdgeID {
        edges[from].append(Edge(to: to, capacity: capacity, cost: cost, reverse: edges[to].count))
        edges[to].append(Edge(to: from, capacity: 0, cost: -cost, reverse: edges[from].count - 1))
        return EdgeID(node: from, position: edges[from].count - 1)
    }

    /// What flows through an edge: the capacity its opposite edge gained.
    func flow(_ id: EdgeID) -> Int {
        let edge = edges[id.node][id.position]
        return edges[edge.to][edge.reverse].capacity
    }

    /// Sends as much as the network carries from `source` to `sink`, cheapest first.
    mutating func minimumCostFlow(from source: Int, to sink: Int) {
        while true {
            var distance = [Int?](repeating: nil, count: edges.count)
            var arrivedBy = [(node: Int, position: Int)?](repeating: nil, count: edges.count)
            distance[source] = 0
            var changed = true
            while changed {
                changed = false
                for node in edges.indices {
                    guard let base = distance[node] else { continue }
                    for (position, edge) in edges[node].enumerated() where edge.capacity > 0 {
                        if distance[edge.to].map({ base + edge.cost < $0 }) ?? true {
                            distance[edge.to] = base + edge.cost
                            arrivedBy[edge.to] = (node, position)
                            changed = true
                        }
                    }
                }
            }
            guard distance[sink] != nil else { return }
            var amount = Int.max, node = sink
            while let step = arrivedBy[node] {
                amount = min(amount, edges[step.node][step.position].capacity)
                node = step.node
            }
            node = sink
            while let step = arrivedBy[node] {
                edges[step.node][step.position].capacity -= amount
                let reverse = edges[step.node][step.position].reverse
                edges[node][reverse].capacity += amount
                node = step.node
            }
        }
    }
}
