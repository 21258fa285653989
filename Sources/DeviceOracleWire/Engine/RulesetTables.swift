import DeviceOracleJSON
import DeviceOracleRules

/// A request's top-level members: the engine's own (`sequence` is `events` or
/// `runs`), then the ruleset's.
enum RequestMember<Setting: NamedCase>: Sendable {
    case initial, sequence, observedFinal
    case setting(Setting)
}

/// The top-level members a request gave, by what they are (the last of a repeated
/// one: a repeat is a `422` anyway).
struct GivenRequest<Setting: NamedCase> {
    var initial: JSONValue?
    var sequence: JSONValue?
    var observedFinal: JSONValue?
    var settings = GivenMembers<Setting>()
}

extension ClosedNames {
    /// Sorts the members of the request object `root` by name; unknown ones are left
    /// to the request's own check.
    func given<Setting>(_ root: JSONValue, in document: JSONDocument) -> GivenRequest<Setting>
        where Name == RequestMember<Setting> {
        var given = GivenRequest<Setting>()
        for member in document.members(root) {
            switch match(member.key, in: document) {
            case .initial?: given.initial = member.value
            case .sequence?: given.sequence = member.value
            case .observedFinal?: given.observedFinal = member.value
            case .setting(let setting)?: given.settings.append(setting, member.value)
            case nil: break
            }
        }
        return given
    }
}

/// An event's members besides the envelope: its form, then what its type carries.
enum EventObjectMember<Field: NamedCase>: Sendable {
    case type, notification, userInfo
    case field(Field)
}

/// Everything derived from a description, once per process: the closed name
/// sets, every state and fixed event numbered (a *slot*, in `allCases` order)
/// with its JSON, and every step's tail — `"event":…,"before":…,"after":…` and
/// the decision — for each fixed event from each state, written by running the
/// real machine. A step's tail is a function of its event and the state before
/// it (the rules decide the rest), so a long log writes most steps by copying one.
final class RulesetTables<D: FiniteRulesetDescription>: Sendable {
    /// `playback/1`.
    let ruleset: StaticString
    /// What `initial` may name, by position in `D.stateFields`.
    let initialFields: ClosedNames<Int>
    /// For each state field, the values `initial` may name it, by position in the
    /// field's `values` (`nil`: a flag, whose values are `false, true`).
    private let stateFieldNames: [ClosedNames<Int>?]
    /// The slot of `D.stateFields.initial`: where `initial` starts when it names no field.
    let initialSlot: Int
    /// For each state field, the slot of each state with that field set to each of
    /// its values, by `slot * valueCount + value`: `initial` is read by looking up
    /// slots, not by writing a state through a key path per request.
    private let slotsWithField: [(valueCount: Int, slots: [Int])]
    /// What `observed` may name, by position in `stepFields`.
    let observedFields: ClosedNames<Int>
    let stepFields: [D.StepField]
    /// What `observedFinal` may name: the state's fields, then the machine's.
    let finalFields: [D.MachineField]
    /// Each event type's name, to its position in `allCases`.
    let eventTypes: ClosedNames<Int>
    private let eventTypeCases: [D.EventType]
    /// The event of each type that carries nothing else, and its slot.
    private let typeEvents: [(event: D.Event, slot: Int)?]
    let eventMembers: ClosedNames<EventObjectMember<D.EventField>>
    /// Whether events may come as raw notifications, and whether media-services ones are known.
    let readsNotifications: Bool
    let readsMediaServices: Bool

    private let stateSlots: [D.State: Int]
    /// Each state's JSON, by slot.
    let stateJSON: [[UInt8]]
    let stateCount: Int
    private let eventSlots: [D.Event: Int]
    /// Each fixed event, by slot.
    private let slotEvents: [D.Event]
    /// Every state, by its slot.
    let slotStates: [D.State]
    /// Each state's fields, by slot, in the order answers write them.
    private let slotFields: [[ModelField]]
    /// The fixed events that carry more than their type, and their slots.
    private let payloadEventSlots: [(event: D.Event, slot: Int)]
    /// For each event type whose member is echoed, that member and the slot of its
    /// event (run with `echoPlaceholder`), by the type's position in `allCases`.
    private let echoes: [(member: D.EventField, slot: Int)?]
    /// The events whose type is all they carry, and their type's name.
    private let typeNames: [D.Event: String]
    /// Every tail, by `eventSlot * stateCount + stateSlot`.
    let tails: StepTails
    /// The state after each tail's step, by the same index.
    let afterSlots: [Int]
    /// The decision of each tail: what a late start's candidates compare with `observed`
    /// without running a machine (late-start.md).
    let tailDecisions: [D.Decision]
    /// A look along a few cases: hashing a `String`-backed case hashes its spelling.
    private let diagnosticCodes: [(diagnostic: D.RuleDiagnostic, code: DiagnosticCode)]

