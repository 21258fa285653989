import DeviceOracleJSON
import DeviceOracleRules

/// The steps of a ruleset whose state is finite: one machine per session runs over
/// the log, and a step is most often a precomputed tail (`RulesetTables`); what the
/// device observed is compared, and `EventLogAnswer` writes the answer (whole or
/// streamed). Generic over the ruleset's description and specialized for each one, so
/// every ruleset walks its log as fast as any.
struct PrecomputedSteps<D: FiniteRulesetDescription>: LogSteps {
    /// A session's machine and the slot of its state.
    struct Session: Sendable {
        var machine: D.Machine
        var slot: Int
    }

    /// What a log starts from.
    struct Start {
        var session: Session
        /// With `"initial": "unknown"`: the slot of the state a request without
        /// `initial` starts in, where a repro's route begins.
        var usualSlot: Int?
    }

    typealias Head = LogHead<Self>

    let tables: RulesetTables<D>
    private var sessions = SessionMachines<Session>()
    private var steps: [EventLogStep] = []
    /// The NDJSON form's step: the last element's, written already by the next line
    /// (its log's steps are not kept, so no list is emptied and appended to each line).
    private var lastStep: EventLogStep?
    private var unfixedSteps: [UnfixedStep<D>] = []
    private var specialSteps = SpecialSteps()
    private var mismatches = MismatchList()
    private var diagnostics: [Diagnostic] = []
    /// How many diagnostics the request's members gave before its log ran.
    private var diagnosticsBeforeLog = 0
    /// What only a log with `"initial": "unknown"` (late-start.md) or a chosen start
    /// keeps: behind one reference, made only for such a log, so the steps of every
    /// other request make and destroy a nil rather than the candidates' fields.
    private var late: LateStart?

    private final class LateStart {
        /// Every start candidate, followed alongside.
        var candidates: StartCandidates<D>?
        /// In the NDJSON form: the reported path's findings, which stand for the steps'
        /// (handed over at the end).
        var reportedFindings: (findings: ListedFindings, carried: Bool)?
        var reportedCandidate: Int?
        /// `startAtCandidate`'s number.
        var forcedCandidate: Int?
    }

    /// `late`, made on first use.
    private mutating func lateStart() -> LateStart {
        if let late { return late }
        let made = LateStart()
        late = made
        return made
    }

    var reportedFindings: (findings: ListedFindings, carried: Bool)? { late?.reportedFindings }
    var reportedCandidate: Int? { late?.reportedCandidate }

    mutating func startAtCandidate(_ number: Int) { lateStart().forcedCandidate = number }

    var startsUnknown: Bool { late?.candidates != nil }

    /// A streamed log with `"initial": "unknown"` holds each candidate's findings to the end.
    var heldBytes: Int { late?.candidates?.findings.reduce(0) { $0 + $1.heldBytes } ?? 0 }

    static func tables(ruleset: StaticString) -> RulesetTables<D> { RulesetTables(ruleset: ruleset) }

    init(tables: RulesetTables<D>) {
        self.tables = tables
    }

    mutating func walk(_ events: JSONValue, head: inout Head, decoder: inout RequestDecoder) {
        diagnosticsBeforeLog = diagnostics.count
        walk(events, start: head.start.session, settings: head.settings, decoder: &decoder)
    }

    /// Reads `initial`: an object of the ruleset's fields, or `"unknown"` (late-start.md).
    mutating func start(_ given: GivenRequest<D.Setting>, settings: D.Settings, inLines: Bool,
                        decoder: inout RequestDecoder) -> Start {
        // One copy for the whole reading: `self.tables` read in the callback was
        // retained for every member of `initial`.
        let tables = tables
        var initialSlot = tables.initialSlot
        var startsUnknown = false
        if let value = decoder.present(given.initial), decoder.document.kind(value) == .string {
            startsUnknown = decoder.unknownStart(value)
        } else if let object = decoder.value(given.initial, of: .object) {
            decoder.closedObject(object, names: tables.initialFields) { decoder, field, value in
                initialSlot = tables.readInitial(field, value, from: initialSlot, &decoder)
            }
        }
        var machine = D.machine(initial: tables.slotStates[initialSlot], settings: settings)
        let usualSlot = startsUnknown ? tables.slot(of: machine.state) : nil
        if startsUnknown, let forcedCandidate = late?.forcedCandidate {
            // Run as if the reported candidate's state had been given.
            let candidates = StartCandidates(tables: tables, start: machine.state, settings: settings, keepsFindings: false)
            machine = candidates.start(forcedCandidate, tables: tables, settings: settings)
        } else if startsUnknown {
            let candidates = StartCandidates(tables: tables, start: machine.state, settings: settings,
                                             keepsFindings: inLines)
            // The log is walked from the first candidate; the reported path is known at the end.
            machine = candidates.start(0, tables: tables, settings: settings)
            lateStart().candidates = candidates
        }
        return Start(session: Session(machine: machine, slot: tables.slot(of: machine.state, likely: initialSlot)),
                     usualSlot: usualSlot)
    }

