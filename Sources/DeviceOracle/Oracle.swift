// Re-exported: a test that checks a log also drives the machines by hand.
@_exported import DeviceOracleRules
import DeviceOracleWire

/// A ruleset the oracle checks logs against, at the version the service serves.
public enum Ruleset: String, CaseIterable, Sendable {
    case playback = "playback/1"
    case haptics = "haptics/1"
    case refresh = "refresh/1"
    case audioSession = "audio-session/1"
}

/// The whole oracle in process: the same request the service takes, the same answer
/// and verdict, with no server. Pure: equal requests give equal results.
public enum Oracle {
    /// Checks one request — exactly the JSON body the ruleset's endpoint takes — and
    /// returns what the endpoint answers `200` with; throws what it answers `400` or
    /// `422` with.
    public static func check(_ ruleset: Ruleset, json: [UInt8]) throws(OracleProblem) -> OracleResult {
        switch endpoint(ruleset).answer(json) {
        case .success(let answer): return OracleResult(answer)
        case .failure(let rejection): throw OracleProblem(rejection)
        }
    }

    public static func check(_ ruleset: Ruleset, json: String) throws(OracleProblem) -> OracleResult {
        try check(ruleset, json: Array(json.utf8))
    }

    /// Checks one request in the NDJSON form (a head line, one event per line, an
    /// optional `observedFinal` line) and returns what the endpoint streams: `json` is
    /// its lines, one per step `steps` keeps, then the summary, whose mismatches and
    /// diagnostics (the first 10,000 of each) the result lists. A bad line, wherever
    /// it is, is thrown, with its `line`.
    public static func check(_ ruleset: Ruleset, ndjson: [UInt8], steps: StepSelection = .all) throws(OracleProblem) -> OracleResult {
        switch endpoint(ruleset).answerNDJSON(ndjson, detail: steps.detail) {
        case .success(let answer): return OracleResult(answer)
        case .failure(let rejection): throw OracleProblem(rejection)
        }
    }

    public static func check(_ ruleset: Ruleset, ndjson: String, steps: StepSelection = .all) throws(OracleProblem) -> OracleResult {
        try check(ruleset, ndjson: Array(ndjson.utf8), steps: steps)
    }

    /// Checks a unified-log capture (`log stream|show --style ndjson`, oslog.md): the
    /// records whose `category` (and `subsystem`, when given) match are the app's
    /// messages, each a line of the NDJSON form. The result is that form's answer with
    /// the log's accounting in its summary; its verdict is `inconclusive` when the
    /// evidence is known to be incomplete.
    public static func check(_ ruleset: Ruleset, oslog: [UInt8], category: String = "DeviceOracle",
                             subsystem: String? = nil, steps: StepSelection = .all) throws(OracleProblem) -> OracleResult {
        let selection = OSLogSelection(category: category, subsystem: subsystem)
        switch endpoint(ruleset).answerNDJSON(oslog, detail: steps.detail, oslog: selection) {
        case .success(let answer): return OracleResult(answer)
        case .failure(let rejection): throw OracleProblem(rejection)
        }
    }

    public static func check(_ ruleset: Ruleset, oslog: String, category: String = "DeviceOracle",
                             subsystem: String? = nil, steps: StepSelection = .all) throws(OracleProblem) -> OracleResult {
        try check(ruleset, oslog: Array(oslog.utf8), category: category, subsystem: subsystem, steps: steps)
    }

    private static func endpoint(_ ruleset: Ruleset) -> RulesetEndpoint {
        guard let endpoint = Rulesets.named(ruleset.rawValue) else {
            preconditionFailure("this build serves no \(ruleset.rawValue)")
        }
        return endpoint
    }
}

/// Which steps an NDJSON answer writes (the endpoint's `?steps=`).
public enum StepSelection: Sendable {
    /// Every step.
    case all
    /// Only the steps with a mismatch or a diagnostic.
    case failing
    /// None: the summary alone.
    case none

    var detail: StepDetail {
        switch self {
        case .all: .all
        case .failing: .failing
        case .none: .none
        }
    }
}

