import DeviceOracleJSON
import DeviceOracleRules

/// A ruleset's state model as its endpoint serves it, whatever the model's types:
/// plans, diagrams and coverage of device logs, through its `ModelCoding`.
struct RulesetModel: Sendable {
    fileprivate let plan: @Sendable (PlanRequest, AnswerFormat, RulesetEndpoint) -> Result<[UInt8], RequestRejection>
    fileprivate let diagram: @Sendable (DiagramFormat, String) -> [UInt8]
    fileprivate let coverage: @Sendable ([UInt8], RulesetEndpoint) -> Result<CoverageAnswer, RequestRejection>
    fileprivate let repro: @Sendable ([UInt8], AnswerFormat, RulesetEndpoint) -> Result<[UInt8], RequestRejection>
    fileprivate let reproLines: @Sendable (NDJSONChunks, (() -> NDJSONChunks?)?, Int, AnswerFormat, RulesetEndpoint)
        -> Result<[UInt8], RequestRejection>?

    init<Coding: ReproCoding>(_ coding: Coding) {
        plan = { request, format, endpoint in Plan.answer(coding, request, format: format, endpoint: endpoint) }
        diagram = { format, title in Diagram.text(coding.graph, format: format, title: title) }
        coverage = { body, endpoint in Coverage.answer(coding, body, endpoint: endpoint) }
        repro = { body, format, endpoint in Repro.answer(coding, body, format: format, endpoint: endpoint) }
        reproLines = { chunks, again, maxLineBytes, format, endpoint in
            Repro.answer(coding, ndjson: chunks, again: again, maxLineBytes: maxLineBytes, format: format, endpoint: endpoint)
        }
    }
}

extension RulesetEndpoint {
    /// `POST /rulesets/{name}/plan`: the body's `coverage`, `maxLength`, `seed`
    /// and `count` (an empty body takes the defaults).
    /// `?format=xctest|swift-testing` makes it a Swift file of tests, one per sequence.
    public func plan(_ body: [UInt8], format: AnswerFormat = .json) -> Result<[UInt8], RequestRejection> {
        PlanRequest.decode(body).flatMap { model.plan($0, format, self) }
    }

    /// `device-oracle plan`: the same answer from command-line values.
    public func plan(coverage: String?, maxLength: Int?, seed: Int?, count: Int?,
                     format: AnswerFormat = .json) -> Result<[UInt8], RequestRejection> {
        var writer = JSONWriter()
        writer.beginObject()
        if let coverage {
            writer.key("coverage")
            writer.string(escaping: coverage)
        }
        for (name, value) in [("maxLength", maxLength), ("seed", seed), ("count", count)] {
            guard let value else { continue }
            writer.key(escaping: name)
            writer.integer(value)
        }
        writer.endObject()
        return plan(writer.finish(), format: format)
    }

    /// `GET /rulesets/{name}/diagram`: the reachable state graph.
    public func diagram(_ format: DiagramFormat) -> [UInt8] {
        model.diagram(format, name)
    }

    /// `POST /rulesets/{name}/repro`: the shortest request that fails as the log's
    /// first mismatch does (`Repro`), from its JSON or NDJSON form, as JSON or a Swift
    /// file with its test.
    /// An NDJSON body's lines are at most `maxLineBytes` long (`--max-line-bytes`).
    public func repro(_ body: [UInt8], ndjson: Bool = false, maxLineBytes: Int = NDJSONCheck.defaultMaxLineBytes,
                      format: AnswerFormat = .json) -> Result<[UInt8], RequestRejection> {
        guard ndjson else { return model.repro(body, format, self) }
        return model.reproLines(NDJSONChunks(body), { NDJSONChunks(body) }, maxLineBytes, format, self) ?? .failure(.unreadLog)
    }

    /// The repro of an NDJSON log read in chunks (`device-oracle repro --ndjson FILE`),
    /// in the memory of a line as `check` reads it; `again` reads it once more from the
    /// start, for a log with `"initial": "unknown"` (`nil`: it cannot be, standard input).
    /// `nil` when it could not be read.
    public func repro(ndjson chunks: NDJSONChunks, again: (() -> NDJSONChunks?)? = nil,
                      maxLineBytes: Int = NDJSONCheck.defaultMaxLineBytes,
                      format: AnswerFormat = .json) -> Result<[UInt8], RequestRejection>? {
        model.reproLines(chunks, again, maxLineBytes, format, self)
    }

    /// `POST /rulesets/{name}/coverage`: `{"logs": [<request body>, ...]}`.
    public func coverage(_ body: [UInt8]) -> Result<CoverageAnswer, RequestRejection> {
        model.coverage(body, self)
    }
}
