import DeviceOracleJSON

/// Answers one NDJSON request of a ruleset endpoint as its bytes arrive
/// (streaming.md): splits the body into lines, tells the head, the elements and the
/// tail apart, runs each element through the ruleset's stream, and writes a line
/// per listed step, then the summary — or, after a bad line, the problem line. The
/// one implementation of the form: the HTTP route and `check --ndjson` both feed it.
/// Holds one line, the head's document and the ruleset's state; never the log.
public final class NDJSONCheck {
    /// What a call decided.
    public enum Progress {
        /// Read on. `completedLine`: the bytes completed a line (a slow producer's
        /// budget is per line).
        case more(completedLine: Bool)
        /// The answer begins (`200`, NDJSON): `output` holds its first bytes. When the
        /// same call had more to say (the answer's end), `receive` with no bytes says it.
        case begin
        /// Before the answer has begun: the request is refused; read no further.
        case rejected(RequestRejection)
        /// The answer is complete; `verdict` is the trailer's (`pass`, `fail`,
        /// `unchecked`, or `invalid` after a problem line: then read no further).
        case end(verdict: String)
    }

    /// When set (the HTTP route: the connection's high-water mark), `receive` stops
    /// between two lines once the answer bytes it wrote in one call reach this many,
    /// leaving the rest of its bytes (`unread`) to be given again. Unset, it takes
    /// every line of its bytes.
    public var pausesAtOutputBytes = Int.max
    /// After a call that returned `more` or `begin`, or the call with no bytes right
    /// after `begin`: how many bytes at the end of the last non-empty bytes given were
    /// not taken (0 unless `pausesAtOutputBytes` stopped it). Give them again, first.
    public private(set) var unread = 0

    /// The longest line, unless told otherwise (`--max-line-bytes`).
    public static let defaultMaxLineBytes = 1 << 20

    /// `invalid`: the trailer verdict of a stream a problem ended.
    public static let invalidVerdict = "invalid"

    /// The versions served at the endpoint's path; the head line's `ruleset` pin picks one.
    private let versions: RulesetVersions
    /// The version that answers: the newest until the head is read.
    private var endpoint: RulesetEndpoint
    private var detail: StepDetail
    /// Whether `detail` was asked for (`?steps=`), not the default.
    private let detailGiven: Bool
    /// The problem+json object of a rejection, as the service writes it everywhere.
    private let problemJSON: (RequestRejection) -> [UInt8]
    // One request's, called one at a time: unchecked, as the runtime's access
    // tracking showed in profiles of a long log.
    @exclusivity(unchecked) private var lines: NDJSONLines
    /// Parses each line into the last line's memory when nothing kept that line.
    @exclusivity(unchecked) private var reader = JSONLineReader()
    @exclusivity(unchecked) private var layout: NDJSONLayout
    private let stream: LineStream
    @exclusivity(unchecked) private var findings = StreamedFindings()
    @exclusivity(unchecked) private var writer = JSONWriter(capacity: 1 << 16)
    /// The head line until the answer begins.
    private var head: NDJSONLayout.Line?
    private var tail: NDJSONLayout.Line?
    @exclusivity(unchecked) private var phase = Phase.awaitingHead {
        didSet {
            switch phase {
            case .awaitingHead: (isReading, isStreaming) = (true, false)
            case .streaming: (isReading, isStreaming) = (true, true)
            case .ended, .done: (isReading, isStreaming) = (false, false)
            }
        }
    }
    /// Whether lines are still read (no problem, no end yet), and whether the answer
    /// has begun and not ended: `phase` as flags, asked several times a line, where
    /// matching `phase` (whose `ended` carries a rejection) cost ~30 instructions a line.
    @exclusivity(unchecked) private var isReading = true
    @exclusivity(unchecked) private var isStreaming = false
    private var awaitsHead: Bool { isReading && !isStreaming }
    /// The answer began in this call: `take` says `begin` before anything else.
    private var beganNow = false
    private var sawLine = false
    @exclusivity(unchecked) private var stepCount = 0
    /// Whether to keep what a repro reads (`firstStepValues`, `divergence`).
    private let keepsFirstMismatch: Bool
    /// The first element's step, as values (kept when asked).
    private(set) var firstStepValues: StepValues?
    /// The first mismatch, with what a repro reads of it (kept when asked): what a repro
    /// reads of a log it never holds whole.
    private(set) var divergence: KeptDivergence?
    /// The last element's step while no mismatch was found: where a divergence of
    /// `observedFinal` is reproduced.
    private var lastStep: KeptDivergence.Step?
    /// The last element, not yet handed to `noteElementBeforeMismatch`: it is noted
    /// once another follows, so a divergence at the last step has the prelude of the
    /// elements before it alone.
    private var unnotedLine: NDJSONLayout.Line?
    /// Called with each element before the one a divergence is decided at (a repro's prelude).
    var noteElementBeforeMismatch: ((JSONValue, JSONDocument) -> Void)?

