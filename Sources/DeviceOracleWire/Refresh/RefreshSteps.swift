import DeviceOracleJSON
@_spi(Engine) import DeviceOracleRules

private let observedFields = ClosedNames(observed: RefreshRuleset.stepFields, "observed field")
private let itemsField = RefreshRuleset.stepFields.firstIndex { $0.name == "items" }
private let finalItemsField = RefreshRuleset.finalFields.firstIndex { $0.name == "items" }
private let outcomeNames = QuotedNames<RefreshOutcome>()
private let actionNames = QuotedNames<RefreshAction>()

/// One run as decoded and applied; the steps are written from these once the
/// final store is known (the answer lists `final` before `steps`).
struct RunRecord: Sendable {
    var id: JSONValue?
    var at: Double
    var step: RefreshStep
    /// Indices into the rendered stores: a run that committed nothing shares its
    /// `after` with its `before`.
    var before: Int
    var after: Int
}

/// What the model routes read of a rendered store, beside its text.
struct StoreValues: Sendable {
    var cursor: String?
    var lastSuccessAt: Double?
    var isEmpty: Bool

    init(_ store: ServiceStore) {
        cursor = store.cursor
        lastSuccessAt = store.lastSuccessAt
        isEmpty = store.items.isEmpty
    }
}

/// What refresh writes of its answer: `configCheck` when a config was given,
/// `final`, the run steps, then `summary`.
struct RefreshAnswer: SteppedAnswer {
    let document: JSONDocument
    /// `nil` for the last step an NDJSON log keeps.
    let settings: RefreshRuleset.Settings?
    let records: [RunRecord]
    /// Each distinct store the steps show, rendered once.
    let storeTexts: [[UInt8]]
    /// Each rendered store's values, by the same index.
    let storeValues: [StoreValues]
    let summary: RefreshSummary

    var stepCount: Int { records.count }

    func values(ofStep index: Int) -> StepValues {
        let record = records[index], decision = record.step.decision, after = storeValues[record.after]
        var observed: [(name: String, value: FieldValue)] = []
        let outcome = RefreshRuleset.RunOutcome(decision: decision, after: after)
        for field in RefreshRuleset.stepFields {
            if let value = field.value(of: outcome) {
                observed.append((field.name, value))
            } else if after.isEmpty {
                // The store's items are objects: plain only when there are none.
                observed.append((field.name, .array([])))
            }
        }
        let firstAction = record.step.actions.array.first
        return StepValues(before: shownStore(record.before), event: nil,
                          canonicalObserved: observed,
                          run: RunValues(removesStaleTemp: firstAction == .removeStaleTemp, commits: decision.commits))
    }

    var finalState: ShownState { shownStore(records.last?.after ?? 0) }

    var heldBytes: Int {
        storeTexts.reduce(records.capacity * MemoryLayout<RunRecord>.stride) { $0 + $1.count }
    }

    private func shownStore(_ index: Int) -> ShownState {
        ShownState(store: storeTexts[index], lastSuccessAt: storeValues[index].lastSuccessAt)
    }

    var staticCheckFailures: [String] {
        settings.map { RefreshRuleset.staticCheckFailures($0, document: document) } ?? []
    }

    func writeHead(to writer: inout JSONWriter) {
        if let settings { RefreshRuleset.writeHead(settings, to: &writer, document: document) }
        writer.key("final")
        writer.raw(storeTexts[records.last?.after ?? 0])
    }

    func writeStep(_ index: Int, to writer: inout JSONWriter) { writeStep(index, index: index, to: &writer) }

    /// Writes the step of `records[position]`, whose index in the log is `index`.
    func writeStep(_ position: Int, index: Int, to writer: inout JSONWriter) {
        let record = records[position]
        let decision = record.step.decision
        writer.beginObject()
        writer.stepHead(index: index, id: record.id, document: document)
        writer.key("at")
        writer.number(record.at)
        writer.key("outcome")
        writer.raw(outcomeNames[decision.outcome])
        writer.key("taskCompleted")
        if let completed = decision.taskCompleted { writer.bool(completed) } else { writer.null() }
        writer.key("pagesCommitted")
        writer.integer(decision.pagesCommitted)
        writer.key("commits")
        writer.integer(decision.commits)
        writer.key("tempFilesLeft")
        writer.integer(decision.tempFilesLeft)
        writer.key("before")
        writer.raw(storeTexts[record.before])
        writer.key("after")
        writer.raw(storeTexts[record.after])
        writer.key("actions")
        writer.beginArray()
        record.step.actions.forEach { writer.raw(actionNames[$0]) }
        writer.endArray()
        writer.key("nextEarliestBeginAt")
        if let next = decision.nextEarliestBeginAt { writer.number(next) } else { writer.null() }
        writer.endObject()
    }

    func writeTail(to writer: inout JSONWriter) {
        writer.counts("summary", [("runs", summary.runs), ("commits", summary.commits),
                                  ("succeeded", summary.succeeded), ("failed", summary.failed),
                                  ("expired", summary.expired), ("crashed", summary.crashed)])
    }

}

