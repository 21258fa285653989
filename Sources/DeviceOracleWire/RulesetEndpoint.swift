import DeviceOracleJSON

/// The verdict of an answer; also sent as the `Oracle-Verdict` header.
public enum Verdict: String, Sendable {
    case pass, fail, unchecked
    /// The unified-log form only: the evidence is known to be incomplete (oslog.md).
    case inconclusive
}

/// A `200` answer of a ruleset endpoint: its verdict and its JSON text, written
/// whole (`json`) or in pieces as it is sent (`pieces()`); the bytes are the same.
public struct RulesetAnswer: Sendable {
    public let verdict: Verdict
    let text: AnswerText

    init(verdict: Verdict, text: AnswerText) {
        self.verdict = verdict
        self.text = text
    }

    /// The whole answer.
    public var json: [UInt8] { text.bytes }

    /// How many steps the answer lists: its size grows with them.
    public var stepCount: Int { text.listedCount }

    /// The same answer listing only the steps `detail` keeps (`?steps=`); with
    /// `.all` it is this answer, byte for byte.
    public func listing(_ detail: StepDetail) -> RulesetAnswer {
        var text = text
        text.listing = StepListing(detail, mismatches: text.envelope.mismatches, diagnostics: text.envelope.diagnostics)
        return RulesetAnswer(verdict: verdict, text: text)
    }

    /// The answer in pieces, for sending a long one without holding it whole.
    public func pieces() -> AnswerPieces { AnswerPieces(text) }

    /// What the answer holds until it has been written, in bytes (about): the request
    /// as parsed, and what its steps are written from (refresh's stores among them).
    public var heldBytes: Int { text.heldBytes }
}

/// Why a request body was refused: malformed JSON (`400`) or a body that breaks
/// the request schema (`422`). The HTTP glue turns it into problem+json.
public struct RequestRejection: Error, Sendable {
    public enum Kind: Sendable {
        /// Not JSON, empty, or nested too deep: `400 /problems/invalid-json`.
        case invalidJSON
        /// Well-formed JSON that breaks the schema: `422 /problems/invalid-request`.
        case invalidRequest
        /// A valid log with no mismatch, sent to be reproduced: `422 /problems/nothing-to-reproduce`.
        case nothingToReproduce
        /// A query the body makes impossible (`?steps=all` with `"initial": "unknown"`
        /// in a streamed form): `400 /problems/invalid-query`.
        case invalidQuery
    }

    public struct Problem: Sendable, Equatable {
        /// RFC 6901 JSON Pointer into the request body (into its line's object, for NDJSON).
        public let pointer: String
        public let detail: String
        /// For an NDJSON body: the 1-based line the problem is in.
        public internal(set) var line: Int?

        public init(pointer: String, detail: String) {
            self.pointer = pointer
            self.detail = detail
        }
    }

    /// Where malformed JSON went wrong.
    public struct Position: Sendable, Equatable {
        public let offset: Int
        public let line: Int
        public let column: Int
    }

    public let kind: Kind
    /// One sentence for the problem's `detail`.
    public let detail: String
    /// For `invalidRequest`: the problems listed (at most 50), in document order.
    public private(set) var problems: [Problem]
    /// For `invalidJSON` caused by a syntax error.
    public private(set) var position: Position?
    /// How many problems there were; `problems` lists the first 50.
    var problemCount: Int
    /// For an NDJSON body: the 1-based line at fault (streaming.md); its problems
    /// carry it too, and `position` is within that line.
    public private(set) var line: Int?

    /// The same rejection, of line `number` of an NDJSON body. Malformed JSON gets
    /// its one problem listed too, so every problem of a line has a pointer.
    func on(line number: Int) -> RequestRejection {
        var rejection = self
        rejection.line = number
        if problems.isEmpty { rejection.problems = [Problem(pointer: "", detail: detail)] }
        for index in rejection.problems.indices { rejection.problems[index].line = number }
        if let position { rejection.position = Position(offset: position.offset, line: number, column: position.column) }
        return rejection
    }

    /// The RFC 9457 problem `type` (http.md, "Problem types").
    public var problemType: String {
        switch kind {
        case .invalidJSON: "/problems/invalid-json"
        case .invalidQuery: "/problems/invalid-query"
        case .invalidRequest: "/problems/invalid-request"
        case .nothingToReproduce: "/problems/nothing-to-reproduce"
        }
    }

    public var title: String {
        switch kind {
        case .invalidJSON: "Invalid JSON"
        case .invalidQuery: "Invalid query"
        case .invalidRequest: "Invalid request"
        case .nothingToReproduce: "Nothing to reproduce"
        }
    }