    private enum Phase {
        case awaitingHead
        case streaming
        /// Ended in this call, before or after the answer began; said once.
        case ended(Progress)
        case done
    }

    /// Checks a body by the one version `endpoint`; `oslog`: the body is a unified-log
    /// capture (oslog.md), whose selected messages are this form's lines.
    public convenience init(endpoint: RulesetEndpoint, detail: StepDetail, detailGiven: Bool = false, maxLineBytes: Int,
                            oslog: OSLogSelection? = nil, problemJSON: @escaping (RequestRejection) -> [UInt8]) {
        self.init(versions: RulesetVersions(newestFirst: [endpoint]), detail: detail, detailGiven: detailGiven,
                  maxLineBytes: maxLineBytes, oslog: oslog, problemJSON: problemJSON)
    }

    /// Checks a body by the version of `versions` its head line pins (the newest when none).
    public convenience init(versions: RulesetVersions, detail: StepDetail, detailGiven: Bool = false, maxLineBytes: Int,
                            oslog: OSLogSelection? = nil, problemJSON: @escaping (RequestRejection) -> [UInt8]) {
        self.init(versions: versions, detail: detail, detailGiven: detailGiven, maxLineBytes: maxLineBytes,
                  keepsFirstMismatch: false, oslog: oslog, problemJSON: problemJSON)
    }

    convenience init(endpoint: RulesetEndpoint, detail: StepDetail, detailGiven: Bool = false, maxLineBytes: Int,
                     keepsFirstMismatch: Bool, oslog: OSLogSelection? = nil,
                     problemJSON: @escaping (RequestRejection) -> [UInt8]) {
        self.init(versions: RulesetVersions(newestFirst: [endpoint]), detail: detail, detailGiven: detailGiven,
                  maxLineBytes: maxLineBytes, keepsFirstMismatch: keepsFirstMismatch, oslog: oslog, problemJSON: problemJSON)
    }

    init(versions: RulesetVersions, detail: StepDetail, detailGiven: Bool = false, maxLineBytes: Int,
         keepsFirstMismatch: Bool, oslog: OSLogSelection? = nil, problemJSON: @escaping (RequestRejection) -> [UInt8]) {
        self.versions = versions
        endpoint = versions.newest
        self.detail = detail
        self.detailGiven = detailGiven
        self.keepsFirstMismatch = keepsFirstMismatch
        self.problemJSON = problemJSON
        lines = NDJSONLines(maxLineBytes: maxLineBytes)
        layout = NDJSONLayout(headMembers: versions.headMembers, tailWinsOverHead: oslog != nil)
        input = oslog.map { OSLogInput(selection: $0, headMembers: versions.headMembers) }
        readsCapture = oslog != nil
        atInSeconds = versions.newest.shortName == "refresh"
        stream = versions.stream()
    }

    /// The unified-log form's input stage, when the body is a capture.
    @exclusivity(unchecked) private var input: OSLogInput?
    /// Whether `input` is set: asked each line, where matching the optional was an outlined call.
    private let readsCapture: Bool
    /// Whether an element's `at` is in seconds (refresh's runs) rather than milliseconds.
    private let atInSeconds: Bool

