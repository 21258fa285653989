import DeviceOracleJSON

/// Many requests, each for its ruleset, checked at once (`POST /check`,
/// `device-oracle check --junit`): every case's answer or why its request was
/// refused, with totals — as JSON or as a JUnit report.
public struct CheckReport: Sendable {
    struct Case: Sendable {
        let name: String
        /// The ruleset's versioned name, or the name as given when none matched.
        let ruleset: String
        let outcome: Outcome
    }

    enum Outcome: Sendable {
        case answered(AnsweredCase)
        /// The request (or its ruleset name) was refused: a JUnit error.
        case refused(RequestRejection)
    }

    /// What the report keeps of an answer: its verdict, its text (for the JSON report)
    /// and what failed (for the JUnit report). Never the answer itself, whose steps and
    /// stores a batch of many cases would hold all at once.
    struct AnsweredCase: Sendable {
        let verdict: Verdict
        let json: [UInt8]
        let failure: Failure?

        init(_ answer: RulesetAnswer) {
            verdict = answer.verdict
            json = answer.json
            failure = answer.verdict == .fail ? Failure(answer) : nil
        }
    }

    public struct Totals: Sendable, Equatable {
        public var cases = 0
        public var passed = 0
        public var failed = 0
        public var unchecked = 0
        /// Cases answered `inconclusive` (only the unified-log form answers it, which a
        /// batch does not take: listed only when there are any).
        public var inconclusive = 0
        /// Cases whose request was refused.
        public var errors = 0
    }

    let cases: [Case]
    public let totals: Totals
    /// `fail` when a case failed or was refused, else `pass` when one passed, else `unchecked`.
    public let verdict: Verdict

    init(cases: [Case]) {
        self.cases = cases
        var totals = Totals()
        for entry in cases {
            totals.cases += 1
            switch entry.outcome {
            case .answered(let answer):
                switch answer.verdict {
                case .pass: totals.passed += 1
                case .fail: totals.failed += 1
                case .unchecked: totals.unchecked += 1
                case .inconclusive: totals.inconclusive += 1
                }
            case .refused: totals.errors += 1
            }
        }
        self.totals = totals
        verdict = Verdict(combining: cases.map { entry in
            if case .answered(let answer) = entry.outcome { answer.verdict } else { .fail }
        })
    }

    /// `{"verdict", "totals", "cases": [{"name", "ruleset", "verdict", "answer" | "problem"}]}`.
    public var json: [UInt8] {
        var writer = JSONWriter(capacity: 1 << 16)
        writer.beginObject()
        writer.key("verdict")
        writer.string(escaping: verdict.rawValue)
        writer.key("totals")
        writer.beginObject()
        for (name, count) in [("cases", totals.cases), ("passed", totals.passed), ("failed", totals.failed),
                              ("unchecked", totals.unchecked), ("errors", totals.errors)] {
            writer.key(escaping: name)
            writer.integer(count)
        }
        if totals.inconclusive > 0 {
            writer.key("inconclusive")
            writer.integer(totals.inconclusive)
        }
        writer.endObject()
        writer.key("cases")
        writer.beginArray()
        for entry in cases {
            writer.beginObject()
            writer.key("name")
            writer.string(escaping: entry.name)
            writer.key("ruleset")
            writer.string(escaping: entry.ruleset)
            switch entry.outcome {
            case .answered(let answer):
                writer.key("verdict")
                writer.string(escaping: answer.verdict.rawValue)
                writer.key("answer")
                writer.raw(answer.json)
            case .refused(let rejection):
                writer.key("verdict")
                writer.string("error")
                writer.key("problem")
                writer.problem(rejection)
            }
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return writer.finish()
    }

    /// A one-line summary for a terminal: "3 cases: 1 passed, 1 failed, 0 unchecked, 1 error".
    public var summary: String {
        let errors = totals.errors == 1 ? "1 error" : "\(totals.errors) errors"
        return "\(totals.cases) \(totals.cases == 1 ? "case" : "cases"): \(totals.passed) passed, \(totals.failed) failed, "
            + "\(totals.unchecked) unchecked, \(errors)"
    }
}

extension JSONWriter {
    /// The RFC 9457 problem document a refused request gets on its own.
    mutating func problem(_ rejection: RequestRejection) {
        beginObject()
        key("type")
        string(escaping: rejection.problemType)
        key("title")
        string(escaping: rejection.title)
        key("status")
        integer(rejection.status)
        key("detail")
        string(escaping: rejection.detail)
        // Members in the order the server writes a problem: position, then errors.
        if let position = rejection.position {
            for (name, value) in [("offset", position.offset), ("line", position.line), ("column", position.column)] {
                key(escaping: name)
                integer(value)
            }
        }
        if rejection.kind == .invalidRequest {
            key("errors")
            beginArray()
            for problem in rejection.problems {
                beginObject()
                key("pointer")
                string(escaping: problem.pointer)
                key("detail")
                string(escaping: problem.detail)
                endObject()
            }
            endArray()
        }
        endObject()
    }
}
