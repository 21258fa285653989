import DeviceOracleJSON
import DeviceOracleRules

/// An answer about many requests at once (coverage of logs): its overall
/// verdict, also sent as `Oracle-Verdict`, and its JSON text.
public struct CoverageAnswer: Sendable {
    public let verdict: Verdict
    public let json: [UInt8]
}

extension Verdict {
    /// Over several answers: `fail` if any failed, else `pass` if any passed,
    /// else `unchecked` — nothing was checked anywhere.
    init(combining verdicts: some Sequence<Verdict>) {
        var anyPass = false
        for verdict in verdicts {
            if verdict == .fail { self = .fail; return }
            anyPass = anyPass || verdict == .pass
        }
        self = anyPass ? .pass : .unchecked
    }
}

/// `POST /rulesets/{name}/coverage`: runs every log of `{"logs": [...]}` through
/// the ruleset endpoint and counts which of the model's transitions its steps
/// took — so a farm sees which rules its devices never exercised.
enum Coverage {
    /// What the answer says about one log.
    private struct LogSummary {
        let verdict: Verdict
        let steps: Int
        let mismatches: Int
    }

    static func answer<Coding: ModelCoding>(_ coding: Coding, _ body: [UInt8],
                                            endpoint: RulesetEndpoint) -> Result<CoverageAnswer, RequestRejection> {
        let document: JSONDocument, logs: JSONValue
        switch RequestBody.object(body, members: members, read: { decoder, given in
            decoder.required(given[.logs], of: .array, member: "logs", in: decoder.document.root)
        }) {
        case .success((let read?, let parsed)): (logs, document) = (read, parsed)
        case .success: return .failure(RequestRejection(kind: .invalidRequest, detail: "a coverage request needs 'logs'"))
        case .failure(let rejection): return .failure(rejection)
        }

        let graph = coding.graph
        var taken = [Int](repeating: 0, count: graph.transitions.count)
        var stepsOutsideModel = 0
        var summaries: [LogSummary] = []
        var rejections = MergedRejections()
        for (index, log) in document.elements(logs).enumerated() {
            switch endpoint.answer(log, at: "/logs/\(index)", in: document) {
            case .failure(let rejection):
                rejections.add(rejection)
            case .success(let answer) where rejections.isEmpty:
                for transition in coding.transitions(ofLog: log, in: document, answer: answer) {
                    if let transition { taken[transition] += 1 } else { stepsOutsideModel += 1 }
                }
                summaries.append(LogSummary(verdict: answer.verdict, steps: answer.text.stepped.stepCount,
                                            mismatches: answer.text.envelope.mismatches.count))
            case .success:
                // Already a 422: the other logs are only validated.
                break
            }
        }
        if !rejections.isEmpty { return .failure(rejections.rejection) }

        let verdict = Verdict(combining: summaries.map(\.verdict))
        var writer = JSONWriter(capacity: 4096 + 64 * summaries.count)
        writer.beginObject()
        writer.key("ruleset")
        writer.string(escaping: endpoint.name)
        writer.key("states")
        writer.integer(graph.nodes.count)
        writer.key("transitions")
        writer.integer(graph.transitions.count)
        let exercised = taken.filter { $0 > 0 }.count
        writer.key("exercisedTransitions")
        writer.integer(exercised)
        writer.key("transitionCoverage")
        writer.number(Double(exercised) / Double(graph.transitions.count))
        writer.key("exercised")
        writer.beginArray()
        for (index, count) in taken.enumerated() where count > 0 {
            writer.transition(graph.transitions[index], of: graph, count: count)
        }
        writer.endArray()
        writer.key("missed")
        writer.beginArray()
        for (index, count) in taken.enumerated() where count == 0 {
            writer.transition(graph.transitions[index], of: graph)
        }
        writer.endArray()
        writer.key("stepsOutsideModel")
        writer.integer(stepsOutsideModel)
        writer.key("verdict")
        writer.string(escaping: verdict.rawValue)
        writer.key("logs")
        writer.beginArray()
        for (index, summary) in summaries.enumerated() {
            writer.beginObject()
            writer.key("index")
            writer.integer(index)
            writer.key("verdict")
            writer.string(escaping: summary.verdict.rawValue)
            writer.key("steps")
            writer.integer(summary.steps)
            writer.key("mismatches")
            writer.integer(summary.mismatches)
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return .success(CoverageAnswer(verdict: verdict, json: writer.finish()))
    }

    private enum Member: String, CaseIterable, Sendable {
        case logs
    }

    private static let members = ClosedNames<Member>("member")
}

extension JSONWriter {
    /// `{"from", "event", "to", "decision"}`, and `count` when given.
    fileprivate mutating func transition<Model>(_ transition: StateGraph<Model>.Transition, of graph: StateGraph<Model>,
                                                count: Int? = nil) {
        beginObject()
        key("from")
        node(graph.model.fields(of: graph.nodes[transition.from]))
        key("event")
        string(escaping: graph.model.eventClasses[transition.eventClass])
        key("to")
        node(graph.model.fields(of: graph.nodes[transition.to]))
        key("decision")
        string(escaping: transition.decision)
        if let count {
            key("count")
            integer(count)
        }
        endObject()
    }
}