    mutating func end(_ head: inout Head, observedFinal: ObservedFields<Int>?, in document: JSONDocument,
                      head decoder: RequestDecoder)
        -> EventLogAnswer {
        var lateStart: LateStartAnswer?
        var reportedEnd: Session?
        if let late, var candidates = late.candidates.take() {
            candidates.finish(observedFinal: observedFinal, settings: head.settings, document: document, tables: tables)
            lateStart = candidates.answer
            let reported = candidates.reported
            late.reportedCandidate = reported
            if candidates.keepsFindings {
                // The lines are gone: the reported path was followed with its findings.
                reportedEnd = candidates.end(of: reported).map { Session(machine: $0.machine, slot: $0.slot) }
                late.reportedFindings = (candidates.findings[reported], candidates.carried)
            } else if reported != 0 {
                rewalk(from: candidates.start(reported, tables: tables, settings: head.settings), head: &head,
                       decoder: decoder)
            }
        }
        let final: Session
        if let reportedEnd {
            final = reportedEnd
        } else if let shown = D.hasSessions ? sessions.defaultIndex : sessions.count > 0 ? 0 : nil {
            final = sessions[shown]
        } else {
            final = head.start.session
        }
        // Without an `observedFinal` there is nothing to compare (and no copy of `tables`
        // for the comparison's closures to make).
        if late?.reportedFindings == nil, observedFinal != nil {
            let tables = tables
            mismatches.compare(observedFinal, index: nil, prefix: "final.", document: document,
                               name: { tables.finalFields[$0].name }) { tables.expectedFinal($0, of: final.machine) }
        }
        // The step lists are handed over, not shared: the answer takes them without a
        // retain each, and these steps then destroy empty lists.
        var answerSteps: [EventLogStep] = [], answerSpecialSteps = SpecialSteps(), answerUnfixedSteps: [UnfixedStep<D>] = []
        swap(&answerSteps, &steps)
        swap(&answerSpecialSteps, &specialSteps)
        swap(&answerUnfixedSteps, &unfixedSteps)
        return EventLogAnswer(
            D.self, document: decoder.document, tables: tables, settings: head.settings, final: final,
            usualStart: head.start.usualSlot.map(tables.shownState), lateStart: lateStart,
            sessions: sessions.anyNamed ? sessions.sessions.map { ($0.name, $0.machine.slot) } : nil,
            steps: answerSteps, specialSteps: answerSpecialSteps, unfixedSteps: answerUnfixedSteps)
    }

    /// Walks the JSON form's log again from `start`, the reported candidate's: its
    /// answer is exactly what a request with that `initial` gets. The log was valid.
    private mutating func rewalk(from machine: D.Machine, head: inout Head, decoder: RequestDecoder) {
        head.start.session = Session(machine: machine, slot: tables.slot(of: machine.state))
        sessions = SessionMachines<Session>()
        steps.removeAll(keepingCapacity: true)
        unfixedSteps.removeAll(keepingCapacity: true)
        specialSteps.removeAll()
        mismatches = MismatchList()
        diagnostics.removeSubrange(diagnosticsBeforeLog...)
        var again = decoder
        if let events = again.value(head.sequence, of: .array) {
            walk(events, start: head.start.session, settings: head.settings, decoder: &again)
        }
    }

