import DeviceOracleJSON
import DeviceOracleRules

/// Answers one request of any ruleset (`D`): reads the request's members (the
/// ruleset's settings, the start, `observedFinal`), hands the log's elements to the
/// ruleset's steps (`D.Steps`), runs the static check, and hands the answer to the
/// writer. How steps are made is the description's choice: a ruleset whose state is
/// finite has them precomputed (`PrecomputedSteps`); refresh, whose store is of any
/// size, runs and writes each run (`RefreshSteps`).
///
/// A log comes in two forms, a JSON body and NDJSON lines (streaming.md); everything
/// the two forms share is written once, here, over these steps:
///
/// 1. `readHead`: the request's members but its sequence;
/// 2. `runSequence` (JSON) or `runElement` per line (NDJSON, then `writeLastStep`);
/// 3. `end`: `observedFinal` compared, the static checks run, the answer's parts.
struct EventLogDriver<D: RulesetDescription> {
    /// What an endpoint makes once, for all its requests.
    final class Shared: Sendable {
        /// `playback/1`.
        let ruleset: StaticString
        let topMembers: ClosedNames<RequestMember<D.Setting>>
        /// What `observedFinal` may name, by position in `D.finalFields`.
        let observedFinalFields: ClosedNames<Int>
        let tables: D.Steps.Tables

        init(ruleset: StaticString, tables: D.Steps.Tables) {
            self.ruleset = ruleset
            topMembers = ClosedNames("member", [("initial", .initial), (D.sequence, .sequence), ("observedFinal", .observedFinal)]
                                     + D.Setting.allCases.map { ($0.name, .setting($0)) })
            observedFinalFields = ClosedNames("observedFinal field", D.finalFieldNames.enumerated().map { ($1, $0) })
            self.tables = tables
        }
    }

    let shared: Shared
    private var steps: D.Steps

    init(_ shared: Shared) {
        self.shared = shared
        steps = D.Steps(tables: shared.tables)
    }

    /// The endpoint that answers `name` (`playback/1`) with this driver; what it shares
    /// (the precomputed tables) is made with it, once.
    static func endpoint(_ name: StaticString, path: String, summary: String, model: RulesetModel) -> RulesetEndpoint {
        let shared = Shared(ruleset: name, tables: D.Steps.tables(ruleset: name))
        return RulesetEndpoint(name: name, path: path, summary: summary, model: model,
                               topMembers: shared.topMembers.spellings, sequence: D.sequence,
                               observables: D.observables) { EventLogDriver(shared) }
    }

    typealias Head = LogHead<D.Steps>

    /// The ruleset the answer names: `playback/1`.
    var ruleset: StaticString { shared.ruleset }

    /// Reads the request's members other than its sequence: the JSON form's sequence
    /// member is kept in the head; with `sequenceInLines`, the lines of an NDJSON body
    /// are the sequence (given, even when there are none).
    mutating func readHead(_ root: JSONValue, sequenceInLines: Bool, decoder: inout RequestDecoder) -> Head {
        let given = shared.topMembers.given(root, in: decoder.document)
        let settings = D.settings(given.settings, in: root,
                                  eventsGiven: sequenceInLines || decoder.present(given.sequence) != nil, &decoder)
        let start = steps.start(given, settings: settings, inLines: sequenceInLines, decoder: &decoder)
        let observedFinal = decoder.observedObject(given.observedFinal, names: shared.observedFinalFields)
        return Head(settings: settings, start: start, observedFinal: observedFinal, sequence: given.sequence)
    }

    /// Reads and runs the JSON form's sequence (`head`'s), reporting its problems.
    mutating func runSequence(of head: inout Head, in root: JSONValue, decoder: inout RequestDecoder) {
        let sequence = D.eventsRequired
            ? decoder.required(head.sequence, of: .array, member: D.sequence, in: root)
            : decoder.value(head.sequence, of: .array)
        if let sequence { steps.walk(sequence, head: &head, decoder: &decoder) }
    }