    /// The next bytes of the body; answer bytes are appended to `output`.
    public func receive(_ bytes: UnsafeRawBufferPointer, output: inout [UInt8]) -> Progress {
        guard bytes.count > 0, isReading else { return take(completedLine: false, output: &output) }
        unread = 0
        var index = 0, completed = false
        while isReading, let element = lines.next(bytes, from: &index) {
            completed = true
            read(element)
            if writer.byteCount >= pausesAtOutputBytes, index < bytes.count, isReading {
                // Output under backpressure: the rest waits until this has gone.
                unread = bytes.count - index
                break
            }
        }
        return take(completedLine: completed, output: &output)
    }

    /// What this check holds now beyond its fixed parts: the line being read, the head
    /// line, what the ruleset built (refresh's store) and the summary's lists.
    public var heldBytes: Int {
        func size(_ line: NDJSONLayout.Line?) -> Int {
            line.map { $0.document.heldBytes } ?? 0
        }
        return lines.heldBytes + reader.heldBytes + (input?.heldBytes ?? 0) + layout.heldBytes + size(head) + size(tail) + stream.heldBytes() + findings.heldBytes
            + writer.allocatedByteCount
    }

    /// The server ends the stream (a line slower than the minimum rate, a timeout, the
    /// memory budget): once the answer has begun, its last line is `{"problem":
    /// <problemJSON>}` and the verdict `invalid`, as after a bad line. Nil before the
    /// answer began or after it ended (the caller answers or closes as it would).
    public func cut(problemJSON: [UInt8], output: inout [UInt8]) -> Progress? {
        guard case .streaming = phase else { return nil }
        beganNow = false
        unread = 0
        writeProblemLine(problemJSON)
        return take(completedLine: false, output: &output)
    }

    /// The body has ended.
    public func finish(output: inout [UInt8]) -> Progress {
        if isReading {
            for element in lines.finish() {
                guard isReading else { break }
                switch element {
                case .line(let number, let bytes): bytes.withUnsafeBytes { read(.line(number: number, bytes: $0)) }
                case .tooLong(let number): read(.tooLong(number: number))
                }
            }
        }
        if isReading {
            for (line, role) in layout.end() {
                guard isReading else { break }
                place(line, role)
            }
        }
        if case .awaitingHead = phase { begin() }
        if case .streaming = phase { end() }
        return take(completedLine: true, output: &output)
    }

    /// What this call decided, and the bytes it wrote.
    private func take(completedLine completed: Bool, output: inout [UInt8]) -> Progress {
        writer.move(into: &output)
        switch phase {
        case .awaitingHead:
            return .more(completedLine: completed)
        case .streaming:
            if beganNow {
                beganNow = false
                return .begin
            }
            return .more(completedLine: completed)
        case .ended(let progress):
            if beganNow, case .end = progress {
                beganNow = false
                return .begin
            }
            phase = .done
            return progress
        case .done:
            return .more(completedLine: false)
        }
    }

    private func read(_ element: NDJSONLines.Piece) {
        switch element {
        case .tooLong(let number):
            fail(line: number, RequestRejection(kind: .invalidRequest, detail: "line \(number) is longer than \(lines.maxLineBytes) bytes (--max-line-bytes)",
                                                problems: [.init(pointer: "", detail: "the line is longer than \(lines.maxLineBytes) bytes")]))
        case .line(let number, let bytes) where readsCapture:
            guard let outcome = input?.read(number: number, bytes: bytes, diagnose: { findings.absorbLog($0) }) else { return }
            switch outcome {
            case .skip:
                break
            case .headLine(let document):
                layout.headLine(NDJSONLayout.Line(number: number, document: document)) { line, role in
                    if isReading { place(line, role) }
                }
            case .message(let document, let fill):
                layout.next(NDJSONLayout.Line(number: number, document: document, fill: fill)) { line, role in
                    if isReading { place(line, role) }
                }
            }
        case .line(let number, let bytes):
            let document: JSONDocument
            do {
                document = try reader.lend(bytes)
            } catch {
                return fail(line: number, RequestBody.rejection(error, inLine: number))
            }
            if !sawLine, !readsCapture {
                // Neither a head nor an element: the request as a whole is not NDJSON of objects.
                sawLine = true
                var decoder = RequestDecoder(document: document)
                guard decoder.requireObject(document.root) else { return fail(line: number, decoder.rejection()!) }
            }
            let line = NDJSONLayout.Line(number: number, document: consume document)
            layout.next(line) { line, role in
                if isReading { place(line, role) }
            }
            // The line's memory, for the next line unless the layout or a repro holds it.
            reader.giveBack((consume line).document)
        }
    }

