import DeviceOracleJSON
import DeviceOracleRules

/// `POST /rulesets/{name}/plan`: event sequences through the model, each with
/// the request that replays it and the answer the ruleset endpoint gives for
/// that request — made by running it, so a plan can never disagree with a check.
enum Plan {
    static func answer<Coding: ModelCoding>(_: Coding.Type, _ request: PlanRequest, endpoint: RulesetEndpoint) -> [UInt8] {
        let graph = Coding.graph, model = graph.model
        let paths = switch request.coverage {
        case .transitions: TransitionCover.paths(covering: graph, maxLength: request.maxLength)
        case .random: RandomWalk.paths(model, count: request.count, length: request.maxLength, seed: request.seed)
        }
        var writer = JSONWriter(capacity: 1 << 16)
        writer.beginObject()
        writer.key("ruleset")
        writer.string(escaping: endpoint.name)
        writer.key("coverage")
        writer.string(escaping: request.coverage.rawValue)
        writer.key("maxLength")
        writer.integer(request.maxLength)
        if request.coverage == .random {
            writer.key("seed")
            writer.integer(Int(request.seed))
            writer.key("count")
            writer.integer(request.count)
        }
        writer.key("states")
        writer.integer(graph.nodes.count)
        writer.key("transitions")
        writer.integer(graph.transitions.count)
        writer.key("transitionsCovered")
        writer.integer(Set(paths.flatMap(graph.transitionIndices)).count)
        if request.coverage == .transitions {
            // One step per transition: no plan can be shorter.
            writer.key("lowerBound")
            writer.integer(graph.transitions.count)
        }
        writer.key("steps")
        writer.integer(paths.reduce(0) { $0 + $1.eventClasses.count })
        writer.key("sequences")
        writer.beginArray()
        for path in paths {
            var machine = model.starts[path.start]
            let events = path.eventClasses.map { model.apply(eventClass: $0, to: &machine).event }
            var body = JSONWriter(capacity: 64 * events.count + 64)
            Coding.writeRequest(start: path.start, events: events, to: &body)
            let requestBytes = body.finish()
            guard case .success(let answer) = endpoint.answer(requestBytes) else {
                preconditionFailure("\(endpoint.name) refused a request its own model wrote")
            }
            writer.beginObject()
            writer.key("request")
            writer.raw(requestBytes)
            writer.key("answer")
            writer.raw(answer.json)
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return writer.finish()
    }
}