    mutating func runElement(_ object: JSONValue, index: Int, in document: JSONDocument, head: inout Head,
                             arrival: inout ArrivalOrder, decoder: inout RequestDecoder) -> Bool {
        // What an NDJSON log keeps is its machines: the last step is written already.
        unfixedSteps.empty()
        specialSteps.removeAll()
        let tables = tables
        var held = HeldAside()
        // Whether the log follows start candidates: fixed for the whole log, so asked
        // once (testing the large optional, and taking it out and back, was ~40
        // instructions an element).
        let followsCandidates = late?.candidates != nil
        guard let logged = decoder.loggedEvent(object, index: index, arrival: &arrival, observedNames: tables.observedFields,
                                               read: { decoder, object in
                                                   Self.readEvent(object, in: document, tables: tables, held: &held,
                                                                  refusesSessions: followsCandidates, &decoder)
                                               })
        else { return false }
        run(logged, held: &held, start: head.start.session, settings: head.settings, document: document, tables: tables,
            keepsSteps: false, followsCandidates: followsCandidates)
        if followsCandidates {
            // The first candidate's findings: the reported path's stand for them at the end.
            mismatches = MismatchList()
            diagnostics.removeAll(keepingCapacity: true)
        }
        return true
    }

    func lastStepValues() -> StepValues? {
        lastStep.map { Self.values(of: $0, tables: tables, specialSteps: specialSteps, unfixedSteps: unfixedSteps) }
    }

    func writeLastStep(index: Int, to writer: inout JSONWriter, document: JSONDocument) {
        guard let step = lastStep else { return }
        EventLogAnswer.write(step, index: index, tails: tables.tails, specialSteps: specialSteps, document: document,
                             to: &writer) { unfixedIndex, writer in
            let unfixed = unfixedSteps[unfixedIndex]
            tables.writeUnfixedTail(event: unfixed.event, given: unfixed.given, before: unfixed.before,
                                    after: unfixed.after, decision: unfixed.decision, to: &writer, document: document)
        }
    }

    mutating func takeFindings() -> (mismatches: MismatchList, diagnostics: [Diagnostic]) {
        DeviceOracleWire.takeFindings(&mismatches, &diagnostics)
    }

    mutating func withFindings<R>(_ body: (MismatchList, [Diagnostic]) -> R) -> R {
        defer {
            if mismatches.carried || !mismatches.entries.isEmpty { mismatches = MismatchList() }
            diagnostics.empty()
        }
        return body(mismatches, diagnostics)
    }

    var hasFindings: Bool { mismatches.carried || !mismatches.entries.isEmpty || !diagnostics.isEmpty }

    /// Reads and runs every event. A function of its own, small enough that the
    /// walk, the reader and `run` inline into one loop.
    @inline(never)
    private mutating func walk(_ events: JSONValue, start: Session, settings: D.Settings, decoder: inout RequestDecoder) {
        let document = decoder.document, tables = tables
        steps.reserveCapacity(document.count(events))
        // An unfixed event, or an echoed value, between its reading and its run: held
        // here, so what the walk moves per event holds no references (an event carrying
        // text would make every event's values copied and destroyed through generic
        // witnesses).
        var held = HeldAside()
        let followsCandidates = late?.candidates != nil
        decoder.forEachEvent(in: events, observedNames: tables.observedFields,
                             read: { decoder, object in
                                 Self.readEvent(object, in: document, tables: tables, held: &held,
                                                refusesSessions: followsCandidates, &decoder)
                             }) { logged in
            run(logged, held: &held, start: start, settings: settings, document: document, tables: tables,
                keepsSteps: true, followsCandidates: followsCandidates)
        }
    }