    /// Acts on one line whose role is known.
    private func place(_ line: NDJSONLayout.Line, _ role: NDJSONLayout.Role) {
        switch role {
        case .head:
            head = line
        case .element(let index):
            if awaitsHead { begin() }
            guard isStreaming else { return }
            run(line, index: index)
        case .tail(let repeatsHead):
            if awaitsHead { begin() }
            guard isStreaming else { return }
            tail = line
            if repeatsHead {
                var decoder = RequestDecoder(document: line.document)
                decoder.report("'observedFinal' is given by the head line already; give it once", at: line.document.root)
                fail(line: line.number, decoder.rejection()!)
            }
        case .secondHead:
            var decoder = RequestDecoder(document: line.document)
            decoder.report("the body's first line gave the head already; a message that names only head members "
                           + "cannot be an element: give the head once", at: line.document.root)
            fail(line: line.number, decoder.rejection()!)
        }
    }

    /// The head is known: reads it; the answer begins, or the request is refused.
    private func begin() {
        let line = head ?? NDJSONLayout.Line(number: 1, document: Self.emptyHead)
        var decoder = RequestDecoder(document: line.document)
        if decoder.requireObject(line.document.root) {
            versions.checkPinnedRuleset(line.document.root, decoder: &decoder)
            // The stream follows the same pin (`RulesetVersions.stream()`).
            endpoint = versions.version(pinnedIn: line.document.root, in: line.document)
            stream.begin(line.document.root, &decoder)
        }
        if let rejection = decoder.rejection() {
            phase = .ended(.rejected(rejection.on(line: line.number)))
            return
        }
        if stream.startsUnknown() {
            // late-start.md: the reported path is known only at the end.
            if detailGiven, detail != .none {
                phase = .ended(.rejected(RequestRejection(kind: .invalidQuery, detail:
                    "'steps=\(detail.rawValue)' cannot be streamed with \"initial\": \"unknown\": the path the steps "
                        + "would show is known only at the end of the log; leave 'steps' out or give 'steps=none'")))
                return
            }
            detail = .none
        }
        head = line
        absorbFindings(document: line.document)
        phase = .streaming
        beganNow = true
    }

    private static let emptyHead = JSONDocument.emptyObject

    /// The head line's document (`{}` for a body without one), once the answer began.
    var headDocument: JSONDocument { head?.document ?? Self.emptyHead }

    private func run(_ line: NDJSONLayout.Line, index: Int) {
        if let fill = line.fill {
            // Run as the filled-in line (no copy of `line` for the rest: a retain and release a line).
            return run(NDJSONLayout.Line(number: line.number, document: OSLogInput.filled(line.document, fill, atInSeconds: atInSeconds)),
                       index: index)
        }
        var decoder = RequestDecoder(document: line.document)
        guard stream.element(line.document.root, index, line.document, &decoder) else {
            fail(line: line.number, decoder.rejection()!)
            return
        }
        stepCount += 1
        // Most lines found nothing: nothing handed over. The findings are read where they
        // are, and their lists keep their memory for the next line.
        let failing: Bool
        if keepsFirstMismatch {
            var firstMismatch: Mismatch?
            failing = stream.absorbFindings { mismatches, diagnostics in
                firstMismatch = mismatches.entries.first
                return findings.absorb(mismatches, diagnostics, document: line.document)
            } ?? false
            if divergence == nil { keep(firstMismatch, line: line, index: index) }
        } else {
            failing = stream.absorbFindings { findings.absorb($0, $1, document: line.document) } ?? false
        }
        switch detail {
        case .all: break
        case .failing: guard failing else { return }
        case .none: return
        }
        stream.writeStep(index, &writer, line.document)
        writer.endLine()
    }

