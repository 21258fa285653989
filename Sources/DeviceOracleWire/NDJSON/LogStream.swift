import DeviceOracleJSON

/// One ruleset's side of an NDJSON request (streaming.md): its head, then each
/// element as its line arrives, then its end. `NDJSONCheck`, the form's one
/// implementation, drives it. It feeds the lines to the ruleset's `EventLogDriver`,
/// the same readers, rules and writers as its JSON form, so the two forms' answers
/// are the same bytes.
struct LogStream<D: RulesetDescription> {
    private(set) var evaluation: EventLogDriver<D>
    private var head: EventLogDriver<D>.Head!
    /// The decoder of the head line, whose document the static checks read.
    private var headDecoder: RequestDecoder!
    private var arrival = ArrivalOrder()

    init(_ evaluation: EventLogDriver<D>) {
        self.evaluation = evaluation
    }

    /// Reads the head (`{}` when the body has none), reporting its problems. The body's
    /// lines are the sequence, given even when there are none (`"events": []`).
    mutating func begin(_ head: JSONValue, decoder: inout RequestDecoder) {
        self.head = evaluation.readHead(head, sequenceInLines: true, decoder: &decoder)
        headDecoder = decoder
    }

    /// Reads and runs element `index`, the object of a line of its own (of `document`,
    /// the decoder's, lent by the caller that holds it), forgetting the step before
    /// (written already); false when it has a problem (reported to `decoder`).
    mutating func element(_ object: JSONValue, index: Int, in document: JSONDocument, decoder: inout RequestDecoder) -> Bool {
        evaluation.runElement(object, index: index, in: document, head: &head, arrival: &arrival, decoder: &decoder)
    }

    /// Writes the step `element` just ran, as the JSON form's `steps` lists it.
    func writeStep(index: Int, to writer: inout JSONWriter, document: JSONDocument) {
        evaluation.writeLastStep(index: index, to: &writer, document: document)
    }

    /// Runs a log with `"initial": "unknown"` from candidate `number` (`EventLogDriver`).
    mutating func startAtCandidate(_ number: Int) { evaluation.startAtCandidate(number) }

    /// The step `element` just ran, as values.
    func lastStepValues() -> StepValues? { evaluation.lastStepValues() }

    /// The mismatches and diagnostics found since the last call; nil when there were
    /// none (most lines of a long log: no lists handed over and let go).
    mutating func takeFindings() -> (mismatches: MismatchList, diagnostics: [Diagnostic])? {
        evaluation.hasFindings ? evaluation.takeFindings() : nil
    }

    /// Hands the mismatches and diagnostics found since the last call to `body`, then
    /// forgets them; nil, without a call, when there were none (most lines of a long log).
    mutating func withFindings<R>(_ body: (MismatchList, [Diagnostic]) -> R) -> R? {
        evaluation.hasFindings ? evaluation.withFindings(body) : nil
    }

    /// What the evaluation holds between lines (`EventLogDriver.heldBytes`).
    var heldBytes: Int { evaluation.heldBytes }

    /// The tail line's `observedFinal`, reporting its problems.
    mutating func readObservedFinal(_ value: JSONValue, decoder: inout RequestDecoder) {
        evaluation.readObservedFinal(value, into: &head, decoder: &decoder)
    }

    /// Compares `observedFinal` (a value of `observedFinalIn`: the tail's document, or
    /// the head's) and runs the static checks: the answer's members but its steps
    /// (whose findings `takeFindings` then hands over).
    mutating func end(observedFinalIn document: JSONDocument) -> (answer: any SteppedAnswer, staticCheckPassed: Bool?) {
        let end = evaluation.end(&head, observedFinalIn: document, head: headDecoder)
        return (end.answer, end.staticCheckPassed)
    }

    /// Makes streams of this type as `LineStream`s, whose calls are closures made
    /// here: called where the ruleset is known, they are specialized for it, where the
    /// witnesses of a generic stream would run generic code that looks up metadata on
    /// every line.
    static func lines(_ make: @escaping @Sendable () -> EventLogDriver<D>) -> @Sendable () -> LineStream {
        { LineStream(Box(LogStream(make()))) }
    }
}

