import DeviceOracleJSON

/// The first steps every endpoint takes with a body: parse it (`400` for
/// malformed JSON), require an object (`422` at ""), check a pinned `ruleset`
/// name; then the ruleset decodes and runs it.
enum RequestBody {
    static func answer(_ body: [UInt8], served: [StaticString],
                       run: (inout RequestDecoder, JSONValue) -> RulesetAnswer?) -> Result<RulesetAnswer, RequestRejection> {
        switch parse(body) {
        case .success(let document): answer(document.root, at: "", in: document, served: served, run: run)
        case .failure(let rejection): .failure(rejection)
        }
    }

    /// The same for a request that is a value inside a parsed document, at `pointer`;
    /// only the problems inside it count, and they point into the document.
    static func answer(_ request: JSONValue, at pointer: String, in document: JSONDocument, served: [StaticString],
                       run: (inout RequestDecoder, JSONValue) -> RulesetAnswer?) -> Result<RulesetAnswer, RequestRejection> {
        var decoder = RequestDecoder(document: document, scope: request, at: pointer)
        guard decoder.requireObject(request) else { return .failure(decoder.rejection()!) }
        checkPinnedRuleset(request, served: served, decoder: &decoder)
        let answer = run(&decoder, request)
        if let rejection = decoder.rejection() { return .failure(rejection) }
        guard let answer else {
            return .failure(RequestRejection(kind: .invalidRequest, detail: "the request could not be answered"))
        }
        return .success(answer)
    }

    /// Reports a `ruleset` member that names a version not in `served`.
    static func checkPinnedRuleset(_ request: JSONValue, served: [StaticString], decoder: inout RequestDecoder) {
        // The document is copied (a retain) only for a request that pins a version.
        guard let pinned = decoder.value(decoder.document.member(request, "ruleset"), of: .string) else { return }
        let document = decoder.document
        if !served.contains(where: { document.string(pinned, equals: $0) }) {
            let names = served.map { "'\($0)'" }.joined(separator: ", ")
            decoder.report("ruleset '\(document.string(pinned) ?? "")' is not served here; this endpoint serves \(names)",
                           at: pinned)
        }
    }

    /// A body of the service's own shape (a plan, coverage or batch request): a
    /// JSON object whose members are all in `members` (a typo is a `422` with a
    /// did-you-mean); `read` decodes the non-null ones, reporting its problems.
    static func object<Member: Hashable, Read>(
        _ body: [UInt8], members: ClosedNames<Member>,
        read: (inout RequestDecoder, [Member: JSONValue]) -> Read
    ) -> Result<(read: Read, document: JSONDocument), RequestRejection> {
        let document: JSONDocument
        switch parse(body) {
        case .success(let parsed): document = parsed
        case .failure(let rejection): return .failure(rejection)
        }
        var decoder = RequestDecoder(document: document)
        guard decoder.requireObject(document.root) else { return .failure(decoder.rejection()!) }
        var given: [Member: JSONValue] = [:]
        decoder.closedObject(document.root, names: members) { _, member, value in given[member] = value }
        let result = read(&decoder, given)
        if let rejection = decoder.rejection() { return .failure(rejection) }
        return .success((result, document))
    }

    static func parse(_ body: [UInt8]) -> Result<JSONDocument, RequestRejection> {
        guard !body.isEmpty else {
            return .failure(RequestRejection(kind: .invalidJSON, detail: "the request body is empty; expected a JSON object"))
        }
        do {
            return .success(try JSONReader.parse(body))
        } catch {
            return .failure(rejection(error))
        }
    }

    /// The `400` for malformed JSON, saying where; for line `number` of an NDJSON body,
    /// which was parsed alone, the column and offset are within that line.
    static func rejection(_ error: JSONSyntaxError, inLine number: Int? = nil) -> RequestRejection {
        let position = RequestRejection.Position(offset: error.offset, line: number ?? error.line, column: error.column)
        let place = number == nil ? "byte offset \(error.offset)" : "byte \(error.offset) of the line"
        let detail = "invalid JSON at line \(position.line), column \(error.column) (\(place)): \(error.reason)"
        return RequestRejection(kind: .invalidJSON, detail: detail, position: position)
    }
}