    /// Applies one event to its session's machine and records the step. Inlined,
    /// with `readEvent`, into the walk: a long log's per-event values then stay in
    /// registers instead of being copied from struct to struct. `tables` is the
    /// caller's: a closure here cannot capture `self`, and a copy of `self.tables` for
    /// it was a retain and a release per event. `keepsSteps`: the JSON form lists every
    /// step; the NDJSON form keeps the last (a constant where each inlines `run`).
    /// `followsCandidates`: whether `candidates` holds any (the caller's, asked once).
    @inline(__always)
    private mutating func run(_ logged: LoggedEvent<WalkedEvent?, Int>, held: inout HeldAside, start: Session,
                              settings: D.Settings, document: JSONDocument, tables: RulesetTables<D>, keepsSteps: Bool,
                              followsCandidates: Bool) {
        logged.appendLeadingDiagnostics(to: &diagnostics)
        // Without sessions, every event is the default session's: one machine.
        let session = sessions.index(of: D.hasSessions ? logged.envelope.session : nil, in: document) { start }
        // Read once and set once: a machine is a small value.
        var current = sessions[session]
        let before = current.slot
        let decision: D.Decision
        let after: Int
        var tail: Int?
        var echo: JSONValue?
        var ran: (event: D.Event, slot: Int?)?
        if let walked = logged.decoded {
            let event: D.Event
            switch walked {
            case .fixed(let eventSlot):
                event = tables.event(inSlot: eventSlot)
                if followsCandidates { ran = (event, eventSlot) }
                tail = tables.tail(ofEventSlot: eventSlot, from: before)
                if Self.echoes, let value = held.echo {
                    echo = value
                    held.echo = nil
                }
            case .unfixed:
                event = held.event!
                held.event = nil
                if followsCandidates { ran = (event, nil) }
            }
            decision = D.decide(event, on: &current.machine)
            let index = logged.index
            D.forEachDiagnostic(of: decision) { diagnostics.append(Diagnostic(index: index, tables.code(of: $0))) }
            if let tail {
                after = tables.afterSlots[tail]
                // What makes the tables sound; a machine with hidden state that changes a
                // decision would fail here in every debug-built test that runs it.
                assert(tables.tail(tail, isWrittenBy: event, before: before,
                                   after: tables.slot(of: current.machine.state), decision: decision),
                       "a step's tail must follow from its event and the state before it")
            } else {
                after = tables.slot(of: current.machine.state)
                let given: GivenRouteChangeReason? = if case .unfixed(let given) = walked { given } else { nil }
                unfixedSteps.append(UnfixedStep(event: event, given: given, before: before, after: after,
                                                decision: decision))
            }
        } else {
            decision = D.noDecision
            after = before
            unfixedSteps.append(UnfixedStep(event: nil, given: nil, before: before, after: after, decision: decision))
        }
        current.slot = after
        sessions[session] = current
        let stepTail: Int
        if let tail, let echo {
            stepTail = ~specialSteps.append(tail, echoing: echo, of: document)
        } else if let tail {
            stepTail = tail
        } else {
            stepTail = ~specialSteps.append(.unfixed(unfixedSteps.count - 1))
        }
        let step = EventLogStep(id: logged.envelope.id, session: logged.envelope.session, tail: stepTail)
        if keepsSteps { steps.append(step) } else { lastStep = step }
        if followsCandidates, let late, var candidates = late.candidates.take() {
            var leading: [Diagnostic] = []
            if candidates.keepsFindings { logged.appendLeadingDiagnostics(to: &leading) }
            candidates.step(ran?.event, eventSlot: ran?.slot, index: logged.index, leading: leading,
                            observed: logged.observed(tables.observedFields, in: document), settings: settings,
                            document: document, tables: tables)
            late.candidates = candidates
        }

        guard let observed = logged.observed(tables.observedFields, in: document) else { return }
        mismatches.compare(observed, index: logged.index, document: document, name: { tables.stepFields[$0].name }) {
            tables.expected($0, afterSlot: after, decision: decision)
        }
        D.compareMore(observed, decision: decision, index: logged.index, settings: settings, document: document,
                      mismatches: &mismatches)
    }

