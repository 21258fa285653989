import DeviceOracleJSON

/// `POST /check` and `device-oracle check --junit`: many requests, each for its
/// ruleset, checked at once.
public enum BatchCheck {
    /// `{"cases": [{"name", "ruleset", "request"}, ...]}`. The batch's own shape
    /// is checked first: breaking it is a `422` for the whole body. Then each
    /// case's request is answered by its ruleset (`playback` or `playback/1`); a
    /// case whose request is refused, or whose ruleset this build does not serve,
    /// is an error case — one bad log never hides the other results. Its problems
    /// point into the batch (`/cases/3/request/events/0/type`).
    ///
    /// The JSON report holds every case's answer: it is refused (`422`) when their
    /// text would exceed `reportBytes` (64 MiB), as a refresh answer is.
    public static func answer(_ body: [UInt8]) -> Result<CheckReport, RequestRejection> {
        answer(body, reportBytes: reportBytes)
    }

    static func answer(_ body: [UInt8], reportBytes: Int) -> Result<CheckReport, RequestRejection> {
        let document: JSONDocument, given: [GivenCase]
        switch RequestBody.object(body, members: batchMembers, read: readCases) {
        case .success(let read): (given, document) = read
        case .failure(let rejection): return .failure(rejection)
        }

        var budget = AnswerBudget(limit: reportBytes)
        var cases: [CheckReport.Case] = []
        cases.reserveCapacity(given.count)
        for entry in given {
            let name = document.string(entry.name) ?? ""
            let pointer = "/cases/\(entry.index)"
            switch rulesetNames.match(entry.ruleset, in: document) {
            case let endpoint?:
                let outcome = outcome(endpoint.answer(entry.request, at: pointer + "/request", in: document))
                if case .answered(let answered) = outcome, !budget.spend(answered.json.count) {
                    var decoder = RequestDecoder(document: document)
                    decoder.report("the report would exceed \(budget.limitDescription) with this case's answer: "
                                   + "send fewer cases, or cases with shorter answers", at: entry.request)
                    return .failure(decoder.rejection() ?? RequestRejection(kind: .invalidRequest, detail: "the report is too large"))
                }
                cases.append(CheckReport.Case(name: name, ruleset: endpoint.name, outcome: outcome))
            case nil:
                let given = document.string(entry.ruleset) ?? ""
                cases.append(CheckReport.Case(name: name, ruleset: given,
                                              outcome: .refused(unknownRuleset(entry.ruleset, at: pointer + "/ruleset",
                                                                               in: document, names: rulesetNames))))
            }
        }
        return .success(CheckReport(cases: cases))
    }

    /// The most a JSON report's answers may hold.
    static let reportBytes = AnswerBudget.refreshBytes

    /// One case per file, named by its path. A file is a request body that names
    /// its ruleset in its top-level `ruleset` — the versioned name, which the
    /// ruleset then checks like any pinned request. A file that is not such a
    /// request is an error case.
    public static func report(files: [(name: String, body: [UInt8])]) -> CheckReport {
        CheckReport(cases: files.map { file in
            let document: JSONDocument
            switch RequestBody.parse(file.body) {
            case .success(let parsed): document = parsed
            case .failure(let rejection): return CheckReport.Case(name: file.name, ruleset: "", outcome: .refused(rejection))
            }
            var decoder = RequestDecoder(document: document)
            let root = document.root
            guard decoder.requireObject(root),
                  let ruleset = decoder.required(document.member(root, "ruleset"), of: .string, member: "ruleset",
                                                 in: root) else {
                return CheckReport.Case(name: file.name, ruleset: "", outcome: .refused(decoder.rejection()!))
            }
            guard let endpoint = versionedNames.match(ruleset, in: document) else {
                return CheckReport.Case(name: file.name, ruleset: document.string(ruleset) ?? "",
                                        outcome: .refused(unknownRuleset(ruleset, at: "/ruleset", in: document,
                                                                         names: versionedNames)))
            }
            return CheckReport.Case(name: file.name, ruleset: endpoint.name,
                                    outcome: outcome(endpoint.answer(root, at: "", in: document)))
        })
    }

    /// Every case's name, ruleset and request, once each is where it must be.
    private static func readCases(_ decoder: inout RequestDecoder,
                                  _ given: [BatchMember: JSONValue]) -> [GivenCase] {
        guard let cases = decoder.required(given[.cases], of: .array, member: "cases", in: decoder.document.root) else {
            return []
        }
        var read: [GivenCase] = []
        for (index, object) in decoder.document.elements(cases).enumerated() where decoder.has(object, .object) {
            var members: [CaseMember: JSONValue] = [:]
            decoder.closedObject(object, names: caseMembers) { _, member, value in members[member] = value }
            let name = decoder.required(members[.name], of: .string, member: "name", in: object)
            let ruleset = decoder.required(members[.ruleset], of: .string, member: "ruleset", in: object)
            let request = decoder.required(members[.request], of: .object, member: "request", in: object)
            if let name, let ruleset, let request { read.append((index, name, ruleset, request)) }
        }
        return read
    }

    private static func outcome(_ result: Result<RulesetAnswer, RequestRejection>) -> CheckReport.Outcome {
        switch result {
        case .success(let answer): .answered(CheckReport.AnsweredCase(answer))
        case .failure(let rejection): .refused(rejection)
        }
    }

    private static func unknownRuleset(_ value: JSONValue, at pointer: String, in document: JSONDocument,
                                       names: ClosedNames<RulesetEndpoint>) -> RequestRejection {
        var decoder = RequestDecoder(document: document, scope: value, at: pointer)
        decoder.report(names.unknownNameDetail(document.string(value) ?? ""), at: value)
        return decoder.rejection() ?? RequestRejection(kind: .invalidRequest, detail: "unknown ruleset")
    }

    /// A case as the batch gives it (its position in `cases`), its members where they must be.
    private typealias GivenCase = (index: Int, name: JSONValue, ruleset: JSONValue, request: JSONValue)

    private enum BatchMember: String, CaseIterable, Sendable {
        case cases
    }

    private enum CaseMember: String, CaseIterable, Sendable {
        case name, ruleset, request
    }

    private static let batchMembers = ClosedNames<BatchMember>("member")
    private static let caseMembers = ClosedNames<CaseMember>("case member")
    private static let versionedNames = ClosedNames("ruleset", Rulesets.registry.all.map { ($0.name, $0) })
    /// As `check <ruleset>` takes them: versioned or short.
    private static let rulesetNames = ClosedNames("ruleset", Rulesets.registry.acceptedNames)
}
