import DeviceOracleJSON
import DeviceOracleRules

/// `refresh/1`'s repro. A run is decided by its own pages and fault and by what the
/// runs before left it: the store, a stale temporary file, and the streak of
/// failures that sets its backoff. The model's node (stale file, page to repeat)
/// is too coarse to rebuild that, but the request sets its starting `store`, so
/// the repro starts from the store the diverging run saw (its step's `before`)
/// and rebuilds the rest with the fewest runs, of empty pages, that change no store:
///
/// - one failure per failure of the streak (`error(stage=download,page=first)`),
///   only as many as still change the backoff: past `backoffMaxSeconds` another
///   failure changes nothing;
/// - `crash(stage=write,page=first)` when the run found a stale temporary file (its
///   step's actions begin with `removeStaleTemp`);
/// - then the log's own run, with its `observed`.
///
/// A divergence of `observedFinal` is reproduced at the last run with that one
/// field observed. A total of `commits` counts every run's transactions, so the
/// prefix's runs also commit the log's earlier ones, on empty pages: the streak's
/// failures at `cursor`, the crash at `write` of a later page, and the rest in one
/// successful run at the store's `lastSuccessAt` (or, with none, crashes at
/// `cursor`). So a repro is never longer than the log. Prefix runs take the times of
/// the log's runs just before the divergence.
extension RefreshModelCoding: ReproCoding {
    func reproRequest(_ log: Repro.ReadLog<RefreshRunUp>) -> (request: [UInt8], eventClasses: [String?])? {
        let values = log.values
        let before = log.step?.before ?? log.start
        var failures = 0, staleTempFile = false
        if let step = log.step {
            failures = log.prelude.failures
            staleTempFile = step.run?.removesStaleTemp ?? false
        }
        var finalField: String?, commitsToPad = 0
        if log.observedFinal != nil {
            finalField = String(log.divergence.field.dropFirst("final.".count))
            if finalField == "commits", case .number(let total) = log.divergence.expected {
                // A total beyond any count of runs cannot be padded: the repro is the log's.
                guard total.magnitude < 1e15 else { return nil }
                commitsToPad = Int(total) - (log.step?.run?.commits ?? 0)
            }
        }

        // The prefix, oldest first, as shapes of empty pages: the streak's failures and
        // the crash carry the commits to pad first (a failure at `cursor` wrote its
        // page; a crash at `write` did not), and what they cannot carry goes before
        // them, in one successful run when the store has a last success to keep, else
        // in crashes at `cursor`, which change nothing else.
        var shapes: [RunShape] = []
        for _ in 0..<failures {
            let commits = min(commitsToPad, faultPageLimit)
            commitsToPad -= commits
            shapes.append(commits > 0 ? RunShape(.error, .cursor, page: commits - 1) : RunShape(.error, .download, page: 0))
        }
        if staleTempFile {
            let commits = min(commitsToPad, faultPageLimit - 1)
            commitsToPad -= commits
            shapes.append(RunShape(.crash, .write, page: commits))
        }
        var padding: [RunShape] = []
        let lastSuccessAt = before.lastSuccessAt
        if let lastSuccessAt, commitsToPad > 0 {
            padding.append(RunShape(succeededAt: lastSuccessAt, pageCount: commitsToPad))
            commitsToPad = 0
        }
        while commitsToPad > 0 {
            let commits = min(commitsToPad, faultPageLimit)
            commitsToPad -= commits
            padding.append(RunShape(.crash, .cursor, page: commits - 1))
        }
        shapes = padding + shapes

        // Each run at the time of one of the log's runs before the divergence, the
        // latest last; any more at the earliest of those.
        let times = log.prelude.latestTimes.suffix(shapes.count)
        let earliest = times.first ?? log.event.flatMap { log.eventDocument.member($0, "at") }
            .flatMap(log.eventDocument.number) ?? 0
        let unmatched = shapes.count - times.count
        let runs = shapes.enumerated().compactMap { index, shape in
            shape.run(at: index < unmatched ? earliest : times[times.startIndex + index - unmatched])
        }

        var request = JSONWriter(capacity: 512 + 96 * runs.count)
        request.beginObject()
        log.writeHead(to: &request, skipping: ["runs", "observedFinal", "store"])
        if let store = before.store {
            request.key("store")
            request.raw(store)
        }
        request.key("runs")
        request.beginArray()
        for run in runs { write(run, to: &request) }
        log.writeEvent(to: &request)
        request.endArray()
        if let finalField, let observedFinal = log.observedFinal,
           let value = values.member(observedFinal, named: finalField) {
            request.key("observedFinal")
            request.beginObject()
            request.key(escaping: finalField)
            request.value(value, of: values)
            request.endObject()
        }
        request.endObject()

        let classNames = graph.model.eventClasses
        var eventClasses: [String?] = runs.map { classNames[graph.model.eventClass(of: $0)] }
        if let event = log.event {
            eventClasses.append(eventClass(ofRun: event, in: log.eventDocument).map { classNames[$0] })
        }
        return (request.finish(), eventClasses)
    }