    /// Reads and runs element `index` of an NDJSON log, an object of a line of its own
    /// (of `document`, the decoder's: a copy of it per line was a retain and a release),
    /// forgetting the step before (written already). False when it has a problem
    /// (reported to `decoder`).
    mutating func runElement(_ object: JSONValue, index: Int, in document: JSONDocument, head: inout Head,
                             arrival: inout ArrivalOrder, decoder: inout RequestDecoder) -> Bool {
        steps.runElement(object, index: index, in: document, head: &head, arrival: &arrival, decoder: &decoder)
    }

    /// Reads the NDJSON tail line's `observedFinal` into `head`.
    func readObservedFinal(_ value: JSONValue, into head: inout Head, decoder: inout RequestDecoder) {
        head.observedFinal = decoder.observedObject(value, names: shared.observedFinalFields)
    }

    /// The sequence has run: compares `observedFinal` (a value of `observedFinalIn`) and
    /// runs the static checks (on the head, read by `head`); the answer's parts around
    /// its envelope.
    mutating func end(_ head: inout Head, observedFinalIn document: JSONDocument, head decoder: RequestDecoder)
        -> (answer: D.Steps.Answer, staticCheckPassed: Bool?) {
        let staticCheckPassed = D.check(&head.settings, decoder)
        let observedFinal = head.observedFinal.map { ObservedFields($0, names: shared.observedFinalFields, in: document) }
        return (steps.end(&head, observedFinal: observedFinal, in: document, head: decoder), staticCheckPassed)
    }

    /// Writes the step `runElement` just ran, as the JSON form's `steps` lists it.
    func writeLastStep(index: Int, to writer: inout JSONWriter, document: JSONDocument) {
        steps.writeLastStep(index: index, to: &writer, document: document)
    }

    /// The step `runElement` just ran, as values.
    func lastStepValues() -> StepValues? { steps.lastStepValues() }
    /// Hands over the mismatches and diagnostics found since the last call.
    mutating func takeFindings() -> (mismatches: MismatchList, diagnostics: [Diagnostic]) { steps.takeFindings() }
    /// Hands the mismatches and diagnostics found since the last call to `body`, then
    /// forgets them (`LogSteps.withFindings`).
    mutating func withFindings<R>(_ body: (MismatchList, [Diagnostic]) -> R) -> R { steps.withFindings(body) }
    /// Whether `takeFindings` has anything to hand over (false may be said only when it has not).
    var hasFindings: Bool { steps.hasFindings }
    /// What an NDJSON log holds between lines beyond its fixed parts (refresh: its
    /// store), counted in the memory budget.
    var heldBytes: Int { steps.heldBytes }
    /// Whether the head said `"initial": "unknown"` (late-start.md): the NDJSON form
    /// then writes no step lines.
    var startsUnknown: Bool { steps.startsUnknown }
    /// After `end` of an NDJSON log with `"initial": "unknown"`: the reported path's
    /// findings, which stand for the elements' (`takeFindings` gave none of theirs).
    var reportedFindings: (findings: ListedFindings, carried: Bool)? { steps.reportedFindings }
    /// After `end` of a log with `"initial": "unknown"`: the reported candidate's number.
    var reportedCandidate: Int? { steps.reportedCandidate }
    /// A log with `"initial": "unknown"` is to be run from candidate `number`, as if its
    /// state were given (a repro's second reading of an NDJSON log); said before `readHead`.
    mutating func startAtCandidate(_ number: Int) { steps.startAtCandidate(number) }
}

extension EventLogDriver {
    /// Answers the JSON form: the whole log in one document; `nil` when the request
    /// has problems (reported to `decoder`). Consuming: a driver answers one request.
    consuming func answer(_ root: JSONValue, decoder: inout RequestDecoder) -> RulesetAnswer? {
        var head = readHead(root, sequenceInLines: false, decoder: &decoder)
        runSequence(of: &head, in: root, decoder: &decoder)
        guard !decoder.hasProblems else { return nil }
        let (stepped, staticCheckPassed) = end(&head, observedFinalIn: decoder.document, head: decoder)
        let findings = takeFindings()
        let envelope = AnswerEnvelope(ruleset: ruleset,
                                      verdict: Verdict(mismatches: findings.mismatches, staticCheckPassed: staticCheckPassed),
                                      mismatches: findings.mismatches.entries, diagnostics: findings.diagnostics)
        // Moved into the answer: a copy retained each of its members, and freed none.
        return envelope.answer(consume stepped)
    }
}

