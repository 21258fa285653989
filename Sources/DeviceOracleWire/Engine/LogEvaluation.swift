import DeviceOracleJSON

/// What answers one request of a ruleset whose sequence is a log: the driver
/// (`EventLogDriver`), over every ruleset's description. A log comes in two forms, a
/// JSON body and NDJSON lines (streaming.md); everything the two forms share is
/// written once, here, over these steps:
///
/// 1. `readHead`: the request's members but its sequence;
/// 2. `runSequence` (JSON) or `runElement` per line (NDJSON, then `writeLastStep`);
/// 3. `end`: `observedFinal` compared, the static checks run, the answer's parts.
///
/// `SendableMetatype`: an endpoint makes one per request in a `@Sendable` closure,
/// on whichever thread the request runs.
protocol LogEvaluation: SendableMetatype {
    /// What a request gave besides its sequence, read before its first element runs.
    associatedtype Head
    associatedtype Stepped: SteppedAnswer

    /// The ruleset the answer names: `playback/1`.
    var ruleset: StaticString { get }

    /// Reads the request's members other than its sequence: the JSON form's sequence
    /// member is kept in the head; with `sequenceInLines`, the lines of an NDJSON body
    /// are the sequence (given, even when there are none).
    mutating func readHead(_ root: JSONValue, sequenceInLines: Bool, decoder: inout RequestDecoder) -> Head
    /// Reads and runs the JSON form's sequence (`head`'s), reporting its problems.
    mutating func runSequence(of head: inout Head, in root: JSONValue, decoder: inout RequestDecoder)
    /// Reads and runs element `index` of an NDJSON log, an object of a line of its own,
    /// forgetting the step before (written already). False when it has a problem
    /// (reported to `decoder`).
    mutating func runElement(_ object: JSONValue, index: Int, head: inout Head, arrival: inout ArrivalOrder,
                             decoder: inout RequestDecoder) -> Bool
    /// Writes the step `runElement` just ran, as the JSON form's `steps` lists it.
    func writeLastStep(index: Int, to writer: inout JSONWriter, document: JSONDocument)
    /// The step `runElement` just ran, as values.
    func lastStepValues() -> StepValues?
    /// Reads the NDJSON tail line's `observedFinal` into `head`.
    func readObservedFinal(_ value: JSONValue, into head: inout Head, decoder: inout RequestDecoder)
    /// The sequence has run: compares `observedFinal` (a value of `observedFinalIn`) and
    /// runs the static checks (on the head, read by `head`); the answer's parts around
    /// its envelope.
    mutating func end(_ head: inout Head, observedFinalIn document: JSONDocument, head decoder: RequestDecoder)
        -> (answer: Stepped, staticCheckPassed: Bool?)
    /// Hands over the mismatches and diagnostics found since the last call.
    mutating func takeFindings() -> (mismatches: MismatchList, diagnostics: [Diagnostic])
    /// What an NDJSON log's evaluation holds between lines beyond its fixed parts (refresh:
    /// its store), counted in the memory budget.
    var heldBytes: Int { get }
    /// Whether the head said `"initial": "unknown"` (late-start.md): the NDJSON form
    /// then writes no step lines.
    var startsUnknown: Bool { get }
    /// After `end` of an NDJSON log with `"initial": "unknown"`: the reported path's
    /// findings, which stand for the elements' (`takeFindings` gave none of theirs).
    var reportedFindings: (findings: ListedFindings, carried: Bool)? { get }
    /// After `end` of a log with `"initial": "unknown"`: the reported candidate's number.
    var reportedCandidate: Int? { get }
    /// A log with `"initial": "unknown"` is to be run from candidate `number`, as if its
    /// state were given (a repro's second reading of an NDJSON log); said before `readHead`.
    mutating func startAtCandidate(_ number: Int)
}

extension LogEvaluation {
    /// Answers the JSON form: the whole log in one document; `nil` when the request
    /// has problems (reported to `decoder`).
    mutating func answer(_ root: JSONValue, decoder: inout RequestDecoder) -> RulesetAnswer? {
        var head = readHead(root, sequenceInLines: false, decoder: &decoder)
        runSequence(of: &head, in: root, decoder: &decoder)
        guard !decoder.hasProblems else { return nil }
        let stepped = end(&head, observedFinalIn: decoder.document, head: decoder)
        let findings = takeFindings()
        let envelope = AnswerEnvelope(ruleset: ruleset,
                                      verdict: Verdict(mismatches: findings.mismatches,
                                                       staticCheckPassed: stepped.staticCheckPassed),
                                      mismatches: findings.mismatches.entries, diagnostics: findings.diagnostics)
        return envelope.answer(stepped.answer, document: decoder.document)
    }
}

extension RulesetEndpoint {
    /// The endpoint whose requests `evaluation` answers, one new evaluation per request,
    /// in both forms.
    init<Evaluation: LogEvaluation>(name: StaticString, path: String, summary: String, model: RulesetModel,
                                    topMembers: [String], sequence: String, observables: [String],
                                    evaluation: @escaping @Sendable () -> Evaluation) {
        self.init(name: name, path: path, summary: summary, model: model, topMembers: topMembers, sequence: sequence,
                  observables: observables, stream: LogStream.lines(evaluation)) { decoder, root in
            var answering = evaluation()
            return answering.answer(root, decoder: &decoder)
        }
    }
}
