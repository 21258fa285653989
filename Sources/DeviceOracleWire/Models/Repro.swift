import DeviceOracleJSON
import DeviceOracleRules

/// `POST /rulesets/{name}/repro`: from a failing device log to the shortest request
/// that fails the same way. The first mismatch is the divergence; its step starts
/// from a canonical state the log reached after some prefix, and the rules decide
/// that step from that state and the step's event alone. So the repro is the
/// shortest sequence of the model's event classes that reaches that state, followed
/// by the log's own event of that step, which carries its `observed` — how a ruleset
/// finds it is its `ReproCoding` (the route through the state graph; for refresh,
/// the store the run saw and the runs that rebuild the rest). A divergence of
/// `observedFinal` is reproduced at the last step.
///
/// The request keeps every member of the log the route does not set, and the last
/// event loses its `session`, so it runs on the machine the route drove. The
/// answer's `path` is the answer the endpoint gives that request: a repro can never
/// disagree with a check.
enum Repro {
    /// A JSON log: checked whole; the repro reads the values of two of its steps, the
    /// first (where the log starts) and the divergence's.
    static func answer<Coding: ReproCoding>(_ coding: Coding, _ body: [UInt8], format: AnswerFormat,
                                            endpoint: RulesetEndpoint) -> Result<[UInt8], RequestRejection> {
        let checked: RulesetAnswer
        switch endpoint.answer(body) {
        case .success(let answer): checked = answer
        case .failure(let rejection): return .failure(rejection)
        }
        guard let divergence = checked.text.envelope.mismatches.first else {
            return .failure(.nothingToReproduce(checked.verdict))
        }
        let log = checked.text.document, stepped = checked.text.stepped
        // Haptics may send no events (or `null`) and still diverge in `observedFinal`.
        let logEvents = log.member(log.root, named: endpoint.sequence).map { Array(log.elements($0)) } ?? []
        // The step the divergence is decided at: its own, or the last for `observedFinal`.
        let stepIndex = divergence.index ?? logEvents.count - 1
        let prelude = Coding.Prelude(head: log.root, events: logEvents[..<max(stepIndex, 0)], in: log)
        let step = stepIndex >= 0 && stepIndex < stepped.stepCount ? stepped.values(ofStep: stepIndex) : nil
        var start = stepped.stepCount > 0 ? stepped.values(ofStep: 0).before : stepped.finalState
        let startsUnknown = log.member(log.root, "initial").flatMap(log.string) == "unknown"
        if startsUnknown {
            // late-start.md: the route starts where a request without `initial` does.
            guard let usual = stepped.usualStart else { return .failure(.unreproducible) }
            start = usual
        }
        let readLog = ReadLog(divergence: divergence, stepIndex: stepIndex, values: log, head: log.root, headDocument: log,
                              event: stepIndex >= 0 ? logEvents[stepIndex] : nil, eventDocument: log, prelude: prelude,
                              observedFinal: divergence.index == nil ? log.member(log.root, "observedFinal") : nil,
                              start: start, step: step, startsUnknown: startsUnknown)
        return reproduce(coding, readLog, format: format, endpoint: endpoint)
    }