extension RulesetEndpoint {
    /// The endpoint whose requests `evaluation` answers, one new driver per request,
    /// in both forms.
    init<D>(name: StaticString, path: String, summary: String, model: RulesetModel,
                                    topMembers: [String], sequence: String, observables: [String],
                                    evaluation: @escaping @Sendable () -> EventLogDriver<D>) {
        self.init(name: name, path: path, summary: summary, model: model, topMembers: topMembers, sequence: sequence,
                  observables: observables, stream: LogStream.lines(evaluation)) { decoder, root in
            evaluation().answer(root, decoder: &decoder)
        }
    }
}

/// How a ruleset's steps are made, run and written: what `EventLogDriver` hands a
/// log's start and elements to. Each ruleset's kind of state has one: a finite state's
/// steps are precomputed once per process (`PrecomputedSteps`); refresh's store, of
/// any size, is run and rendered step by step (`RefreshSteps`).
protocol LogSteps {
    associatedtype D: RulesetDescription
    /// What an endpoint makes once per process for all its requests (the tables).
    associatedtype Tables: Sendable
    /// What a log starts from, read from the request's head.
    associatedtype Start
    associatedtype Answer: SteppedAnswer

    static func tables(ruleset: StaticString) -> Tables
    init(tables: Tables)
    /// Reads the request's start (`initial`, and for refresh its `store`), reporting its problems.
    mutating func start(_ given: GivenRequest<D.Setting>, settings: D.Settings, inLines: Bool,
                        decoder: inout RequestDecoder) -> Start
    /// Reads and runs the JSON form's sequence.
    mutating func walk(_ sequence: JSONValue, head: inout LogHead<Self>, decoder: inout RequestDecoder)
    /// `EventLogDriver.runElement`.
    mutating func runElement(_ object: JSONValue, index: Int, in document: JSONDocument, head: inout LogHead<Self>,
                             arrival: inout ArrivalOrder, decoder: inout RequestDecoder) -> Bool
    func writeLastStep(index: Int, to writer: inout JSONWriter, document: JSONDocument)
    func lastStepValues() -> StepValues?
    /// Compares `observedFinal` (values of `document`); the answer's parts around its envelope.
    mutating func end(_ head: inout LogHead<Self>, observedFinal: ObservedFields<Int>?, in document: JSONDocument,
                      head decoder: RequestDecoder) -> Answer
    mutating func takeFindings() -> (mismatches: MismatchList, diagnostics: [Diagnostic])
    /// Hands the mismatches and diagnostics found since the last call to `body`, then
    /// forgets them: a stream's lines read them where they are, and the lists keep their
    /// memory for the next line (taken, a line's diagnostics were a list allocated,
    /// grown and freed).
    mutating func withFindings<R>(_ body: (MismatchList, [Diagnostic]) -> R) -> R
    /// `EventLogDriver.hasFindings`.
    var hasFindings: Bool { get }
    /// `EventLogDriver.heldBytes`.
    var heldBytes: Int { get }
    var startsUnknown: Bool { get }
    var reportedFindings: (findings: ListedFindings, carried: Bool)? { get }
    var reportedCandidate: Int? { get }
    mutating func startAtCandidate(_ number: Int)
}

extension LogSteps {
    mutating func withFindings<R>(_ body: (MismatchList, [Diagnostic]) -> R) -> R {
        let taken = takeFindings()
        return body(taken.mismatches, taken.diagnostics)
    }

    var hasFindings: Bool { true }
    var startsUnknown: Bool { false }
    var reportedFindings: (findings: ListedFindings, carried: Bool)? { nil }
    var reportedCandidate: Int? { nil }
    mutating func startAtCandidate(_ number: Int) {}
}

/// What a request gave besides its sequence: read before its first element runs.
struct LogHead<Steps: LogSteps> {
    var settings: Steps.D.Settings
    /// What the log starts from (its machines, and what a late start knows).
    var start: Steps.Start
    /// By position in `D.finalFields`.
    /// Its checked object, in the document `end` is given: a handle, so a head whose
    /// settings and start hold no reference holds none (the generic destroy of one that
    /// did cost ~130 instructions a request).
    var observedFinal: JSONValue?
    /// The JSON form's sequence member (`events`, `runs`).
    var sequence: JSONValue?
}