    init(ruleset: StaticString) {
        self.ruleset = ruleset
        let stateFields = D.stateFields.fields
        let fromSettings = D.fieldsFromSettings.compactMap(D.stateFields.position(of:))
        initialFields = ClosedNames("initial field", stateFields.indices.filter { !fromSettings.contains($0) }
                                    .map { (stateFields[$0].name, $0) })
        stateFieldNames = stateFields.map { field in
            field.names.map { names in ClosedNames(field.name, names.enumerated().map { ($1, $0) }) }
        }
        stepFields = D.stepFields
        observedFields = ClosedNames(observed: stepFields, "observed field")
        finalFields = D.finalFields
        eventTypeCases = Array(D.EventType.allCases)
        eventTypes = ClosedNames("event type", eventTypeCases.enumerated().map { ($0.element.name, $0.offset) })
        let form: [(String, EventObjectMember<D.EventField>)] = D.notificationEvents == nil
            ? [("type", .type)] : [("type", .type), ("notification", .notification), ("userInfo", .userInfo)]
        eventMembers = ClosedNames("event member", form + D.EventField.allCases.map { ($0.name, .field($0)) })
        readsNotifications = D.notificationEvents != nil
        readsMediaServices = D.notificationEvents?.mediaServices != nil

        let states = D.stateFields.allStates
        stateCount = states.count
        slotStates = states
        let slots = Dictionary(uniqueKeysWithValues: states.enumerated().map { ($0.element, $0.offset) })
        stateSlots = slots
        // Every state is one of `allStates`: made here once, before any request.
        initialSlot = slots[D.stateFields.initial]!
        slotsWithField = stateFields.map { field in
            (field.values.count, states.flatMap { state in
                field.values.map { value in
                    var state = state
                    field.set(value, in: &state)
                    return slots[state]!
                }
            })
        }
        slotFields = states.map(D.stateFields.modelFields(of:))
        stateJSON = slotFields.map { fields in
            var writer = JSONWriter(capacity: 256)
            writer.node(fields)
            return writer.finish()
        }

        var typeNames: [D.Event: String] = [:]
        for type in D.EventType.allCases { if let event = D.event(type) { typeNames[event] = type.name } }
        self.typeNames = typeNames
        let typeOnly = D.EventType.allCases.compactMap(D.event)
        // The echoed members' events come last, in `echoedMembers` order.
        let firstEchoSlot = typeOnly.count + D.fixedPayloadEvents.count
        let events = typeOnly + D.fixedPayloadEvents + D.echoedMembers.map { $0.event(Self.echoPlaceholder) }
        let eventSlots = Dictionary(uniqueKeysWithValues: events.enumerated().map { ($0.element, $0.offset) })
        self.eventSlots = eventSlots
        slotEvents = events
        typeEvents = eventTypeCases.map { type in D.event(type).map { ($0, eventSlots[$0]!) } }
        payloadEventSlots = D.fixedPayloadEvents.map { ($0, eventSlots[$0]!) }
        echoes = eventTypeCases.map { type in
            D.echoedMembers.firstIndex { $0.type == type }.map { (D.echoedMembers[$0].member, firstEchoSlot + $0) }
        }
        diagnosticCodes = D.RuleDiagnostic.allCases.map { diagnostic in
            guard let code = DiagnosticCode(rawValue: diagnostic.rawValue) else {
                preconditionFailure("\(diagnostic.rawValue) is not a diagnostic code")
            }
            return (diagnostic, code)
        }

        var tails: [UInt8] = [], tailEnds: [Int] = [], tailSplits: [Int] = [], afterSlots: [Int] = []
        var tailDecisions: [D.Decision] = []
        for (eventSlot, event) in events.enumerated() {
            let echoed = eventSlot >= firstEchoSlot ? D.echoedMembers[eventSlot - firstEchoSlot] : nil
            for (slot, before) in states.enumerated() {
                var (tail, after) = Self.tail(of: event, from: before, slot: slot, typeName: typeNames[event],
                                              stateJSON: stateJSON, stateSlots: stateSlots)
                if let echoed {
                    // Kept without the placeholder: the step's own value goes there.
                    let placeholder = Self.placeholder(in: tail, echoing: echoed, from: before, slot: slot, after: after,
                                                       stateJSON: stateJSON, stateSlots: stateSlots)
                    tail.removeSubrange(placeholder)
                    tailSplits.append(placeholder.lowerBound)
                } else {
                    tailSplits.append(0)
                }
                tails += tail
                tailEnds.append(tails.count)
                afterSlots.append(after)
                var machine = D.machine(startingAt: before)
                tailDecisions.append(D.decide(event, on: &machine))
            }
        }
        self.tailDecisions = tailDecisions
        self.tails = StepTails(bytes: tails, ends: tailEnds, splits: tailSplits)
        self.afterSlots = afterSlots
    }