    /// Reads one event: in canonical form (`type`, and what the type carries), or,
    /// where the ruleset reads them, as a raw notification (`notification`); exactly
    /// one of the two.
    @inline(__always)
    private static func readEvent(_ object: JSONValue, in document: JSONDocument, tables: RulesetTables<D>,
                                  held: inout HeldAside, refusesSessions: Bool,
                                  _ decoder: inout RequestDecoder) -> ReadEvent<WalkedEvent?> {
        var form = EventFormMembers()
        var fields = EventFields<D.EventField>()
        let envelope = decoder.envelope(of: object, in: document, own: tables.eventMembers, sessions: D.hasSessions) { _, member, value in
            switch member {
            case .type: form.type = value
            case .notification: form.notification = value
            case .userInfo: form.userInfo = value
            case .field(let field): fields[field] = value
            }
        }
        if D.hasSessions, refusesSessions, let session = envelope.session {
            decoder.report("a session needs a known start: 'initial' \"unknown\" checks one session only", at: session)
        }
        var decoded: DecodedEvent<D.Event>?
        var translationDiagnostic: DiagnosticCode?
        if let type = form.type, form.notification == nil {
            // The canonical form, most events of every log: what `eventForm` would do
            // with it, without a call to the form's general reader per event.
            decoded = decoder.name(type, in: tables.eventTypes).flatMap {
                canonicalEvent($0, fields, in: object, tables: tables, &decoder)
            }
        } else if tables.readsNotifications {
            switch decoder.eventForm(form, of: object, types: tables.eventTypes, mediaServices: tables.readsMediaServices) {
            case .canonical(let type)?:
                decoded = canonicalEvent(type, fields, in: object, tables: tables, &decoder)
            case .notification(let translated, let diagnostic)?:
                translationDiagnostic = diagnostic
                decoded = translate(translated, tables: tables)
            case nil:
                break
            }
        } else {
            decoder.reportMissing("type", in: object, "required string is missing")
        }
        var walked: WalkedEvent?
        if let decoded {
            if let slot = decoded.slot {
                walked = .fixed(slot)
                if Self.echoes, let echo = decoded.echo { held.echo = echo }
            } else {
                held.event = decoded.event
                walked = .unfixed(given: decoded.given)
            }
        }
        return ReadEvent(envelope: envelope, decoded: walked, translationDiagnostic: translationDiagnostic)
    }

    // Out of line: a raw notification is rare in a long log, and its closures would
    // be copied on every event's path.
    @inline(never)
    private static func translate(_ notification: AudioSessionNotification,
                                  tables: RulesetTables<D>) -> DecodedEvent<D.Event>? {
        guard var decoded = D.notificationEvents?.event(notification) else { return nil }
        decoded.slot = tables.eventSlot(of: decoded.event)
        return decoded
    }

    /// The event of the type at `position` in `EventType.allCases`, with its slot.
    @inline(__always)
    private static func canonicalEvent(_ position: Int, _ fields: EventFields<D.EventField>, in object: JSONValue,
                                       tables: RulesetTables<D>, _ decoder: inout RequestDecoder) -> DecodedEvent<D.Event>? {
        if let typeEvent = tables.typeEvent(at: position) {
            var decoded = DecodedEvent(typeEvent.event)
            decoded.slot = typeEvent.slot
            return decoded
        }
        if Self.echoes, let echo = tables.echo(ofTypeAt: position) {
            // Only checked: the machine runs on the slot's event, whatever the text, and
            // the step echoes the member's value, so no text is made of it.
            guard let value = decoder.required(fields[echo.member], of: .string, member: echo.member.name, in: object)
            else { return nil }
            var decoded = DecodedEvent(tables.event(inSlot: echo.slot))
            decoded.slot = echo.slot
            decoded.echo = value
            return decoded
        }
        guard var decoded = D.event(tables.eventType(at: position), fields, in: object, &decoder) else { return nil }
        decoded.slot = tables.payloadEventSlot(of: decoded.event)
        return decoded
    }
}

/// One step as the answer lists it: most steps' tail is precomputed (`tail` ≥ 0);
/// the others' (`~tail`) is a `SpecialStep`. Kept this small: a long log holds one
/// per event.
struct EventLogStep: Sendable {
    var id: JSONValue?
    /// The session the event named, if it named one.
    var session: JSONValue?
    var tail: Int
}

/// A step whose tail is not copied whole.
enum SpecialStep: Sendable {
    /// A precomputed tail around the value of the event's echoed member (`EchoedMember`),
    /// whose text is `SpecialSteps.echoedTexts[text]`.
    case echoing(tail: Int, text: Range<Int>)
    /// A tail written from the step's own values: `UnfixedStep` number `Int`.
    case unfixed(Int)
}

/// A log's special steps, with the text of the values they echo. An echoed value is
/// written here while the walk has its node at hand: by the time a long log's answer
/// is written, its nodes are out of the cache, and a visit to each cost more than the
/// rest of its step. The texts are then read in order, as the steps are.
struct SpecialSteps: Sendable {
    private(set) var steps: [SpecialStep] = []
    private(set) var echoedTexts: [UInt8] = []

    /// Appends `step`; returns its number.
    mutating func append(_ step: SpecialStep) -> Int {
        steps.append(step)
        return steps.count - 1
    }