/// The one stream of a request, behind closures (`LogStream.lines`).
final class Box<D: RulesetDescription> {
    // Used by one request's calls, one at a time: the runtime's access tracking
    // showed in profiles of a long log.
    @exclusivity(unchecked) var stream: LogStream<D>

    init(_ stream: LogStream<D>) {
        self.stream = stream
    }
}

/// A `LogStream` whose type is erased into closures, each specialized.
struct LineStream {
    let begin: (JSONValue, inout RequestDecoder) -> Void
    let element: (JSONValue, Int, JSONDocument, inout RequestDecoder) -> Bool
    let writeStep: (Int, inout JSONWriter, JSONDocument) -> Void
    let lastStepValues: () -> StepValues?
    let takeFindings: () -> (mismatches: MismatchList, diagnostics: [Diagnostic])?
    /// `LogStream.withFindings`, for a body that says whether the step was failing.
    let absorbFindings: ((MismatchList, [Diagnostic]) -> Bool) -> Bool?
    let readObservedFinal: (JSONValue, inout RequestDecoder) -> Void
    let end: (JSONDocument) -> (answer: any SteppedAnswer, staticCheckPassed: Bool?)
    let heldBytes: () -> Int
    let startsUnknown: () -> Bool
    let reportedFindings: () -> (findings: ListedFindings, carried: Bool)?
    let reportedCandidate: () -> Int?
    let startAtCandidate: (Int) -> Void

    init<D>(_ box: Box<D>) {
        begin = { box.stream.begin($0, decoder: &$1) }
        element = { box.stream.element($0, index: $1, in: $2, decoder: &$3) }
        writeStep = { box.stream.writeStep(index: $0, to: &$1, document: $2) }
        lastStepValues = { box.stream.lastStepValues() }
        takeFindings = { box.stream.takeFindings() }
        absorbFindings = { box.stream.withFindings($0) }
        readObservedFinal = { box.stream.readObservedFinal($0, decoder: &$1) }
        end = { box.stream.end(observedFinalIn: $0) }
        heldBytes = { box.stream.heldBytes }
        startsUnknown = { box.stream.evaluation.startsUnknown }
        reportedFindings = { box.stream.evaluation.reportedFindings }
        reportedCandidate = { box.stream.evaluation.reportedCandidate }
        startAtCandidate = { box.stream.startAtCandidate($0) }
    }
}

extension LineStream {
    /// The stream of the version of `versions` a body's head pins (the newest when it
    /// pins none): `begin` picks it, and every later call goes to it. Only a path that
    /// serves several versions pays for the choice; one version's stream is called
    /// directly (`RulesetVersions.stream()`).
    init(choosingAmong versions: RulesetVersions) {
        final class Chosen {
            var stream: LineStream
            var forcedCandidate: Int?
            init(_ stream: LineStream) { self.stream = stream }
        }
        let chosen = Chosen(versions.newest.stream())
        begin = { head, decoder in
            let pinned = versions.version(pinnedIn: head, in: decoder.document)
            if pinned.name != versions.newest.name {
                chosen.stream = pinned.stream()
                if let forced = chosen.forcedCandidate { chosen.stream.startAtCandidate(forced) }
            }
            chosen.stream.begin(head, &decoder)
        }
        element = { chosen.stream.element($0, $1, $2, &$3) }
        writeStep = { chosen.stream.writeStep($0, &$1, $2) }
        lastStepValues = { chosen.stream.lastStepValues() }
        takeFindings = { chosen.stream.takeFindings() }
        absorbFindings = { chosen.stream.absorbFindings($0) }
        readObservedFinal = { chosen.stream.readObservedFinal($0, &$1) }
        end = { chosen.stream.end($0) }
        heldBytes = { chosen.stream.heldBytes() }
        startsUnknown = { chosen.stream.startsUnknown() }
        reportedFindings = { chosen.stream.reportedFindings() }
        reportedCandidate = { chosen.stream.reportedCandidate() }
        // Said before `begin`, so the version `begin` picks hears it too.
        startAtCandidate = { number in
            chosen.forcedCandidate = number
            chosen.stream.startAtCandidate(number)
        }
    }
}