    public var status: Int {
        switch kind {
        case .invalidJSON, .invalidQuery: 400
        case .invalidRequest, .nothingToReproduce: 422
        }
    }

    public init(kind: Kind, detail: String, problems: [Problem] = [], position: Position? = nil) {
        self.kind = kind
        self.detail = detail
        self.problems = problems
        self.position = position
        problemCount = problems.count
    }
}

/// One ruleset endpoint as the server and the CLI see it: a path and a pure
/// function from request body bytes to an answer, and the ruleset's state model
/// (plans, diagrams, coverage of device logs).
public struct RulesetEndpoint: Sendable {
    /// The ruleset and its version: `playback/1`.
    public let name: String
    let staticName: StaticString
    /// `/playback/apply`.
    public let path: String
    /// One line for `GET /rulesets`.
    public let summary: String
    /// The versions a request may pin in its `ruleset` member.
    private let served: [StaticString]
    /// Decodes and runs a request (an object whose pin has been checked).
    let run: @Sendable (inout RequestDecoder, JSONValue) -> RulesetAnswer?
    let model: RulesetModel
    /// The top-level members of its JSON body other than the sequence (`events`,
    /// `runs`): what the head line of an NDJSON body may name.
    let headMembers: Set<String>
    /// The member that holds the sequence: `events` or `runs`.
    let sequence: String
    /// What a step's `observed` may name.
    let observables: [String]
    /// Makes the ruleset's side of one NDJSON request.
    let stream: @Sendable () -> LineStream

    /// `run` decodes and runs a request object, reporting its problems to the decoder;
    /// `topMembers` are the members `run` reads, `sequence` among them.
    init(name: StaticString, path: String, summary: String, model: RulesetModel, topMembers: [String], sequence: String,
         observables: [String],
         stream: @escaping @Sendable () -> LineStream,
         run: @escaping @Sendable (inout RequestDecoder, JSONValue) -> RulesetAnswer?) {
        self.name = "\(name)"
        staticName = name
        self.path = path
        self.summary = summary
        served = [name]
        self.model = model
        headMembers = Set(topMembers + ["ruleset"]).subtracting([sequence])
        self.sequence = sequence
        self.observables = observables
        self.stream = stream
        self.run = run
    }

    /// Answers a request body. Pure: equal bodies give byte-identical answers.
    public func answer(_ body: [UInt8]) -> Result<RulesetAnswer, RequestRejection> {
        RequestBody.answer(body, served: served, run: run)
    }

    /// Answers a request that is a value inside a parsed document — a log of a
    /// coverage request, a case of a batch — exactly as if it had been the body;
    /// its problems point into that document (`/cases/3/request/events/0/type`),
    /// through `pointer`, the pointer to the request.
    func answer(_ request: JSONValue, at pointer: String, in document: JSONDocument) -> Result<RulesetAnswer, RequestRejection> {
        RequestBody.answer(request, at: pointer, in: document, served: served, run: run)
    }

    /// The ruleset's name without the version: `playback` for `playback/1` (what
    /// `check` and the model routes take for its newest version).
    public var shortName: Substring { name.prefix { $0 != "/" } }

    /// The version: `1` for `playback/1`; `nil` for a name not of that form.
    public var version: Int? {
        guard let slash = name.firstIndex(of: "/") else { return nil }
        return Int(name[name.index(after: slash)...]).flatMap { $0 > 0 ? $0 : nil }
    }
}

/// The ruleset registry of this build: one line per ruleset version. `GET /rulesets`,
/// the routes, `check`, the metrics' labels and `device-oracle rulesets` (which CI,
/// bench/ and the viewer read) all come from here.
public enum Rulesets {
    /// Every version this build serves, in the order `GET /rulesets` lists their paths.
    public static let all: [RulesetEndpoint] = [
        PlaybackRuleset.endpoint,
        HapticsRuleset.endpoint,
        RefreshRuleset.endpoint,
        AudioSessionRuleset.endpoint,
    ]

    /// `all`, grouped by path. The executable builds it at startup (`RulesetRegistry.init`
    /// throws on a conflict and the service does not start); a test asserts it builds.
    public static let registry: RulesetRegistry = {
        do {
            return try RulesetRegistry(all)
        } catch {
            preconditionFailure("the ruleset registry: \(error)")
        }
    }()

    /// The version named `playback/1`, or the newest of `playback`.
    public static func named(_ name: String) -> RulesetEndpoint? {
        registry.named(name)
    }
}