    /// An NDJSON log: checked as it streams, in the memory of a line, keeping only the
    /// values of the first step, of the first mismatching one (else of the last, for a
    /// divergence of `observedFinal`) and the prelude of the events before it. A log with
    /// `"initial": "unknown"` is read twice (`again`): the path it reproduces is known
    /// only at its end, and is then run as if its start had been given. `nil` when the
    /// log could not be read.
    static func answer<Coding: ReproCoding>(_ coding: Coding, ndjson chunks: NDJSONChunks,
                                            again: (() -> NDJSONChunks?)?, maxLineBytes: Int,
                                            format: AnswerFormat, endpoint: RulesetEndpoint) -> Result<[UInt8], RequestRejection>? {
        var read = ReadLines<Coding.Prelude>(endpoint: endpoint, maxLineBytes: maxLineBytes)
        switch read.run(chunks) {
        case .success?: break
        case .failure(let rejection)?: return .failure(rejection)
        case nil: return nil
        }
        var startsUnknown = false
        if read.startsUnknown {
            startsUnknown = true
            guard let reported = read.check.reportedCandidate, let chunks = again?() else {
                return .failure(RequestRejection(kind: .invalidRequest, detail: "1 problem in the request body", problems: [
                    .init(pointer: "/initial", detail: "a repro of a log with \"initial\": \"unknown\" reads it twice: "
                          + "give it as a file or as its JSON form, not on standard input")]).on(line: 1))
            }
            read = ReadLines(endpoint: endpoint, maxLineBytes: maxLineBytes)
            read.check.startAtCandidate(reported)
            switch read.run(chunks) {
            case .success?: break
            case .failure(let rejection)?: return .failure(rejection)
            case nil: return nil
            }
        }
        let check = read.check, head = check.headDocument
        guard let kept = check.divergence else {
            return .failure(.nothingToReproduce(check.summary?.verdict ?? .unchecked))
        }
        var start = check.firstStepValues?.before ?? kept.final
        if startsUnknown {
            // late-start.md: the route starts where a request without `initial` does.
            guard let usual = check.usualStart else { return .failure(.unreproducible) }
            start = usual
        }
        let log = ReadLog(divergence: kept.mismatch, stepIndex: kept.step?.index ?? -1, values: kept.values,
                          head: head.root, headDocument: head,
                          event: kept.step.map { $0.line.document.root }, eventDocument: kept.step?.line.document ?? head,
                          prelude: read.prelude ?? Coding.Prelude(head: head.root, in: head),
                          observedFinal: kept.observedFinal, start: start, step: kept.step?.values,
                          startsUnknown: startsUnknown)
        return reproduce(coding, log, format: format, endpoint: endpoint)
    }

    /// One reading of an NDJSON log for a repro: its check, and the prelude it noted.
    private struct ReadLines<Prelude: ReproPrelude> {
        let check: NDJSONCheck
        private let noted = Noted()

        private final class Noted {
            var prelude: Prelude?
        }

        var prelude: Prelude? { noted.prelude }

        /// Whether the log said `"initial": "unknown"`.
        var startsUnknown: Bool {
            let head = check.headDocument
            return head.member(head.root, "initial").flatMap(head.string) == "unknown"
        }

        init(endpoint: RulesetEndpoint, maxLineBytes: Int) {
            let check = NDJSONCheck(endpoint: endpoint, detail: .none, maxLineBytes: maxLineBytes,
                                    keepsFirstMismatch: true) { _ in [] }
            if Prelude.notesEvents {
                check.noteElementBeforeMismatch = { [unowned check, noted] event, document in
                    if noted.prelude == nil { noted.prelude = Prelude(head: check.headDocument.root, in: check.headDocument) }
                    noted.prelude?.note(event, in: document)
                }
            }
            self.check = check
        }

        func run(_ chunks: NDJSONChunks) -> Result<[UInt8], RequestRejection>? {
            RulesetEndpoint.run(check, chunks)
        }
    }

    /// What a repro reads of a log, however it was read.
    struct ReadLog<Prelude: ReproPrelude> {
        let divergence: Mismatch
        /// The step the divergence is decided at: its own, or the last for `observedFinal`
        /// (`-1` for a log without steps).
        let stepIndex: Int
        /// The document of the divergence's values and of `observedFinal`.
        let values: JSONDocument
        /// The log's members (its head line's, for NDJSON), in `headDocument`.
        let head: JSONValue
        let headDocument: JSONDocument
        /// The log's own event of the divergence's step, in `eventDocument`.
        let event: JSONValue?
        let eventDocument: JSONDocument
        /// What the ruleset's repro keeps of the log's events before that step.
        let prelude: Prelude
        /// The log's `observedFinal`, when that diverged.
        let observedFinal: JSONValue?
        /// Where the log starts: the state before its first step (its final state
        /// when it has none).
        let start: ShownState
        /// The divergence's step.
        let step: StepValues?
        /// Whether the log said `"initial": "unknown"`: then `start` is the usual start,
        /// and the repro's request has no `initial`.
        var startsUnknown = false

        /// The request's members the log carries, but for `skipped` ones.
        func writeHead(to request: inout JSONWriter, skipping skipped: [String]) {
            let head = headDocument
            for member in head.members(self.head) {
                guard let name = head.string(member.key), !skipped.contains(name) else { continue }
                request.key(escaping: name)
                request.value(member.value, of: head)
            }
        }