    /// Appends a step with precomputed `tail` around the text of string node `value`;
    /// returns its number.
    mutating func append(_ tail: Int, echoing value: JSONValue, of document: JSONDocument) -> Int {
        let start = echoedTexts.count
        JSONWriter.appendString(value, of: document, to: &echoedTexts)
        return append(.echoing(tail: tail, text: start..<echoedTexts.count))
    }

    mutating func removeAll() {
        steps.empty()
        echoedTexts.empty()
    }

    /// Writes special step number `number`; `unfixedTail` writes the tail of `UnfixedStep` number `Int`.
    @inline(__always)
    func write(_ number: Int, tails: StepTails, to writer: inout JSONWriter, unfixedTail: (Int, inout JSONWriter) -> Void) {
        switch steps[number] {
        case .echoing(let tail, let text):
            echoedTexts.withUnsafeBufferPointer { texts in
                tails.withParts(tail) { writer.members($0, around: UnsafeBufferPointer(rebasing: texts[text]), $1) }
            }
        case .unfixed(let unfixedIndex):
            unfixedTail(unfixedIndex, &writer)
        }
    }
}

extension Array {
    /// Empties the array and keeps its memory, at the cost of what it held: an NDJSON
    /// line leaves at most one step in each list. `removeAll(keepingCapacity:)` checks
    /// uniqueness and takes `replaceSubrange`'s general path even for an empty array
    /// (and makes a new empty buffer for one that never held anything), each line.
    @inline(__always)
    fileprivate mutating func empty() {
        if count == 1 {
            removeLast()
        } else if !isEmpty {
            removeAll(keepingCapacity: true)
        }
    }
}

/// An event as the walk carries it from its reading to its run: a fixed event by its
/// slot, or the mark of an unfixed one, which the walk holds aside. Free of
/// references, so a long log moves it without retains.
enum WalkedEvent {
    case fixed(Int)
    case unfixed(given: GivenRouteChangeReason?)
}

extension PrecomputedSteps {
    /// Whether any event type echoes a member: for a ruleset whose none does, a
    /// constant, so its walk does not look.
    @inline(__always)
    static var echoes: Bool { !D.echoedMembers.isEmpty }

    /// What the walk holds aside from an event's reading to its run, so that what it
    /// moves per event holds no references and stays small: an unfixed event, the value
    /// of a fixed one's echoed member.
    struct HeldAside {
        var event: D.Event?
        var echo: JSONValue?
    }
}

/// A step whose event echoes what the log gave (an unknown route change reason, a
/// sound's name) or reached no machine (`event` is `nil`).
struct UnfixedStep<D: FiniteRulesetDescription>: Sendable {
    var event: D.Event?
    var given: GivenRouteChangeReason?
    var before: Int
    var after: Int
    var decision: D.Decision
}

/// What an event-log ruleset writes of its answer: the ruleset's head, `final`,
/// `sessions` when any event named one, the steps, then the ruleset's summary.
/// Not generic: it is written through `any SteppedAnswer`, whose witnesses a
/// generic type would leave unspecialized, so the ruleset's own parts are one closure
/// made where the ruleset is known, and a step's precomputed tail is copied as bytes.
struct EventLogAnswer: SteppedAnswer {
    /// What only the ruleset can write or read of its answer.
    enum Part {
        /// Everything before `steps`.
        case head
        /// The tail of `UnfixedStep` number `Int`.
        case unfixedTail(Int)
        /// Everything after `steps`.
        case summary
        /// The values of a step (read, not written), put where `into` points. Every
        /// part holds no reference, so making one and letting it go costs nothing.
        case values(EventLogStep, into: UnsafeMutablePointer<StepValues?>)
    }

    let document: JSONDocument
    let steps: [EventLogStep]
    let tails: StepTails
    let specialSteps: SpecialSteps
    /// One closure, so an answer allocates one context for all it holds (a second
    /// one for the values was an allocation, its captures' retains and releases, and
    /// its free, on every request): writes `Part`s, or gives the values `.values` asks.
    /// It is given this answer when called (its document, its special steps) rather
    /// than holding references of its own, and returns nothing: a `StepValues?` returned
    /// by every write was an outlined destroy of a nil, through its value witnesses.
    let ruleset: @Sendable (Part, EventLogAnswer, inout JSONWriter) -> Void
    let finalState: ShownState
    let usualStart: ShownState?
    let staticCheckFailures: [String]