/// What the service answers a request with: the verdict, every mismatch and
/// diagnostic, and the answer's JSON text, byte for byte the service's.
public struct OracleResult: Sendable {
    public enum Verdict: String, Sendable {
        /// Everything the device observed is canonical.
        case pass
        /// At least one observed field differs (or a static check failed).
        case fail
        /// Nothing was observed, so nothing was compared.
        case unchecked
        /// A unified-log capture whose evidence is known to be incomplete (a message
        /// redacted, malformed or lost, or no element checked): never `pass`.
        case inconclusive
    }

    /// An observed field that differs from the canonical one.
    public struct Mismatch: Equatable, Sendable {
        /// The step, or `nil` for `observedFinal`.
        public let step: Int?
        /// The field; `final.`-prefixed for `observedFinal`.
        public let field: String
        /// The canonical value, as JSON text (`"play"`, `true`).
        public let expected: String
        /// What the device showed, as JSON text.
        public let observed: String
        public let detail: String?

        public init(step: Int?, field: String, expected: String, observed: String, detail: String? = nil) {
            self.step = step
            self.field = field
            self.expected = expected
            self.observed = observed
            self.detail = detail
        }
    }

    /// Something a person should look at that does not change the decision.
    public struct Diagnostic: Equatable, Sendable {
        /// The step, or `nil` for the whole request.
        public let step: Int?
        /// `warning` or `info`.
        public let severity: String
        public let code: String
        public let message: String
        /// A unified-log capture's own diagnostic: the record's line (from 1).
        public let line: Int?
    }

    public let verdict: Verdict
    public let mismatches: [Mismatch]
    public let diagnostics: [Diagnostic]
    /// The answer, exactly as the service sends it.
    public let json: String

    init(_ answer: RulesetAnswer) {
        self.init(verdict: answer.verdict, mismatches: answer.mismatches, diagnostics: answer.diagnostics, json: answer.json)
    }

    init(_ answer: NDJSONAnswer) {
        self.init(verdict: answer.verdict, mismatches: answer.mismatches, diagnostics: answer.diagnostics, json: answer.text)
    }

    private init(verdict: DeviceOracleWire.Verdict, mismatches: [AnswerMismatch], diagnostics: [AnswerDiagnostic],
                 json: [UInt8]) {
        self.verdict = switch verdict {
        case .pass: .pass
        case .fail: .fail
        case .unchecked: .unchecked
        case .inconclusive: .inconclusive
        }
        self.mismatches = mismatches.map {
            Mismatch(step: $0.step, field: $0.field, expected: $0.expected, observed: $0.observed, detail: $0.detail)
        }
        self.diagnostics = diagnostics.map {
            Diagnostic(step: $0.step, severity: $0.severity, code: $0.code, message: $0.message, line: $0.line)
        }
        self.json = String(decoding: json, as: UTF8.self)
    }

    /// One line per mismatch, for a failing test's message.
    public var mismatchReport: String {
        mismatches.map { mismatch in
            let place = mismatch.step.map { "step \($0)" } ?? "final"
            let detail = mismatch.detail.map { " (\($0))" } ?? ""
            return "\(place): \(mismatch.field) expected \(mismatch.expected), observed \(mismatch.observed)\(detail)"
        }.joined(separator: "\n")
    }
}

/// Why a request was refused, as the service's problem document says it: malformed
/// JSON (`400`) or a body that breaks the request schema (`422`), each problem with
/// the JSON Pointer of the value it is about.
public struct OracleProblem: Error, Sendable, CustomStringConvertible {
    public struct Problem: Equatable, Sendable {
        /// A JSON Pointer into the request (`/events/3/type`); for the NDJSON form,
        /// into the object of line `line`.
        public let pointer: String
        public let detail: String
        /// For the NDJSON form: the line (from 1).
        public let line: Int?
    }

    /// `400` or `422`, as the service would answer.
    public let status: Int
    /// The problem type URI (`/problems/invalid-request`).
    public let type: String
    public let title: String
    public let detail: String
    public let problems: [Problem]

    init(_ rejection: RequestRejection) {
        status = rejection.status
        type = rejection.problemType
        title = rejection.title
        detail = rejection.detail
        problems = rejection.problems.map { Problem(pointer: $0.pointer, detail: $0.detail, line: $0.line) }
    }

    public var description: String {
        ([title + ": " + detail] + problems.map { ($0.line.map { "line \($0) " } ?? "") + "\($0.pointer): \($0.detail)" })
            .joined(separator: "\n")
    }
}