    /// The text an echoed member's event is run and precomputed with: a control
    /// character, which no other part of a tail holds.
    private static var echoPlaceholder: String { "\u{1}" }

    /// The tail of `event` from `before` (in `slot`), written by running the real machine,
    /// and the slot of the state after it.
    private static func tail(of event: D.Event, from before: D.State, slot: Int, typeName: String?,
                             stateJSON: [[UInt8]], stateSlots: [D.State: Int]) -> (tail: [UInt8], after: Int) {
        var machine = D.machine(startingAt: before)
        let decision = D.decide(event, on: &machine)
        let after = stateSlots[machine.state]!
        var writer = JSONWriter(capacity: 512)
        writeTail(event: event, typeName: typeName, given: nil, before: stateJSON[slot], after: stateJSON[after],
                  decision: decision, to: &writer, document: nil)
        return (writer.finish(), after)
    }

    /// Where `tail`, written with the placeholder, holds it. Checks that another text
    /// changes nothing but itself: the rules do not read it.
    private static func placeholder(in tail: [UInt8], echoing echoed: EchoedMember<D>, from before: D.State, slot: Int,
                                    after: Int, stateJSON: [[UInt8]], stateSlots: [D.State: Int]) -> Range<Int> {
        let placeholder = JSONWriter.quoted(echoPlaceholder)
        guard let start = tail.indices.first(where: { tail[$0...].starts(with: placeholder) }) else {
            preconditionFailure("\(echoed.type.name)'s tail does not echo its \(echoed.member.name)")
        }
        let range = start..<start + placeholder.count
        let other = "another \(echoed.member.name)"
        let otherTail = Self.tail(of: echoed.event(other), from: before, slot: slot, typeName: nil,
                                  stateJSON: stateJSON, stateSlots: stateSlots)
        var expected = tail
        expected.replaceSubrange(range, with: JSONWriter.quoted(other))
        precondition(otherTail.after == after && otherTail.tail == expected,
                     "the rules read \(echoed.type.name)'s \(echoed.member.name), which the engine echoes unread")
        return range
    }

    @inline(__always)
    func eventType(at position: Int) -> D.EventType { eventTypeCases[position] }

    /// The event of a type that carries nothing else, with its slot.
    @inline(__always)
    func typeEvent(at position: Int) -> (event: D.Event, slot: Int)? { typeEvents[position] }

    /// The slot of an event that carries more than its type, if its form is fixed:
    /// a look along the few such events, cheaper than hashing one.
    @inline(__always)
    func payloadEventSlot(of event: D.Event) -> Int? {
        for entry in payloadEventSlots where entry.event == event { return entry.slot }
        return nil
    }

    /// The fixed event in `slot`.
    @inline(__always)
    func event(inSlot slot: Int) -> D.Event { slotEvents[slot] }

    /// The echoed member of the type at `position` and its event's slot, if it has one.
    @inline(__always)
    func echo(ofTypeAt position: Int) -> (member: D.EventField, slot: Int)? { echoes[position] }

    /// The slot of any event, if its form is fixed.
    func eventSlot(of event: D.Event) -> Int? { eventSlots[event] }

    @inline(__always)
    func slot(of state: D.State) -> Int { stateSlots[state]! }

    /// The slot of `state`, most likely `slot`'s (a machine made from the state in
    /// `slot`): one comparison instead of hashing the state, on every request.
    @inline(__always)
    func slot(of state: D.State, likely slot: Int) -> Int {
        slotStates[slot] == state ? slot : self.slot(of: state)
    }

    /// The fields of the state in `slot`, in the order answers write them.
    func fields(ofSlot slot: Int) -> [ModelField] { slotFields[slot] }

    /// The slot of the state in `slot` with the field at `position` set to what
    /// `initial` gives for it, reporting its problems (`slot` itself after one).
    func readInitial(_ position: Int, _ value: JSONValue, from slot: Int, _ decoder: inout RequestDecoder) -> Int {
        let given = if let names = stateFieldNames[position] { decoder.name(value, in: names) } else {
            decoder.bool(value).map { $0 ? 1 : 0 }
        }
        guard let given else { return slot }
        let field = slotsWithField[position]
        return field.slots[slot * field.valueCount + given]
    }

    /// The canonical value of the field at `position` of `stepFields` after a step
    /// that left its machine in `slot`.
    @inline(__always)
    func expected(_ position: Int, afterSlot slot: Int, decision: D.Decision) -> FieldValue? {
        switch stepFields[position].canonical {
        case .state(let field): FieldValue(slotFields[slot][field].value)
        case .read(let value): value(decision)
        }
    }

