import DeviceOracleHTTP
import DeviceOracleJSON
import DeviceOracleWire

/// The service's routes: health, the OpenAPI document, the ruleset list, and one POST
/// route per ruleset endpoint.
enum ServiceRoutes {
    static func all() -> [Route] {
        var routes = [
            Route(path: "/healthz", methods: [.GET]) { _ in
                .json(200, Array(#"{"status":"ok"}"#.utf8))
            },
            Route(path: "/openapi.yaml", methods: [.GET]) { _ in
                HTTPResponse(status: 200, contentType: "application/yaml", body: PackageResources.openapi_yaml)
            },
        ]
        let rulesetList = rulesetsDocument()
        routes.append(Route(path: "/rulesets", methods: [.GET]) { _ in .json(200, rulesetList) })
        for endpoint in Rulesets.all {
            routes.append(Route(path: endpoint.path, methods: [.POST], body: .json) { request in
                response(to: endpoint.answer(request.body))
            })
        }
        return routes
    }

    /// `{"rulesets":[{"name","path","summary"},...]}`, built once.
    static func rulesetsDocument() -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("rulesets")
        writer.beginArray()
        for endpoint in Rulesets.all {
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

    static func response(to answer: Result<RulesetAnswer, RequestRejection>) -> HTTPResponse {
        switch answer {
        case .success(let answer):
            let verdict = answer.verdict.rawValue
            return .json(200, answer.json, headers: [("Oracle-Verdict", verdict)], logFields: [("verdict", verdict)])
        case .failure(let rejection):
            return problem(for: rejection).response
        }
    }
}

/// The problem document for a refused request body: `400 /problems/invalid-json` (with
/// offset, line and column when the JSON syntax is at fault) or `422
/// /problems/invalid-request` with every problem's pointer. `check` prints the same.
func problem(for rejection: RequestRejection) -> ProblemDetails {
    switch rejection.kind {
    case .invalidJSON:
        var extra: [(String, Int)] = []
        if let position = rejection.position {
            extra = [("offset", position.offset), ("line", position.line), ("column", position.column)]
        }
        return ProblemDetails(type: "/problems/invalid-json", title: "Invalid JSON", status: 400,
                              detail: rejection.detail, extraIntegers: extra)
    case .invalidRequest:
        return ProblemDetails(type: "/problems/invalid-request", title: "Invalid request", status: 422,
                              detail: rejection.detail,
                              errors: rejection.problems.map { ProblemDetails.FieldError(pointer: $0.pointer, detail: $0.detail) })
    }
}