/// Refresh's steps: the refresh job runs over a request's runs, and each distinct
/// store the steps show is rendered once. Nothing is precomputed: a run's pages go
/// into a store of any size, so the answer is bounded per run (`AnswerBudget`).
struct RefreshSteps: LogSteps {
    typealias D = RefreshRuleset
    typealias Start = RefreshMachine<StoredItem>
    typealias Head = LogHead<Self>

    var records: [RunRecord] = []
    /// Each distinct store the steps show, rendered once.
    var storeTexts: [[UInt8]] = []
    var storeValues: [StoreValues] = []
    var summary = RefreshSummary()
    var mismatches = MismatchList()
    var diagnostics: [Diagnostic] = []
    /// Both forms' answers are bounded alike: the JSON form's is held whole, and the
    /// NDJSON form's, written line by line, stops with a problem line where the JSON
    /// form's would have been refused.
    var budget = AnswerBudget(limit: AnswerBudget.refreshBytes)
    /// Set when the runs go on being read only to be validated.
    var validatesOnly = false
    /// The last run's pages, for the next run to be read into (`refreshRun(_:reusing:)`).
    var sparePages: [RefreshPage<StoredItem>] = []

    /// Nothing is made once for all requests.
    static func tables(ruleset: StaticString) {}

    init(tables: Void) {}

    /// The machine over the request's `store` (empty when none was given).
    mutating func start(_ given: GivenRequest<RefreshRuleset.Setting>, settings: RefreshRuleset.Settings,
                        inLines: Bool, decoder: inout RequestDecoder) -> RefreshMachine<StoredItem> {
        // Read only to refuse `"unknown"` (late-start.md): any other `initial` is an
        // unknown member, ignored as always.
        if let initial = decoder.present(given.initial), decoder.document.string(initial) == "unknown" {
            decoder.report("refresh/1's start includes a store and a config, so it cannot be \"unknown\": "
                           + "give 'store' and 'config' as the log found them", at: initial)
        }
        var store = ServiceStore()
        if let object = decoder.value(given.settings[.store], of: .object) {
            let given = decoder.refreshStore(object)
            store = given.store
            if !given.repeatedIDs.isEmpty {
                diagnostics.append(Diagnostic(index: nil, .duplicateIdInStore,
                                              message: "The starting store holds \(Self.ids(given.repeatedIDs)) more than once; the later item replaced the earlier at the earlier one's position."))
            }
        }
        storeTexts.append(store.json())
        storeValues.append(StoreValues(store))
        _ = budget.spend(storeTexts[0].count)
        return RefreshMachine(state: RefreshState(store: store), schedule: settings.schedule)
    }

    mutating func end(_ head: inout Head, observedFinal: ObservedFields<Int>?, in document: JSONDocument,
                      head decoder: RequestDecoder)
        -> RefreshAnswer {
        let store = head.start.state.store, commits = summary.commits
        compare(observedFinal, among: RefreshRuleset.finalFields,
                from: RefreshRuleset.FinalOutcome(store: StoreValues(store), commits: commits),
                items: finalItemsField, index: nil, prefix: "final.", store: store, document: document)
        return RefreshAnswer(document: decoder.document, settings: head.settings, records: records,
                             storeTexts: storeTexts, storeValues: storeValues, summary: summary)
    }

    mutating func walk(_ runs: JSONValue, head: inout Head, decoder: inout RequestDecoder) {
        let document = decoder.document
        records.reserveCapacity(document.count(runs))
        var arrival = ArrivalOrder()
        // Walked in place: finding the objects first cost a cache miss per run.
        for (index, element) in document.elements(runs).enumerated() where decoder.has(element, .object) {
            if runOne(element, index: index, on: &head.start, arrival: &arrival, decoder: &decoder) { continue }
            // Over budget. A later run that is not an object makes the request a 422 that
            // validates every run and runs none, as it does when that run comes first.
            let rest = document.elements(runs).dropFirst(index + 1)
            guard rest.contains(where: { document.kind($0) != .object }) else {
                decoder.report(Self.overBudget(budget), at: element)
                return
            }
            validatesOnly = true
        }
    }

    mutating func runElement(_ object: JSONValue, index: Int, in document: JSONDocument, head: inout Head,
                             arrival: inout ArrivalOrder, decoder: inout RequestDecoder) -> Bool {
        // What an NDJSON log keeps is the machine and the current store's text.
        records.removeAll(keepingCapacity: true)
        storeTexts.removeFirst(storeTexts.count - 1)
        storeValues.removeFirst(storeValues.count - 1)
        guard decoder.has(object, .object) else { return false }
        guard runOne(object, index: index, on: &head.start, arrival: &arrival, decoder: &decoder) else {
            // The answer so far passed the JSON form's cap: the stream ends here.
            decoder.report(Self.overBudget(budget), at: object)
            return false
        }
        return !decoder.hasProblems
    }

    /// The store's texts an NDJSON log keeps between lines, and the store they render.
    var heldBytes: Int { 2 * storeTexts.reduce(0) { $0 + $1.count } }

    func writeLastStep(index: Int, to writer: inout JSONWriter, document: JSONDocument) {
        lastAnswer(document: document).writeStep(records.count - 1, index: index, to: &writer)
    }