    /// The canonical value of the field at `position` of `finalFields` for a run that
    /// ended with `machine`.
    func expectedFinal(_ position: Int, of machine: D.Machine) -> FieldValue? {
        switch finalFields[position].canonical {
        case .state(let field): FieldValue(slotFields[slot(of: machine.state)][field].value)
        case .read(let value): value(machine)
        }
    }

    /// The index of a fixed event's tail from the state in `slot`.
    @inline(__always)
    func tail(ofEventSlot eventSlot: Int, from slot: Int) -> Int { eventSlot * stateCount + slot }

    /// Whether a step's own values write exactly its precomputed tail.
    func tail(_ tail: Int, isWrittenBy event: D.Event, before: Int, after: Int, decision: D.Decision) -> Bool {
        var writer = JSONWriter(capacity: 512)
        Self.writeTail(event: event, typeName: typeNames[event], given: nil, before: stateJSON[before], after: stateJSON[after],
                       decision: decision, to: &writer, document: nil)
        let written = writer.finish()
        return afterSlots[tail] == after && tails.text(tail, echoing: JSONWriter.quoted(Self.echoPlaceholder)) == written
    }

    func code(of diagnostic: D.RuleDiagnostic) -> DiagnosticCode {
        diagnosticCodes.first { $0.diagnostic == diagnostic }!.code
    }

    /// `"event":…,"before":…,"after":…` and the decision's members, for an unfixed
    /// step. Its event is never one of a type alone (those all have slots), so no
    /// look-up of a type name: that would hash the event, a sound's name included.
    func writeUnfixedTail(event: D.Event?, given: GivenRouteChangeReason?, before: Int, after: Int,
                          decision: D.Decision, to writer: inout JSONWriter, document: JSONDocument) {
        Self.writeTail(event: event, typeName: nil, given: given, before: stateJSON[before],
                       after: stateJSON[after], decision: decision, to: &writer, document: document)
    }

    /// `typeName`: the event's type, when that is all the event carries.
    private static func writeTail(event: D.Event?, typeName: String?, given: GivenRouteChangeReason?,
                                  before: [UInt8], after: [UInt8], decision: D.Decision,
                                  to writer: inout JSONWriter, document: JSONDocument?) {
        writer.key("event")
        if let event {
            if let name = typeName {
                writer.beginObject()
                writer.key("type")
                writer.string(escaping: name)
                writer.endObject()
            } else {
                D.writePayloadEvent(event, given: given, to: &writer, document: document)
            }
        } else {
            writer.null()
        }
        writer.key("before")
        writer.raw(before)
        writer.key("after")
        writer.raw(after)
        D.writeDecision(decision, to: &writer)
    }
}

/// Step tails back to back, and where each ends. Not generic: the answer's writer
/// copies them without knowing the ruleset.
final class StepTails: Sendable {
    private let bytes: [UInt8]
    private let ends: [Int]
    /// Where an echoed member's value goes in each tail, from its start; 0 for a tail
    /// that echoes nothing.
    private let splits: [Int]

    init(bytes: [UInt8], ends: [Int], splits: [Int]) {
        self.bytes = bytes
        self.ends = ends
        self.splits = splits
    }

    @inline(__always)
    func withTail<R>(_ tail: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        let start = tail == 0 ? 0 : ends[tail - 1]
        return bytes.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[start..<ends[tail]])) }
    }

    /// The whole text of a tail, with `echo` where an echoing one's value goes.
    func text(_ tail: Int, echoing echo: [UInt8]) -> [UInt8] {
        splits[tail] == 0 ? withTail(tail) { Array($0) } : withParts(tail) { Array($0) + echo + Array($1) }
    }

    /// The tail of an echoing step, in its two parts around the echoed value.
    @inline(__always)
    func withParts<R>(_ tail: Int, _ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) -> R) -> R {
        let start = tail == 0 ? 0 : ends[tail - 1], split = start + splits[tail]
        precondition(split > start, "an echoing step's tail has a place for the echo")
        return bytes.withUnsafeBufferPointer {
            body(UnsafeBufferPointer(rebasing: $0[start..<split]), UnsafeBufferPointer(rebasing: $0[split..<ends[tail]]))
        }
    }
}

extension ClosedNames where Name: NamedCase {
    /// Every case, spelled as its name, in declaration order.
    convenience init(named kind: String) {
        self.init(kind, Name.allCases.map { ($0.name, $0) })
    }
}

extension JSONWriter {
    /// `{"type":"routeChanged","reason":…}`: a known reason by name, an unknown one as given.
    mutating func routeChangedEvent(_ reason: RouteChangeReason?, given: GivenRouteChangeReason?,
                                    document: JSONDocument?) {
        beginObject()
        key("type")
        string("routeChanged")
        key("reason")
        if let reason { string(escaping: reason.name) } else if let given = given?.given, let document { value(given, of: document) }
        endObject()
    }
}
