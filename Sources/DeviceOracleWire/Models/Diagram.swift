import DeviceOracleJSON
import DeviceOracleRules

/// The text formats a state diagram is drawn in.
public enum DiagramFormat: String, CaseIterable, Sendable {
    /// A Mermaid `stateDiagram-v2`, which GitHub and many wikis render inline.
    case mermaid
    /// Graphviz DOT (`dot -Tsvg`).
    case dot
    /// The graph as data — nodes with their fields, starts, edges — for a page that
    /// draws it itself and matches coverage's transitions (`from`, `to`) to its nodes.
    case json

    public var contentType: String {
        switch self {
        case .mermaid: "text/plain; charset=utf-8"
        case .dot: "text/vnd.graphviz; charset=utf-8"
        case .json: "application/json"
        }
    }

    /// The format a name spells, or a sentence saying which names there are.
    public static func named(_ name: String) -> Result<DiagramFormat, UnknownName> {
        formats.named(name, listing: "formats")
    }

    private static let formats = ClosedNames<DiagramFormat>("diagram format")
}

/// A model's reachable graph as text: a node per reachable state, one edge per
/// source, target and decision, labelled with the event classes that take it
/// and the decision. Drawn from the graph the real machines produced, never by hand.
enum Diagram {
    static func text<Model>(_ graph: StateGraph<Model>, format: DiagramFormat, title: String) -> [UInt8] {
        let edges = Self.edges(graph)
        let names = graph.nodes.map { nodeName(graph.model.fields(of: $0)) }
        var lines: [String]
        switch format {
        case .json:
            return json(graph, edges: edges, names: names, title: title)
        case .mermaid:
            // Mermaid ends a label at a colon or semicolon; the names hold neither.
            lines = ["stateDiagram-v2", "    direction LR"]
            lines += names.enumerated().map { #"    state "\#($0.element)" as s\#($0.offset)"# }
            lines += graph.startNodes.map { "    [*] --> s\($0)" }
            lines += edges.map { "    s\($0.from) --> s\($0.to) : \($0.events.joined(separator: ", ")) / \($0.decision)" }
        case .dot:
            lines = ["digraph \(dotString(title)) {", "    rankdir=LR;",
                     #"    node [shape=box, style=rounded, fontname="Helvetica"];"#,
                     #"    edge [fontname="Helvetica", fontsize=10];"#]
            lines += graph.startNodes.indices.map { "    start\($0) [shape=point, label=\"\"];" }
            lines += names.enumerated().map { "    s\($0.offset) [label=\(dotString($0.element))];" }
            lines += graph.startNodes.enumerated().map { "    start\($0.offset) -> s\($0.element);" }
            lines += edges.map { edge in
                let label = (edge.events + ["/ \(edge.decision)"]).joined(separator: "\n")
                return "    s\(edge.from) -> s\(edge.to) [label=\(dotString(label))];"
            }
            lines.append("}")
        }
        return Array((lines.joined(separator: "\n") + "\n").utf8)
    }

    /// `{"ruleset", "nodes": [{"id", "label", "fields"}], "starts", "edges": [{"from",
    /// "to", "events", "decision"}]}`: the same nodes, ids and edges as the text forms.
    private static func json<Model>(_ graph: StateGraph<Model>, edges: [Edge], names: [String], title: String) -> [UInt8] {
        var writer = JSONWriter(capacity: 256 * (graph.nodes.count + edges.count))
        writer.beginObject()
        writer.key("ruleset")
        writer.string(escaping: title)
        writer.key("nodes")
        writer.beginArray()
        for (index, node) in graph.nodes.enumerated() {
            writer.beginObject()
            writer.key("id")
            writer.string(escaping: "s\(index)")
            writer.key("label")
            writer.string(escaping: names[index])
            writer.key("fields")
            writer.node(graph.model.fields(of: node))
            writer.endObject()
        }
        writer.endArray()
        writer.key("starts")
        writer.beginArray()
        for start in graph.startNodes { writer.string(escaping: "s\(start)") }
        writer.endArray()
        writer.key("edges")
        writer.beginArray()
        for edge in edges {
            writer.beginObject()
            writer.key("from")
            writer.string(escaping: "s\(edge.from)")
            writer.key("to")
            writer.string(escaping: "s\(edge.to)")
            writer.key("events")
            writer.beginArray()
            for event in edge.events { writer.string(escaping: event) }
            writer.endArray()
            writer.key("decision")
            writer.string(escaping: edge.decision)
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return writer.finish()
    }

    private struct Edge {
        let from: Int
        let to: Int
        let decision: String
        var events: [String]
    }

    /// The transitions grouped by source, target and decision, in the order of
    /// their first event class.
    private static func edges<Model>(_ graph: StateGraph<Model>) -> [Edge] {
        var edges: [Edge] = []
        var positions: [String: Int] = [:]
        for transition in graph.transitions {
            let name = graph.model.eventClasses[transition.eventClass]
            let key = "\(transition.from) \(transition.to) \(transition.decision)"
            if let position = positions[key] {
                edges[position].events.append(name)
            } else {
                positions[key] = edges.count
                edges.append(Edge(from: transition.from, to: transition.to, decision: transition.decision, events: [name]))
            }
        }
        return edges
    }

    /// A node's label: its named values and the flags that are set.
    static func nodeName(_ fields: [ModelField]) -> String {
        let shown = fields.compactMap { field -> String? in
            switch field.value {
            case .bool(let flag): flag ? field.name : nil
            case .name(let name): name
            }
        }
        return shown.isEmpty ? "(none set)" : shown.joined(separator: ", ")
    }

    /// A DOT quoted string (`"` and `\` escaped; a line break as `\n`).
    private static func dotString(_ text: String) -> String {
        var quoted = "\""
        for character in text {
            switch character {
            case "\"": quoted += "\\\""
            case "\\": quoted += "\\\\"
            case "\n": quoted += "\\n"
            default: quoted.append(character)
            }
        }
        return quoted + "\""
    }
}