        /// The log's own event of the divergence's step, every member but `session`, so
        /// it runs on the machine the repro's route drove.
        func writeEvent(to request: inout JSONWriter) {
            guard let event else { return }
            let document = eventDocument
            request.beginObject()
            for member in document.members(event) where !document.string(member.key, equals: "session") {
                guard let name = document.string(member.key) else { continue }
                request.key(escaping: name)
                request.value(member.value, of: document)
            }
            request.endObject()
        }
    }

    private static func reproduce<Coding: ReproCoding>(_ coding: Coding, _ log: ReadLog<Coding.Prelude>, format: AnswerFormat,
                                                       endpoint: RulesetEndpoint) -> Result<[UInt8], RequestRejection> {
        let divergence = log.divergence, stepIndex = log.stepIndex
        guard let (requestBytes, eventClasses) = coding.reproRequest(log) else { return .failure(.unreproducible) }
        // Checked as a client posting it would be: a repro whose request the ruleset
        // refuses (an NDJSON line's event nested to the limit, two levels deeper in a
        // JSON body; an answer over refresh's cap) is refused, saying why.
        let repro: RulesetAnswer
        switch endpoint.answer(requestBytes) {
        case .success(let answer): repro = answer
        case .failure(let rejection): return .failure(.reproRefused(rejection))
        }

        if format != .json {
            return .success(tests(format, endpoint: endpoint, divergence: divergence, in: log.values,
                         lengths: (stepIndex + 1, eventClasses.count), eventClasses: eventClasses,
                         request: requestBytes, answer: repro))
        }

        var writer = JSONWriter(capacity: 1024 + requestBytes.count * 4)
        writer.beginObject()
        writer.key("ruleset")
        writer.string(escaping: endpoint.name)
        writer.key("divergence")
        divergence.write(to: &writer, document: log.values)
        writer.key("originalLength")
        writer.integer(stepIndex + 1)
        writer.key("reproLength")
        writer.integer(eventClasses.count)
        writer.key("eventClasses")
        writer.beginArray()
        for name in eventClasses {
            if let name { writer.string(escaping: name) } else { writer.null() }
        }
        writer.endArray()
        writer.key("path")
        writer.beginArray()
        let path = repro.text.stepped
        for index in 0..<path.stepCount { path.writeStep(index, to: &writer) }
        writer.endArray()
        writer.key("verdict")
        writer.string(escaping: repro.verdict.rawValue)
        writer.key("request")
        writer.raw(requestBytes)
        writer.endObject()
        return .success(writer.finish())
    }
}

/// How a ruleset's repro reaches the state its log diverged in.
protocol ReproCoding: ModelCoding {
    associatedtype Prelude: ReproPrelude = NothingKept
    /// The repro's request, and the model's event class of each of its events (`nil`
    /// for an event of none); `nil` when the log's states are not the model's.
    func reproRequest(_ log: Repro.ReadLog<Prelude>) -> (request: [UInt8], eventClasses: [String?])?
}

/// What a repro keeps of a log's events before its divergence, noted one by one as
/// the check reads them: the NDJSON form's check never holds them all.
protocol ReproPrelude {
    /// Before the first event, from the log's members (its head line's, for NDJSON).
    init(head: JSONValue, in document: JSONDocument)
    mutating func note(_ event: JSONValue, in document: JSONDocument)
    /// From every event before the divergence at once (the JSON form's log); by
    /// default, each noted in turn.
    init(head: JSONValue, events: ArraySlice<JSONValue>, in document: JSONDocument)
    /// Whether `note` is worth calling: a stream of a million lines pays for each call.
    static var notesEvents: Bool { get }
}

extension ReproPrelude {
    init(head: JSONValue, events: ArraySlice<JSONValue>, in document: JSONDocument) {
        self.init(head: head, in: document)
        guard Self.notesEvents else { return }
        for event in events { note(event, in: document) }
    }
}

/// The prelude of a ruleset whose steps show the whole state they start from.
struct NothingKept: ReproPrelude {
    static var notesEvents: Bool { false }
    init(head _: JSONValue, in _: JSONDocument) {}
    func note(_: JSONValue, in _: JSONDocument) {}
}

extension FiniteModelCoding {

