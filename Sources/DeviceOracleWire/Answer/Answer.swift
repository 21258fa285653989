import DeviceOracleJSON

extension Verdict {
    /// `unchecked` when nothing was observed and no static check ran; otherwise
    /// `fail` on any mismatch or failed static check, else `pass`.
    init(mismatches: MismatchList, staticCheckPassed: Bool? = nil) {
        if staticCheckPassed == false || !mismatches.entries.isEmpty {
            self = .fail
        } else if mismatches.carried || staticCheckPassed != nil {
            self = .pass
        } else {
            self = .unchecked
        }
    }
}

/// The members every ruleset answer shares, around the ruleset's own:
/// `{"ruleset", …ruleset members…, "verdict", "mismatches", "diagnostics"}`.
struct AnswerEnvelope {
    let ruleset: StaticString
    let verdict: Verdict
    let mismatches: [Mismatch]
    let diagnostics: [Diagnostic]

    func write(document: JSONDocument, capacity: Int, members: (inout JSONWriter) -> Void) -> RulesetAnswer {
        var writer = JSONWriter(capacity: capacity)
        writer.beginObject()
        writer.key("ruleset")
        writer.string(ruleset)
        members(&writer)
        writer.key("verdict")
        writer.string(escaping: verdict.rawValue)
        writer.key("mismatches")
        writer.beginArray()
        for mismatch in mismatches { mismatch.write(to: &writer, document: document) }
        writer.endArray()
        writer.key("diagnostics")
        writer.beginArray()
        // Ordered by step, whole-request entries (index null) last.
        for diagnostic in diagnostics where diagnostic.index != nil { diagnostic.write(to: &writer) }
        for diagnostic in diagnostics where diagnostic.index == nil { diagnostic.write(to: &writer) }
        writer.endArray()
        writer.endObject()
        return RulesetAnswer(verdict: verdict, json: writer.finish())
    }
}

/// The first steps every endpoint takes with a body: parse it (`400` for
/// malformed JSON), require an object (`422` at ""), check a pinned `ruleset`
/// name; then the ruleset decodes and runs it.
enum RequestBody {
    static func answer(_ body: [UInt8], served: [StaticString],
                       run: (inout RequestDecoder, JSONValue) -> RulesetAnswer?) -> Result<RulesetAnswer, RequestRejection> {
        let document: JSONDocument
        switch parse(body) {
        case .success(let parsed): document = parsed
        case .failure(let rejection): return .failure(rejection)
        }
        var decoder = RequestDecoder(document: document)
        let root = document.root
        guard document.kind(root) == .object else {
            decoder.report("the request body must be a JSON object, got \(document.kind(root).article)", at: root)
            return .failure(decoder.rejection()!)
        }
        if let pinned = decoder.value(document.member(root, "ruleset"), of: .string),
           !served.contains(where: { document.string(pinned, equals: $0) }) {
            let names = served.map { "'\($0)'" }.joined(separator: ", ")
            decoder.report("ruleset '\(document.string(pinned) ?? "")' is not served here; this endpoint serves \(names)",
                           at: pinned)
        }
        let answer = run(&decoder, root)
        if let rejection = decoder.rejection() { return .failure(rejection) }
        guard let answer else { preconditionFailure("a ruleset returned no answer without reporting a problem") }
        return .success(answer)
    }

    static func parse(_ body: [UInt8]) -> Result<JSONDocument, RequestRejection> {
        guard !body.isEmpty else {
            return .failure(RequestRejection(kind: .invalidJSON, detail: "the request body is empty; expected a JSON object"))
        }
        do {
            return .success(try JSONReader.parse(body))
        } catch {
            let position = RequestRejection.Position(offset: error.offset, line: error.line, column: error.column)
            let detail = "invalid JSON at line \(error.line), column \(error.column) (byte offset \(error.offset)): \(error.reason)"
            return .failure(RequestRejection(kind: .invalidJSON, detail: detail, position: position))
        }
    }
}