    /// Keeps what a repro reads of the element just run, until the first mismatch.
    private func keep(_ mismatch: Mismatch?, line: NDJSONLayout.Line, index: Int) {
        if let previous = unnotedLine {
            noteElementBeforeMismatch?(previous.document.root, previous.document)
            unnotedLine = nil
        }
        guard let values = stream.lastStepValues() else { return }
        if index == 0 { firstStepValues = values }
        let step = KeptDivergence.Step(index: index, line: line, values: values)
        if let mismatch {
            divergence = KeptDivergence(mismatch: mismatch, values: line.document, step: step, observedFinal: nil,
                                        final: ShownState())
        } else {
            lastStep = step
            unnotedLine = line
        }
    }

    /// Takes the stream's new findings into the summary's; whether there were any.
    @discardableResult
    private func absorbFindings(document: JSONDocument) -> Bool {
        guard let taken = stream.takeFindings() else { return false }
        return findings.absorb(taken.mismatches, taken.diagnostics, document: document)
    }

    /// The body has ended well: the summary line.
    private func end() {
        if let tail, let value = tail.document.member(tail.document.root, "observedFinal") {
            var decoder = RequestDecoder(document: tail.document)
            stream.readObservedFinal(value, &decoder)
            if let rejection = decoder.rejection() {
                fail(line: tail.number, rejection)
                return
            }
        }
        let observedFinalDocument = tail?.document ?? headDocument
        let ended = stream.end(observedFinalDocument)
        usualStart = ended.answer.usualStart
        let taken = stream.takeFindings() ?? (MismatchList(), [])
        if keepsFirstMismatch, divergence == nil, let mismatch = taken.mismatches.entries.first {
            divergence = KeptDivergence(mismatch: mismatch, values: observedFinalDocument, step: lastStep,
                                        observedFinal: observedFinalDocument.member(observedFinalDocument.root, "observedFinal"),
                                        final: ended.answer.finalState)
        }
        input?.finish { findings.absorbLog($0) }
        _ = findings.absorb(taken.mismatches, taken.diagnostics, document: observedFinalDocument)
        if let reported = stream.reportedFindings() { findings.absorb(reported.findings, carried: reported.carried) }
        var verdict = Verdict(mismatchCount: findings.mismatchCount, carried: findings.carried,
                              staticCheckPassed: ended.staticCheckPassed)
        var accounting = input?.accounting
        accounting?.elements = stepCount
        if let accounting, verdict != .fail,
           accounting.isIncomplete || (stepCount == 0 && ended.staticCheckPassed == nil) {
            // The service never says `pass` on evidence it knows is incomplete.
            verdict = .inconclusive
        }
        findings.writeSummary(ruleset: endpoint.name, answer: ended.answer, verdict: verdict, stepCount: stepCount,
                              log: accounting, to: &writer)
        summary = StreamedSummary(verdict: verdict, mismatches: findings.mismatches,
                                  diagnostics: findings.listedDiagnostics.map(AnswerDiagnostic.init))
        writer.endLine()
        phase = .ended(.end(verdict: verdict.rawValue))
    }

    /// After the end of a log with `"initial": "unknown"`: the reported candidate's number.
    var reportedCandidate: Int? { stream.reportedCandidate() }

    /// Runs a log with `"initial": "unknown"` from candidate `number`, as if its state
    /// were given; said before the first byte.
    func startAtCandidate(_ number: Int) { stream.startAtCandidate(number) }

    /// With `"initial": "unknown"`, once the stream has ended well: the state a request
    /// without `initial` starts in.
    private(set) var usualStart: ShownState?

    /// What the summary line says, as values, once the stream has ended well.
    private(set) var summary: StreamedSummary?

    /// The problem that ended the stream (its problem line's), if one did.
    public private(set) var problem: RequestRejection?

    /// A line is bad: refused before the answer began, else the problem line ends it.
    private func fail(line: Int, _ rejection: RequestRejection) {
        let rejection = rejection.on(line: line)
        problem = rejection
        guard case .streaming = phase else {
            phase = .ended(.rejected(rejection))
            return
        }
        writeProblemLine(problemJSON(rejection))
    }

    private func writeProblemLine(_ problem: [UInt8]) {
        writer.beginObject()
        writer.key("problem")
        writer.raw(problem)
        writer.endObject()
        writer.endLine()
        phase = .ended(.end(verdict: Self.invalidVerdict))
    }
}