    func lastStepValues() -> StepValues? {
        records.isEmpty ? nil : lastAnswer(document: nil).values(ofStep: records.count - 1)
    }

    /// What is kept of an NDJSON log: its last run, over the stores it saw.
    private func lastAnswer(document: JSONDocument?) -> RefreshAnswer {
        RefreshAnswer(document: document ?? .emptyObject, settings: nil, records: records, storeTexts: storeTexts,
                      storeValues: storeValues, summary: summary)
    }

    mutating func takeFindings() -> (mismatches: MismatchList, diagnostics: [Diagnostic]) {
        DeviceOracleWire.takeFindings(&mismatches, &diagnostics)
    }

    /// Reads and applies run `index`; after a problem it only validates. False when
    /// the answer would outgrow its budget: the caller reports that and reads no further.
    mutating func runOne(_ object: JSONValue, index: Int, on machine: inout RefreshMachine<StoredItem>,
                         arrival: inout ArrivalOrder, decoder: inout RequestDecoder) -> Bool {
        let document = decoder.document
        let read = decoder.refreshRun(object, reusing: &sparePages), envelope = read.envelope
        let observed = decoder.observed(envelope.observed, names: observedFields)
        // Keep validating after a problem, but stop running: the answer is a 422.
        guard let run = read.run, !decoder.hasProblems, !validatesOnly else { return true }

        if arrival.isOutOfOrder(run.at) { diagnostics.append(Diagnostic(index: index, .outOfOrder)) }
        // The last rendered store is always the machine's current one.
        let before = storeTexts.count - 1
        let step = machine.decide(run), decision = step.decision
        summary.count(decision)
        for diagnostic in decision.diagnostics { diagnostics.append(Self.diagnostic(diagnostic, index: index, at: run.at)) }
        // A run that committed nothing left the store as it was.
        if decision.commits > 0 {
            storeTexts.append(machine.state.store.json())
            storeValues.append(StoreValues(machine.state.store))
        }
        let after = storeTexts.count - 1
        records.append(RunRecord(id: envelope.id, at: run.at, step: step, before: before, after: after))

        compare(observed, among: RefreshRuleset.stepFields,
                from: RefreshRuleset.RunOutcome(decision: decision, after: StoreValues(machine.state.store)),
                items: itemsField, index: index, prefix: "", store: machine.state.store, document: document)
        // Ours alone once `read` and `run` end with this call.
        sparePages = run.pages
        return budget.spend(storeTexts[before].count + storeTexts[after].count)
    }

    static func overBudget(_ budget: AnswerBudget) -> String {
        "the answer would exceed \(budget.limitDescription): every step repeats the store before and after its run; send fewer runs or a smaller store per request"
    }

    /// Compares field by field in the order `observed` names them, each read from
    /// `source` (made only when something was observed); `items` as a set
    /// (`ObservedItems`), every other field through the shared comparison, which also
    /// records that an observation was carried (`{}` included).
    mutating func compare<Source>(_ observed: ObservedFields<Int>?, among fields: [ObservedField<RefreshRuleset, Source>],
                                  from source: @autoclosure () -> Source, items: Int?, index: Int?, prefix: String,
                                  store: ServiceStore, document: JSONDocument) {
        guard let observed else { return }
        let source = source()
        let canonical = { (position: Int) in fields[position].value(of: source) }
        var start = 0
        for (position, entry) in observed.entries.enumerated() where entry.field == items {
            mismatches.compare(ObservedFields(entries: Array(observed.entries[start..<position])), index: index,
                               prefix: prefix, document: document, name: { fields[$0].name }, canonical: canonical)
            if let items = ObservedItems(entry.value, store: store, index: index, field: prefix + "items",
                                         document: document) {
                mismatches.append(items.mismatch)
                // Checked together with the step's stores, right after.
                _ = budget.spend(items.expectedBytes)
            }
            start = position + 1
        }
        mismatches.compare(ObservedFields(entries: Array(observed.entries[start...])), index: index, prefix: prefix,
                           document: document, name: { fields[$0].name }, canonical: canonical)
    }

    static func diagnostic(_ diagnostic: RefreshDiagnostic, index: Int, at: Double) -> Diagnostic {
        switch diagnostic {
        case .ranBeforeEarliestBegin(let earliestBeginAt):
            Diagnostic(index: index, .ranBeforeEarliestBegin,
                       message: "This run started at \(canonicalText(at)), before the earliest begin time \(canonicalText(earliestBeginAt)) the app had requested; BGTaskScheduler never starts a task that early.")
        case .duplicateIdInPage(let page, let ids):
            Diagnostic(index: index, .duplicateIdInPage,
                       message: "Page \(page) holds \(Self.ids(ids)) more than once; the later item replaced the earlier at the earlier one's position.")
        }
    }

    /// "the id '42'", "the ids '42', '43'".
    static func ids(_ ids: [String]) -> String {
        (ids.count == 1 ? "the id " : "the ids ") + ids.map { "'\($0)'" }.joined(separator: ", ")
    }
}
