import DeviceOracleJSON
import DeviceOracleRules

/// Answers one request of any ruleset (`D`): reads the request's members (the
/// ruleset's settings, the start, `observedFinal`), hands the log's elements to the
/// ruleset's steps (`D.Steps`) in either form, runs the static check, and hands the
/// answer to the writer. How steps are made is the description's choice: a ruleset
/// whose state is finite has them precomputed (`PrecomputedSteps`); refresh, whose
/// store is of any size, runs and writes each run (`RefreshSteps`).
struct EventLogDriver<D: RulesetDescription>: LogEvaluation {
    /// What an endpoint makes once, for all its requests.
    final class Shared: Sendable {
        /// `playback/1`.
        let ruleset: StaticString
        let topMembers: ClosedNames<RequestMember<D.Setting>>
        let observedFinalFields: ClosedNames<D.FinalField>
        let tables: D.Steps.Tables

        init(ruleset: StaticString, tables: D.Steps.Tables) {
            self.ruleset = ruleset
            topMembers = ClosedNames("member", [("initial", .initial), (D.sequence, .sequence), ("observedFinal", .observedFinal)]
                                     + D.Setting.allCases.map { ($0.name, .setting($0)) })
            observedFinalFields = ClosedNames(named: "observedFinal field")
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
                               observables: D.StepField.allCases.map(\.name)) { EventLogDriver(shared) }
    }

    typealias Head = LogHead<D, D.Steps.Start>

    var ruleset: StaticString { shared.ruleset }

    mutating func readHead(_ root: JSONValue, sequenceInLines: Bool, decoder: inout RequestDecoder) -> Head {
        let given = shared.topMembers.given(root, in: decoder.document)
        let settings = D.settings(given.settings, in: root,
                                  eventsGiven: sequenceInLines || decoder.present(given.sequence) != nil, &decoder)
        let start = steps.start(given, settings: settings, inLines: sequenceInLines, decoder: &decoder)
        let observedFinal = decoder.observed(given.observedFinal, names: shared.observedFinalFields)
        return Head(settings: settings, start: start, observedFinal: observedFinal, sequence: given.sequence)
    }

    mutating func runSequence(of head: inout Head, in root: JSONValue, decoder: inout RequestDecoder) {
        let sequence = D.eventsRequired
            ? decoder.required(head.sequence, of: .array, member: D.sequence, in: root)
            : decoder.value(head.sequence, of: .array)
        if let sequence { steps.walk(sequence, head: &head, decoder: &decoder) }
    }

    mutating func runElement(_ object: JSONValue, index: Int, head: inout Head, arrival: inout ArrivalOrder,
                             decoder: inout RequestDecoder) -> Bool {
        steps.runElement(object, index: index, head: &head, arrival: &arrival, decoder: &decoder)
    }

    func readObservedFinal(_ value: JSONValue, into head: inout Head, decoder: inout RequestDecoder) {
        head.observedFinal = decoder.observed(value, names: shared.observedFinalFields)
    }

    mutating func end(_ head: inout Head, observedFinalIn document: JSONDocument, head decoder: RequestDecoder)
        -> (answer: D.Steps.Answer, staticCheckPassed: Bool?) {
        let staticCheckPassed = D.check(&head.settings, decoder)
        return (steps.end(&head, observedFinalIn: document, head: decoder), staticCheckPassed)
    }

    func writeLastStep(index: Int, to writer: inout JSONWriter, document: JSONDocument) {
        steps.writeLastStep(index: index, to: &writer, document: document)
    }

    func lastStepValues() -> StepValues? { steps.lastStepValues() }
    mutating func takeFindings() -> (mismatches: MismatchList, diagnostics: [Diagnostic]) { steps.takeFindings() }
    var heldBytes: Int { steps.heldBytes }
    var startsUnknown: Bool { steps.startsUnknown }
    var reportedFindings: (findings: ListedFindings, carried: Bool)? { steps.reportedFindings }
    var reportedCandidate: Int? { steps.reportedCandidate }
    mutating func startAtCandidate(_ number: Int) { steps.startAtCandidate(number) }
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
    mutating func walk(_ sequence: JSONValue, head: inout LogHead<D, Start>, decoder: inout RequestDecoder)
    /// `LogEvaluation.runElement`.
    mutating func runElement(_ object: JSONValue, index: Int, head: inout LogHead<D, Start>,
                             arrival: inout ArrivalOrder, decoder: inout RequestDecoder) -> Bool
    func writeLastStep(index: Int, to writer: inout JSONWriter, document: JSONDocument)
    func lastStepValues() -> StepValues?
    /// Compares `observedFinal` (a value of `observedFinalIn`); the answer's parts around its envelope.
    mutating func end(_ head: inout LogHead<D, Start>, observedFinalIn document: JSONDocument,
                      head decoder: RequestDecoder) -> Answer
    mutating func takeFindings() -> (mismatches: MismatchList, diagnostics: [Diagnostic])
    /// `LogEvaluation.heldBytes`.
    var heldBytes: Int { get }
    var startsUnknown: Bool { get }
    var reportedFindings: (findings: ListedFindings, carried: Bool)? { get }
    var reportedCandidate: Int? { get }
    mutating func startAtCandidate(_ number: Int)
}

extension LogSteps {
    var startsUnknown: Bool { false }
    var reportedFindings: (findings: ListedFindings, carried: Bool)? { nil }
    var reportedCandidate: Int? { nil }
    mutating func startAtCandidate(_ number: Int) {}
}

/// What a request gave besides its sequence: read before its first element runs.
struct LogHead<D: RulesetDescription, Start> {
    var settings: D.Settings
    /// What the log starts from (its machines, and what a late start knows).
    var start: Start
    var observedFinal: ObservedFields<D.FinalField>?
    /// The JSON form's sequence member (`events`, `runs`).
    var sequence: JSONValue?
}