/// The mismatches and diagnostics of a streamed log, as its summary lists them
/// (`ListedFindings`), and whether anything was observed. Kept as values
/// (`AnswerMismatch`, whose values are written once, as the lines they point into are
/// gone): the summary line and the in-process result (`NDJSONAnswer`) are both
/// renderings of them.
struct StreamedFindings: ~Copyable {
    static let listed = ListedFindings.listed

    private(set) var carried = false
    private(set) var listed = ListedFindings()

    var mismatchCount: Int { listed.mismatchCount }
    var mismatches: [AnswerMismatch] { listed.mismatches }
    var heldBytes: Int { listed.heldBytes }
    var listedDiagnostics: ArraySlice<Diagnostic> { listed.diagnosticsInSummaryOrder }

    /// Whether there were any.
    mutating func absorb(_ found: MismatchList, _ diagnostics: [Diagnostic], document: JSONDocument) -> Bool {
        carried = carried || found.carried
        for mismatch in found.entries { listed.list(mismatch, in: document) }
        for diagnostic in diagnostics { listed.list(diagnostic) }
        return !found.entries.isEmpty || !diagnostics.isEmpty
    }

    /// A start candidate's findings (late-start.md), taken for the elements'.
    mutating func absorb(_ reported: ListedFindings, carried: Bool) {
        self.carried = self.carried || carried
        listed.take(reported)
    }

    /// A diagnostic of the unified log itself, kept in line order.
    mutating func absorbLog(_ diagnostic: Diagnostic) {
        listed.listLog(diagnostic)
    }

    /// The JSON form's answer without `steps`, then the totals.
    func writeSummary(ruleset: String, answer: any SteppedAnswer, verdict: Verdict, stepCount: Int,
                      log: OSLogAccounting? = nil, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("ruleset")
        writer.string(escaping: ruleset)
        answer.writeHead(to: &writer)
        answer.writeTail(to: &writer)
        writer.key("verdict")
        writer.string(escaping: verdict.rawValue)
        writer.key("mismatches")
        writer.beginArray()
        for mismatch in mismatches { mismatch.write(to: &writer) }
        writer.endArray()
        writer.key("diagnostics")
        writer.beginArray()
        for diagnostic in listedDiagnostics { diagnostic.write(to: &writer) }
        writer.endArray()
        writer.key("stepCount")
        writer.integer(stepCount)
        writer.key("mismatchCount")
        writer.integer(listed.mismatchCount)
        writer.key("diagnosticCount")
        writer.integer(listed.diagnosticCount)
        log?.write(to: &writer)
        writer.endObject()
    }
}

/// Findings as a streamed summary lists them: the first `listed` of each kind, as long
/// as the listed ones' JSON stays within `listedBytes` per list (a refresh `items`
/// mismatch carries whole stores: an entry that would take the list past it is not
/// listed, nor is any after it), and how many there were (a count over its list's
/// length says the list was cut). A stream keeps one; a log with `"initial":
/// "unknown"` one per start candidate.
struct ListedFindings {
    static let listed = 10_000
    static let listedBytes = 4 << 20

    /// The listed mismatches, in the order they were found.
    private(set) var mismatches: [AnswerMismatch] = []
    private(set) var mismatchCount = 0
    private var stepDiagnostics: [Diagnostic] = []
    /// Diagnostics of the whole request (index null): listed after the steps'.
    private var requestDiagnostics: [Diagnostic] = []
    /// The unified log's diagnostics (index null, a line), in line order: listed after
    /// the steps', before the whole request's.
    private var logDiagnostics: [Diagnostic] = []
    private(set) var diagnosticCount = 0
    /// The listed mismatches' and diagnostics' JSON, in bytes, as the summary lists them.
    private var mismatchBytes = 0, diagnosticBytes = 0
    /// A list reached `listedBytes`: nothing more is listed in it.
    private var mismatchesFull = false, diagnosticsFull = false

    /// The memory the lists hold, in bytes (about: their JSON).
    var heldBytes: Int { mismatchBytes + diagnosticBytes }

    /// The listed diagnostics in the summary's order: by step, whole-request ones last.
    var diagnosticsInSummaryOrder: ArraySlice<Diagnostic> {
        (stepDiagnostics + logDiagnostics + requestDiagnostics).prefix(Self.listed)
    }