    var stepCount: Int { steps.count }

    func values(ofStep index: Int) -> StepValues {
        var unused = JSONWriter(capacity: 0)
        var values: StepValues?
        withUnsafeMutablePointer(to: &values) { ruleset(.values(steps[index], into: $0), self, &unused) }
        // `.values` always answers; the state shown at the end stands in for a step none could.
        return values ?? StepValues(before: finalState, event: nil, canonicalObserved: [], run: nil)
    }

    var heldBytes: Int {
        steps.capacity * MemoryLayout<EventLogStep>.stride + specialSteps.steps.capacity * MemoryLayout<SpecialStep>.stride
            + specialSteps.echoedTexts.capacity
    }

    func writeHead(to writer: inout JSONWriter) { write(.head, to: &writer) }

    private func write(_ part: Part, to writer: inout JSONWriter) { ruleset(part, self, &writer) }

    func writeStep(_ index: Int, to writer: inout JSONWriter) {
        Self.write(steps[index], index: index, tails: tails, specialSteps: specialSteps, document: document,
                   to: &writer) { write(.unfixedTail($0), to: &$1) }
    }

    /// Writes one step; `unfixedTail` writes the tail of `UnfixedStep` number `Int`.
    @inline(__always)
    static func write(_ step: EventLogStep, index: Int, tails: StepTails, specialSteps: SpecialSteps, document: JSONDocument,
                      to writer: inout JSONWriter, unfixedTail: (Int, inout JSONWriter) -> Void) {
        // Most steps of a long log: no id, no session, a precomputed tail.
        if step.id == nil, step.session == nil, step.tail >= 0 {
            tails.withTail(step.tail) { writer.object(key: "index", integer: index, members: $0) }
            return
        }
        writer.beginObject()
        writer.stepHead(index: index, id: step.id, document: document)
        if let name = step.session {
            writer.key("session")
            writer.value(name, of: document)
        }
        if step.tail >= 0 {
            tails.withTail(step.tail) { writer.members($0) }
        } else {
            specialSteps.write(~step.tail, tails: tails, to: &writer, unfixedTail: unfixedTail)
        }
        writer.endObject()
    }

    func writeTail(to writer: inout JSONWriter) { write(.summary, to: &writer) }
}

extension EventLogAnswer {
    init<D: FiniteRulesetDescription>(_ ruleset: D.Type, document: JSONDocument, tables: RulesetTables<D>, settings: D.Settings,
                                final: PrecomputedSteps<D>.Session, usualStart: ShownState?, lateStart: LateStartAnswer?,
                                sessions: [(name: [UInt8], slot: Int)]?,
                                steps: [EventLogStep], specialSteps: SpecialSteps, unfixedSteps: [UnfixedStep<D>]) {
        self.init(document: document, steps: steps, tails: tables.tails, specialSteps: specialSteps, ruleset: { part, answer, writer in
            switch part {
            case .head:
                D.writeHead(settings, to: &writer, document: answer.document)
                writer.key("final")
                writer.raw(tables.stateJSON[final.slot])
                lateStart?.write(stateJSON: tables.stateJSON, to: &writer)
                guard let sessions else { return }
                writer.key("sessions")
                writer.beginObject()
                for session in sessions {
                    writer.key(escaping: String(decoding: session.name, as: UTF8.self))
                    writer.raw(tables.stateJSON[session.slot])
                }
                writer.endObject()
            case .unfixedTail(let unfixedIndex):
                let unfixed = unfixedSteps[unfixedIndex]
                tables.writeUnfixedTail(event: unfixed.event, given: unfixed.given, before: unfixed.before,
                                        after: unfixed.after, decision: unfixed.decision, to: &writer,
                                        document: answer.document)
            case .summary:
                D.writeSummary(of: final.machine, to: &writer)
            case .values(let step, let values):
                values.pointee = PrecomputedSteps<D>.values(of: step, tables: tables, specialSteps: answer.specialSteps,
                                                            unfixedSteps: unfixedSteps)
            }
        }, finalState: tables.shownState(final.slot), usualStart: usualStart,
           staticCheckFailures: D.staticCheckFailures(settings, document: document))
    }
}