    /// The rules decide a step from its `before` state and its event alone, and steps
    /// show both: the shortest route through the graph of every state, from where the
    /// log starts to the divergence's `before`, then the log's own event. The
    /// request keeps every member of the log but its events and `observedFinal`.
    func reproRequest(_ log: Repro.ReadLog<NothingKept>) -> (request: [UInt8], eventClasses: [String?])? {
        let target = log.step?.before ?? log.start
        let graph = graphs.everyState
        // Every state is a node of the whole graph, and the log reached the target.
        guard let startNode = graphs.everyStateNodesByFields[log.start.fields],
              let targetNode = graphs.everyStateNodesByFields[target.fields],
              let route = graph.shortestRoute(from: startNode, to: targetNode) else { return nil }

        var machine = graph.machine(at: startNode)
        let routeEvents = route.map { graph.model.apply(eventClass: graph.transitions[$0].eventClass, to: &machine).event }
        var request = JSONWriter(capacity: 256 + 64 * route.count)
        request.beginObject()
        log.writeHead(to: &request, skipping: log.startsUnknown ? ["events", "observedFinal", "initial"] : ["events", "observedFinal"])
        request.key("events")
        request.beginArray()
        for event in routeEvents { writeEvent(event, to: &request) }
        log.writeEvent(to: &request)
        request.endArray()
        if let observedFinal = log.observedFinal {
            request.key("observedFinal")
            request.value(observedFinal, of: log.values)
        }
        request.endObject()

        let classNames = graph.model.eventClasses
        var eventClasses: [String?] = route.map { classNames[graph.transitions[$0].eventClass] }
        if log.stepIndex >= 0 {
            let canonical = log.step?.event as? Model.Event
            eventClasses.append(canonical.map { classNames[graph.model.eventClass(of: $0)] })
        }
        return (request.finish(), eventClasses)
    }
}

extension Repro {
    /// The repro as a Swift file with one test: the canonical values at every step,
    /// after a comment naming what the device did at the divergence.
    private static func tests(_ format: AnswerFormat, endpoint: RulesetEndpoint, divergence: Mismatch,
                              in document: JSONDocument, lengths: (original: Int, repro: Int), eventClasses: [String?],
                              request: [UInt8], answer: RulesetAnswer) -> [UInt8] {
        func text(_ value: FieldValue) -> String {
            var writer = JSONWriter(capacity: 64)
            value.write(to: &writer, document: document)
            return String(decoding: writer.finish(), as: UTF8.self)
        }
        let step = divergence.index.map { "step \($0)" } ?? "the final state"
        let tests = GeneratedTests(format: format, endpoint: endpoint, suite: GeneratedTests.suite(endpoint, "Repro" + (divergence.index.map { "Step\($0)" } ?? "FinalState")), header: [
            "Generated by device-oracle: POST /rulesets/\(endpoint.name)/repro.",
            "A device log diverged from \(endpoint.name) at \(step); these \(lengths.repro) events reach the same state",
            "and end with the log's own event (\(lengths.original) in the log), each step's `observed` set to the canonical values.",
        ])
        let note = [
            "The device showed \(divergence.field) = \(text(divergence.observed)) here (the log's \(step));",
            "the rules say \(text(divergence.expected)).",
        ]
        return tests.file([GeneratedTests.Sequence(eventClasses: eventClasses, answer: answer, note: note)])
    }
}

extension RequestRejection {
    /// A log whose states the model does not hold: never one the endpoint accepted.
    static var unreproducible: RequestRejection {
        RequestRejection(kind: .invalidRequest, detail: "the log reaches a state its ruleset's model does not hold, so no repro can be built")
    }

    /// The ruleset refused a request built of the log or the model: an answer over its
    /// cap (a refresh store repeated by many runs), say. Its problems point into that
    /// request, not the body.
    static func reproRefused(_ rejection: RequestRejection) -> RequestRejection {
        let detail = "the log's repro cannot be checked: \(rejection.detail)"
        return RequestRejection(kind: .invalidRequest, detail: detail, problems: [.init(pointer: "", detail: detail)])
    }

    /// A log with no mismatch: nothing diverged, so nothing can be reproduced.
    static func nothingToReproduce(_ verdict: Verdict) -> RequestRejection {
        let why = switch verdict {
        case .pass: "The log passes: every observed field equals the canonical one, so there is no divergence to reproduce."
        case .unchecked: "The log is unchecked: it carries no observed and no observedFinal, so there is no divergence to reproduce."
        case .inconclusive: "The log is inconclusive: its evidence is incomplete and nothing diverged, so there is no divergence to reproduce."
        case .fail: "The log fails only its static check, which no event sequence changes: there is no divergence to reproduce."
        }
        return RequestRejection(kind: .nothingToReproduce, detail: why)
    }
}
