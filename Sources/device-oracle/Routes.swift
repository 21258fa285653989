import DeviceOracleHTTP
import DeviceOracleJSON
import DeviceOracleWire

/// The service's routes: the trace viewer, health, the OpenAPI document, the ruleset
/// list, one POST route per ruleset endpoint, each ruleset's model routes, and the
/// batch check.
enum ServiceRoutes {
    /// What a request is counted at in the memory budget, per byte of its body: the
    /// measured peak of one request over its body, for the benchmark's large body of
    /// every ruleset (bench/memory-budget.sh prints them: playback 7-8, refresh 12-13,
    /// haptics 15, audio-session 15-15.4), with a margin for what one run cannot show.
    static let memoryPerBodyByte = 20

    /// `/metrics`' verdicts by ruleset: the ruleset endpoints' answers by their
    /// `verdict` log field (the batch check's and coverage's verdicts are not a ruleset's).
    static let verdictCounter = ServerMetrics.AnswerCounter(
        name: "deviceoracle_verdicts_total", help: "Answers of the ruleset endpoints, by ruleset and verdict.",
        routeLabel: "ruleset", routes: Dictionary(uniqueKeysWithValues: Rulesets.registry.paths.map { ($0.path, $0.newest.name) }),
        field: "verdict", values: [Verdict.pass, .fail, .unchecked, .inconclusive].map(\.rawValue) + [NDJSONCheck.invalidVerdict])