    mutating func list(_ mismatch: Mismatch, in document: JSONDocument) {
        if mismatches.count < Self.listed, !mismatchesFull { listListed(AnswerMismatch(mismatch, in: document)) }
        mismatchCount += 1
    }

    mutating func list(_ mismatch: AnswerMismatch) {
        listListed(mismatch)
        mismatchCount += 1
    }

    mutating func list(_ diagnostic: Diagnostic) {
        listListed(diagnostic)
        diagnosticCount += 1
    }

    /// Another list's findings after these: its counts, and what of its lists still fits.
    mutating func take(_ other: ListedFindings) {
        for mismatch in other.mismatches { listListed(mismatch) }
        for diagnostic in other.stepDiagnostics + other.requestDiagnostics { listListed(diagnostic) }
        for diagnostic in other.logDiagnostics where fits(diagnostic) { logDiagnostics.append(diagnostic) }
        mismatchCount += other.mismatchCount
        diagnosticCount += other.diagnosticCount
    }

    /// Lists `mismatch` if it fits; counted by the caller.
    private mutating func listListed(_ mismatch: AnswerMismatch) {
        guard mismatches.count < Self.listed, !mismatchesFull else { return }
        let size = Self.writtenSize { mismatch.write(to: &$0) }
        guard mismatchBytes + 1 + size <= Self.listedBytes else {
            mismatchesFull = true
            return
        }
        mismatchBytes += (mismatches.isEmpty ? 0 : 1) + size
        mismatches.append(mismatch)
    }

    /// A diagnostic of the unified log itself, listed in line order.
    mutating func listLog(_ diagnostic: Diagnostic) {
        if logDiagnostics.count < Self.listed, fits(diagnostic) {
            let line = diagnostic.line ?? 0
            let position = logDiagnostics.lastIndex { ($0.line ?? 0) <= line }.map { $0 + 1 } ?? 0
            logDiagnostics.insert(diagnostic, at: position)
        }
        diagnosticCount += 1
    }

    /// Lists `diagnostic` if it fits; counted by the caller.
    private mutating func listListed(_ diagnostic: Diagnostic) {
        let listedCount = diagnostic.index == nil ? requestDiagnostics.count : stepDiagnostics.count
        guard listedCount < Self.listed, fits(diagnostic) else { return }
        if diagnostic.index == nil { requestDiagnostics.append(diagnostic) } else { stepDiagnostics.append(diagnostic) }
    }

    /// The bytes `write` writes, counted in memory on the stack: a finding is measured,
    /// not kept, and a writer of its own was an allocation, often a growth, and their
    /// frees for each listed finding.
    private static func writtenSize(_ write: (inout JSONWriter) -> Void) -> Int {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 1024) { stack in
            var entry = JSONWriter(lentMemory: stack, spillCapacity: 2048)
            write(&entry)
            return entry.byteCount
        }
    }

    /// Whether `diagnostic` still fits the diagnostics' bytes; counts it in when it does.
    private mutating func fits(_ diagnostic: Diagnostic) -> Bool {
        guard !diagnosticsFull else { return false }
        let size = Self.writtenSize { diagnostic.write(to: &$0) } + 1
        guard diagnosticBytes + size <= Self.listedBytes else {
            diagnosticsFull = true
            return false
        }
        diagnosticBytes += size
        return true
    }
}

/// What a streamed log's summary line lists, as values.
struct StreamedSummary {
    let verdict: Verdict
    let mismatches: [AnswerMismatch]
    let diagnostics: [AnswerDiagnostic]
}

/// What a repro reads of a streamed log's first mismatch.
struct KeptDivergence {
    /// A step, with the line of its element.
    struct Step {
        let index: Int
        let line: NDJSONLayout.Line
        let values: StepValues
    }

    let mismatch: Mismatch
    /// The document of the mismatch's values: its element's line, or the line with
    /// `observedFinal`.
    let values: JSONDocument
    /// The step it is decided at: its own, or the last for `observedFinal` (`nil` for a
    /// log without elements).
    let step: Step?
    /// The log's `observedFinal`, when that diverged.
    let observedFinal: JSONValue?
    /// The answer's `final`: where a log without elements starts.
    let final: ShownState
}