    /// A run of the prefix: empty pages, the last of them faulted, or all committed.
    private struct RunShape {
        var fault: RefreshFault?
        var pageCount: Int
        var succeededAt: Double?

        init(_ kind: RefreshFaultKind, _ stage: RefreshStage, page: Int) {
            fault = RefreshFault(kind: kind, stage: stage, page: page)
            pageCount = page + 1
        }

        init(succeededAt: Double, pageCount: Int) {
            self.succeededAt = succeededAt
            self.pageCount = pageCount
        }

        /// `nil` never: the fault names the run's last page.
        func run(at time: Double) -> RefreshRun<Int>? {
            try? RefreshRun(at: succeededAt ?? time, pages: Array(repeating: RefreshPage(), count: pageCount), fault: fault)
        }
    }
}

/// What a refresh repro keeps of the runs before the divergence: the streak of
/// failures they end with, and their latest times.
struct RefreshRunUp: ReproPrelude {
    static var notesEvents: Bool { true }
    /// The failures that still change the backoff: past `backoffMaxSeconds` another
    /// changes nothing.
    private let failuresThatMatter: Int
    /// The failed or expired runs the runs end with (a crash neither counts nor ends
    /// the streak; a success ends it), at most `failuresThatMatter`.
    private(set) var failures = 0
    /// The latest runs' times, oldest first, kept in a window of between one and two
    /// times what a prefix of failures and a crash takes.
    private var times: [Double] = []
    /// As many of the latest runs' times as such a prefix takes, however they were read.
    var latestTimes: ArraySlice<Double> { times.suffix(failuresThatMatter + 1) }

    init(head: JSONValue, in document: JSONDocument) {
        // Read as the endpoint read it (and validated it).
        var decoder = RequestDecoder(document: document)
        let schedule = document.member(head, "schedule").map { decoder.refreshSchedule($0) } ?? RefreshSchedule()
        // Doubling reaches the cap, or infinity, within the exponent's range.
        var count = 0
        while schedule.backoffSeconds(consecutiveFailures: count + 1) != schedule.backoffSeconds(consecutiveFailures: count + 2) {
            count += 1
        }
        failuresThatMatter = count
    }

    /// As the runs stream past.
    mutating func note(_ run: JSONValue, in document: JSONDocument) {
        // One pass over the run's members: this runs for every line of a streamed log.
        var kind = RunKind.success, time = 0.0
        for member in document.members(run) {
            if document.string(member.key, equals: "at") {
                time = document.number(member.value) ?? 0
            } else if document.string(member.key, equals: "fault") {
                kind = Self.kind(ofFault: member.value, in: document)
            }
        }
        switch kind {
        case .failure: failures = min(failures + 1, failuresThatMatter)
        case .crash: break
        case .success: failures = 0
        }
        // Kept in a window of twice what a prefix takes, dropped by halves.
        if times.count == 2 * (failuresThatMatter + 1) { times.removeFirst(failuresThatMatter + 1) }
        times.append(time)
    }

    /// From the runs held whole: read backwards, only as far as the streak goes, and
    /// only the latest times.
    init(head: JSONValue, events runs: ArraySlice<JSONValue>, in document: JSONDocument) {
        self.init(head: head, in: document)
        backwards: for run in runs.reversed() {
            guard failures < failuresThatMatter else { break }
            switch Self.kind(of: run, in: document) {
            case .failure: failures += 1
            case .crash: continue
            case .success: break backwards
            }
        }
        times = runs.suffix(failuresThatMatter + 1).map { Self.time(of: $0, in: document) }
    }

    private enum RunKind { case success, failure, crash }

    private static func kind(of run: JSONValue, in document: JSONDocument) -> RunKind {
        document.member(run, "fault").map { kind(ofFault: $0, in: document) } ?? .success
    }

    /// The endpoint validated the fault (`null` is none); its kind is all that counts.
    private static func kind(ofFault fault: JSONValue, in document: JSONDocument) -> RunKind {
        guard let kind = document.member(fault, "kind") else { return .success }
        return document.string(kind, equals: "crash") ? .crash : .failure
    }

    private static func time(of run: JSONValue, in document: JSONDocument) -> Double {
        document.member(run, "at").flatMap(document.number) ?? 0
    }
}