    /// `maxLineBytes`: the longest line of an NDJSON body (`--max-line-bytes`);
    /// `registry`: the rulesets served (a test adds versions to the build's).
    static func all(maxLineBytes: Int = NDJSONRequest.defaultMaxLineBytes,
                    registry: RulesetRegistry = Rulesets.registry) -> [Route] {
        let viewer = TraceViewer.response()
        var routes = [
            Route(path: "/", methods: [.GET]) { _ in viewer },
            Route(path: "/healthz", methods: [.GET]) { _ in
                .json(200, Array(#"{"status":"ok"}"#.utf8))
            },
            Route(path: "/openapi.yaml", methods: [.GET]) { _ in
                HTTPResponse(status: 200, contentType: "application/yaml", body: PackageResources.openapi_yaml)
            },
        ]
        let rulesetList = rulesetsDocument(registry)
        routes.append(Route(path: "/rulesets", methods: [.GET]) { _ in .json(200, rulesetList) })
        // One route per path: its versions are chosen by the body's `ruleset` pin.
        for versions in registry.paths {
            let ndjson = StreamedBody(mediaTypes: NDJSONRequest.mediaTypes) { request in
                NDJSONRequest(versions, request, maxLineBytes: maxLineBytes)
            }
            // A bad query is answered before the media type is looked at (oslog.md).
            let queryProblem: @Sendable (String) -> HTTPResponse? = { query in
                if case .failure(let invalid) = stepDetail(query: query).flatMap({ _ in logSelection(query: query) }) {
                    return invalid.response
                }
                return nil
            }
            routes.append(Route(path: versions.path, methods: [.POST], body: .json, streamed: ndjson,
                                queryProblem: queryProblem) { request in
                // Most requests have no query: every step, the service's own forms, and
                // no parameter to look for.
                guard request.hasQuery else { return response(to: versions.answer(request.body)) }
                let query = request.query
                // `?steps=` is checked first: a bad query needs no body read.
                return switch stepDetail(query: query).flatMap({ detail in logSelection(query: query).map { (detail, $0) } }) {
                case .success((_, .some)): unifiedLogAsJSON
                case .success((.all, nil)): response(to: versions.answer(request.body))
                case .success((let detail, nil)): response(to: versions.answer(request.body).map { $0.listing(detail) })
                case .failure(let invalid): invalid.response
                }
            })
            for endpoint in versions.versions {
                routes += modelRoutes(endpoint, isNewest: endpoint.name == versions.newest.name, maxLineBytes: maxLineBytes)
            }
        }
        routes.append(Route(path: "/check", methods: [.POST], body: .json) { request in
            switch BatchCheck.answer(request.body) {
            case .success(let report):
                let verdict = VerdictFields.of(report.verdict)
                // The same report either way, so caches must tell the two apart.
                let headers = verdict.headers + [("Vary", "Accept")]
                guard prefersJUnit(accept: request.headers["Accept"]) else {
                    return .json(200, report.json, headers: headers, logFields: verdict.logFields)
                }
                return HTTPResponse(status: 200, contentType: "application/xml", headers: headers, body: report.junitXML,
                                    logFields: verdict.logFields)
            case .failure(let rejection):
                return problem(for: rejection).response
            }
        })
        return routes
    }

    /// `/rulesets/{name}/repro`, `/plan`, `/diagram` and `/coverage`, under the versioned
    /// name (`/rulesets/playback/1/plan`) and, for the newest version, the short one
    /// (`/rulesets/playback/plan`), as `check` takes either. The router matches exact
    /// paths, so each is a route.
    static func modelRoutes(_ endpoint: RulesetEndpoint, isNewest: Bool, maxLineBytes: Int) -> [Route] {
        ([endpoint.name] + (isNewest ? [String(endpoint.shortName)] : [])).flatMap { name in
            let base = "/rulesets/" + name
            return [
                Route(path: base + "/repro", methods: [.POST], body: .jsonOr(NDJSONRequest.mediaTypes)) { request in
                    let ndjson = request.headers["Content-Type"].map(NDJSONRequest.isMediaType) ?? false
                    return formatted(query: request.query) { endpoint.repro(request.body, ndjson: ndjson, maxLineBytes: maxLineBytes, format: $0) }
                },
                Route(path: base + "/plan", methods: [.POST], body: .json) { request in
                    formatted(query: request.query) { endpoint.plan(request.body, format: $0) }
                },
                Route(path: base + "/diagram", methods: [.GET]) { request in
                    diagramResponse(endpoint, query: request.query)
                },
                Route(path: base + "/coverage", methods: [.POST], body: .json) { request in
                    switch endpoint.coverage(request.body) {
                    case .success(let answer):
                        let verdict = VerdictFields.of(answer.verdict)
                        return .json(200, answer.json, headers: verdict.headers, logFields: verdict.logFields)
                    case .failure(let rejection):
                        return problem(for: rejection).response
                    }
                },
            ]
        }
    }

    /// A plan's or a repro's answer in the format `?format=json|xctest|swift-testing`
    /// names (JSON when absent; other parameters are ignored). A bad format is `400
    /// /problems/invalid-query`, before the body is looked at.
    static func formatted(query: String, _ answer: (AnswerFormat) -> Result<[UInt8], RequestRejection>) -> HTTPResponse {
        switch namedValue("format", in: query, absent: AnswerFormat.json.rawValue, AnswerFormat.named).map({ ($0, answer($0)) }) {
        case .success((let format, .success(let body))):
            return HTTPResponse(status: 200, contentType: format.contentType, body: body)
        case .success((_, .failure(let rejection))):
            return problem(for: rejection).response
        case .failure(let invalid):
            return invalid.response
        }
    }

    /// `?format=mermaid|dot|json` (mermaid when absent; other parameters are ignored).
    /// A bad format is `400 /problems/invalid-query`: there is no body to point into.
    static func diagramResponse(_ endpoint: RulesetEndpoint, query: String) -> HTTPResponse {
        switch namedValue("format", in: query, absent: DiagramFormat.mermaid.rawValue, DiagramFormat.named) {
        case .success(let format):
            return HTTPResponse(status: 200, contentType: format.contentType, body: endpoint.diagram(format))
        case .failure(let invalid):
            return invalid.response
        }
    }

    /// `?steps=all|failing|none` on a ruleset endpoint (all when absent), read as
    /// `format` is.
    static func stepDetail(query: String) -> Result<StepDetail, InvalidQuery> {
        namedValue("steps", in: query, absent: StepDetail.all.rawValue, StepDetail.named)
    }

    /// `?from=oslog` (oslog.md) with its `category` and `subsystem`: nil for the
    /// service's own forms. `from` names one form; `category` and `subsystem` are
    /// read only with it, and neither may be empty.
    static func logSelection(query: String) -> Result<OSLogSelection?, InvalidQuery> {
        queryValue("from", in: query).flatMap { from in
            queryValue("category", in: query).flatMap { category in
                queryValue("subsystem", in: query).flatMap { subsystem in
                    guard let from else {
                        // Most requests name none: no list of them to build.
                        guard category != nil || subsystem != nil else { return .success(nil) }
                        let given = [category.map { _ in "'category'" }, subsystem.map { _ in "'subsystem'" }].compactMap { $0 }
                        return .failure(InvalidQuery(detail: "\(given.joined(separator: " and ")) "
                                                     + "\(given.count == 1 ? "is" : "are") read only with 'from=oslog'"))
                    }
                    guard from == "oslog" else {
                        return .failure(InvalidQuery(detail: "'from' is '\(from)'; its one value is 'oslog' (a unified-log capture)"))
                    }
                    for (name, value) in [("category", category), ("subsystem", subsystem)] where value?.isEmpty == true {
                        return .failure(InvalidQuery(detail: "'\(name)' is empty; give the unified log's \(name) exactly, or leave it out"))
                    }
                    return .success(OSLogSelection(category: category ?? OSLogSelection.defaultCategory, subsystem: subsystem))
                }
            }
        }
    }

    /// A JSON body with `?from=oslog`: the unified log is only ever NDJSON.
    static let unifiedLogAsJSON = ProblemDetails(
        status: 415,
        detail: "from=oslog reads the unified log's NDJSON: capture it with `log stream --style ndjson` (or `log show "
            + "--style ndjson`) and send it as Content-Type: application/x-ndjson").response

    /// A parameter whose value is one of a closed set of names, `absent` when not given.
    static func namedValue<Value>(_ parameter: String, in query: String, absent: String,
                                  _ named: (String) -> Result<Value, UnknownName>) -> Result<Value, InvalidQuery> {
        queryValue(parameter, in: query).flatMap { name in
            named(name ?? absent).mapError { InvalidQuery(detail: $0.detail) }
        }
    }

    /// The value of a parameter that may be given once (nil when absent): given
    /// twice it is ambiguous.
    static func queryValue(_ name: String, in query: String) -> Result<String?, InvalidQuery> {
        // Most requests have no query: nothing to split for each of the parameters read.
        guard !query.isEmpty else { return .success(nil) }
        let values = QueryParameters(query).values(name)
        guard values.count <= 1 else {
            return .failure(InvalidQuery(detail: "'\(name)' is given \(values.count) times; give it once"))
        }
        return .success(values.first)
    }

    /// A query the service cannot follow: `400 /problems/invalid-query`, as there is
    /// no body to point into.
    struct InvalidQuery: Error {
        let detail: String

        var response: HTTPResponse {
            ProblemDetails(type: "/problems/invalid-query", title: "Invalid query", status: 400, detail: detail).response
        }
    }

    /// Whether `Accept` asks for JUnit XML rather than JSON: it names
    /// `application/xml` (or `text/xml`) with a quality above zero, and names
    /// `application/json` with a lower one or not at all. Wildcards, no `Accept`
    /// and ties get JSON, the service's own format.
    static func prefersJUnit(accept: String?) -> Bool {
        guard let accept else { return false }
        var xml = 0.0, json: Double?
        for range in accept.split(separator: ",") {
            let parts = range.split(separator: ";").map { $0.trimmingWhitespace().lowercased() }
            guard let type = parts.first else { continue }
            let quality = parts.dropFirst().lazy.compactMap { parameter -> Double? in
                guard parameter.hasPrefix("q=") else { return nil }
                return Double(parameter.dropFirst(2))
            }.first ?? 1
            switch type {
            case "application/xml", "text/xml": xml = max(xml, quality)
            case "application/json": json = max(json ?? 0, quality)
            default: break
            }
        }
        return xml > 0 && xml > (json ?? 0)
    }

    /// `{"rulesets":[{"name","path","summary"},...]}`, built once: every version,
    /// path by path, newest first.
    static func rulesetsDocument(_ registry: RulesetRegistry = Rulesets.registry) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("rulesets")
        writer.beginArray()
        for endpoint in registry.all {
            writer.beginObject()
            writer.key("name")
            writer.string(escaping: endpoint.name)
            writer.key("path")
            writer.string(escaping: endpoint.path)
            writer.key("summary")
            writer.string(escaping: endpoint.summary)
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return writer.bytes
    }

    /// Answers with at least this many steps (a few hundred kilobytes) are streamed.
    static let streamedStepCount = 2_000

    /// Consumed: the answer is moved out, never copied (a copy retained all it holds).
    static func response(to answer: consuming Result<RulesetAnswer, RequestRejection>) -> HTTPResponse {
        switch consume answer {
        case .success(let answer):
            let verdict = VerdictFields.of(answer.verdict)
            // Made whole in one go: an answer made and then changed was copied once more.
            guard answer.stepCount >= streamedStepCount else {
                return .json(200, answer.json, headers: verdict.headers, logFields: verdict.logFields)
            }
            // A long log's answer (megabytes) is written as it is sent, never whole.
            // Its work is held while it is sent, and counted in the memory budget.
            var response = HTTPResponse.json(200, [], headers: verdict.headers, logFields: verdict.logFields)
            response.bodyStream = answer.pieces()
            response.heldBytes = answer.heldBytes
            return response
        case .failure(let rejection):
            return problem(for: rejection).response
        }
    }
}

/// A verdict's `Oracle-Verdict` header field and its access-line field, made once:
/// written out at every answer they were two allocations a request.
private struct VerdictFields {
    let headers: [(String, String)]
    let logFields: [LogField]

    private init(_ verdict: Verdict) {
        headers = [("Oracle-Verdict", verdict.rawValue)]
        logFields = [ServiceRoutes.verdictCounter.field(verdict.rawValue)]
    }

    private static let pass = VerdictFields(.pass), fail = VerdictFields(.fail), unchecked = VerdictFields(.unchecked)
    private static let inconclusive = VerdictFields(.inconclusive)

    static func of(_ verdict: Verdict) -> VerdictFields {
        switch verdict {
        case .pass: pass
        case .fail: fail
        case .unchecked: unchecked
        case .inconclusive: inconclusive
        }
    }
}

/// The problem document for a refused request body: `400 /problems/invalid-json` (with
/// offset, line and column when the JSON syntax is at fault) or `422
/// /problems/invalid-request` with every problem's pointer. `check` prints the same.
func problem(for rejection: RequestRejection) -> ProblemDetails {
    var extra: [(String, Int)] = []
    if let position = rejection.position {
        extra = [("offset", position.offset), ("line", position.line), ("column", position.column)]
    } else if let line = rejection.line {
        extra = [("line", line)]
    }
    // A line of an NDJSON body lists even malformed JSON as an error with its line.
    let errors = rejection.kind == .invalidRequest || rejection.line != nil
        ? rejection.problems.map { ProblemDetails.FieldError(pointer: $0.pointer, detail: $0.detail, line: $0.line) } : nil
    return ProblemDetails(type: rejection.problemType, title: rejection.title, status: rejection.status,
                          detail: rejection.detail, extraIntegers: extra, errors: errors)
}

/// An NDJSON request of a ruleset endpoint (streaming.md): `NDJSONCheck`'s progress
/// as the connection's. The answer is NDJSON with the verdict as the trailer
/// `Oracle-Verdict`; a problem before it began is the usual problem+json.
final class NDJSONRequest: StreamedRequestHandler {
    static let mediaTypes = ["application/x-ndjson", "application/jsonl"]

    /// Whether a Content-Type value names one of `mediaTypes` (any parameters, any case).
    static func isMediaType(_ contentType: String) -> Bool {
        let type = contentType.prefix { $0 != ";" }.trimmingWhitespace().lowercased()
        return mediaTypes.contains(type)
    }
    static let defaultMaxLineBytes = NDJSONCheck.defaultMaxLineBytes

    /// The check, or a bad query, answered before any line is read.
    private let started: Result<NDJSONCheck, ServiceRoutes.InvalidQuery>
    private var check: NDJSONCheck? { try? started.get() }

    init(_ versions: RulesetVersions, _ request: HTTPRequest, maxLineBytes: Int) {
        switch ServiceRoutes.stepDetail(query: request.query).flatMap({ detail in
            ServiceRoutes.logSelection(query: request.query).map { (detail, $0) }
        }) {
        case .success((let detail, let oslog)):
            let detailGiven = !QueryParameters(request.query).values("steps").isEmpty
            let check = NDJSONCheck(versions: versions, detail: detail, detailGiven: detailGiven, maxLineBytes: maxLineBytes,
                                    oslog: oslog) {
                problem(for: $0).json
            }
            check.pausesAtOutputBytes = StreamedBody.outputHighWater
            started = .success(check)
        case .failure(let invalid):
            started = .failure(invalid)
        }
    }

    func receive(_ bytes: UnsafeRawBufferPointer, output: inout [UInt8]) -> StreamedProgress {
        switch started {
        case .success(let check): progress(check.receive(bytes, output: &output))
        case .failure(let invalid): .respond(invalid.response)
        }
    }

    func bodyEnded(output: inout [UInt8]) -> StreamedProgress {
        switch started {
        case .success(let check): progress(check.finish(output: &output))
        case .failure(let invalid): .respond(invalid.response)
        }
    }

    var heldBytes: Int { check?.heldBytes ?? 0 }

    /// The server ended the stream after the answer began: the problem line says why
    /// (`/problems/request-timeout`, `/problems/overloaded`, …), as after a bad line.
    func cut(_ error: HTTPError, output: inout [UInt8]) -> StreamedProgress? {
        let problemJSON = ProblemDetails(status: error.status, detail: error.detail).json
        return check?.cut(problemJSON: problemJSON, output: &output).map(progress)
    }

    private func progress(_ progress: NDJSONCheck.Progress) -> StreamedProgress {
        switch progress {
        case .more(let completedLine):
            // Output passed the mark in the middle of the bytes: the rest waits for it to go.
            if let check, check.unread > 0 { return .pause(unread: check.unread) }
            return completedLine ? .completedUnit : .more
        case .begin:
            return .begin(HTTPResponse(status: 200, contentType: "application/x-ndjson"), trailers: ["Oracle-Verdict"])
        case .rejected(let rejection):
            return .respond(problem(for: rejection).response)
        case .end(let verdict):
            // After a problem line the rest is not read: the connection closes.
            return .end(trailers: [("Oracle-Verdict", verdict)], readsRest: verdict != NDJSONCheck.invalidVerdict,
                        logFields: [ServiceRoutes.verdictCounter.field(verdict)])
        }
    }
}

/// The server pulls a streamed answer's pieces as the socket drains.
extension AnswerPieces: HTTPBodyStream {}
