import DeviceOracleJSON
import DeviceOracleRules

// `haptics/1` part 1 on the wire: reads the exported `pattern` leniently — what
// the contract cannot read is a violation, not a bad request — and answers
// `patternCheck` with pointers into the request.

/// Both spellings of each parameter ID, Swift case names first (so a typo's
/// did-you-mean suggests those).
let hapticParameterNames = ClosedNames<HapticParameterID>(
    "expectedParameters field",
    HapticParameterID.allCases.map { ($0.rawValue, $0) } + HapticParameterID.allCases.map { ($0.coreHapticsRawValue, $0) })

private enum PatternEventMember: String, CaseIterable, Sendable {
    case eventType, relativeTime, parameters
}

private let patternEventMembers = ClosedNames<PatternEventMember>("pattern event member")

/// One event of `pattern`, as request values: absent (or `null`) members are `nil`.
struct GivenPatternEvent: Sendable {
    let object: JSONValue
    /// Its position in `pattern`.
    let index: Int
    var eventType: JSONValue?
    var relativeTime: JSONValue?
    /// The value that counts for each parameter: the last one given.
    var parameters = GivenParameters()

    /// Reads both parameter shapes: an object keyed by parameter ID, or an array of
    /// `{"parameterID", "value"}` (CHHapticEventParameter). Unknown IDs, entries
    /// that are not objects, and entries without a value are ignored.
    init(_ object: JSONValue, index: Int, in document: JSONDocument) {
        self.object = object
        self.index = index
        var given: JSONValue?
        for member in document.members(object) where !document.isNull(member.value) {
            switch patternEventMembers.match(member.key, in: document) {
            case .eventType?: eventType = member.value
            case .relativeTime?: relativeTime = member.value
            case .parameters?: given = member.value
            case nil: break
            }
        }
        guard let given else { return }
        switch document.kind(given) {
        case .object:
            for member in document.members(given) where !document.isNull(member.value) {
                if let parameter = hapticParameterNames.match(member.key, in: document) {
                    parameters[parameter] = member.value
                }
            }
        case .array:
            for entry in document.elements(given) where document.kind(entry) == .object {
                guard let id = document.member(entry, "parameterID"), document.kind(id) == .string,
                      let parameter = hapticParameterNames.match(id, in: document),
                      let value = document.member(entry, "value"), !document.isNull(value) else { continue }
                parameters[parameter] = value
            }
        default:
            break
        }
    }

    /// What the contract can read: strings and numbers of the right kind.
    func rulesEvent(in document: JSONDocument) -> HapticPatternEvent {
        HapticPatternEvent(eventType: eventType.flatMap(document.string),
                           relativeTime: relativeTime.flatMap(document.number),
                           parameters: parameters.numbers(in: document))
    }
}

/// Each parameter's value in a pattern event, as the request gave it.
typealias GivenParameters = HapticParameterValues<JSONValue?>

extension HapticParameterValues where Element == JSONValue? {
    /// The values that are numbers, as the rules take them.
    func numbers(in document: JSONDocument) -> HapticEventParameters {
        HapticEventParameters(hapticIntensity: hapticIntensity.flatMap(document.number),
                              hapticSharpness: hapticSharpness.flatMap(document.number))
    }
}

/// `patternCheck`: the verdict of the pattern contract and every violation.
struct HapticsPatternCheck: Sendable {
    struct Violation {
        let rule: HapticPatternRule
        let pointer: String
        let expected: FieldValue
        let observed: FieldValue
    }

    let violations: [Violation]
    var passed: Bool { violations.isEmpty }

    /// Pointers: `count` at `/pattern`; the other rules at the member they read —
    /// a parameter in the shape and spelling it was given (`…/parameters/HapticIntensity`,
    /// `…/parameters/1/value`) — and, when it is missing, where it belongs
    /// (`…/eventType`, `…/relativeTime`, and `…/parameters` for a parameter).
    /// Each is built from the pattern's pointer and the event's position, so a long
    /// pattern's pointers cost no more than their length. That pointer is only
    /// worked out when a rule is broken: a passing pattern, the common case, needs none.
    init(patternPointer pointerToPattern: () -> String, events: [GivenPatternEvent], contract: HapticPatternContract,
         document: JSONDocument) {
        let broken = contract.violations(of: events.map { $0.rulesEvent(in: document) })
        let patternPointer = broken.isEmpty ? "" : pointerToPattern()
        /// The member a rule read, or where it belongs when it is missing (`observed: null`).
        func given(_ value: JSONValue?, member: String, of event: Int) -> (pointer: String, observed: FieldValue) {
            let object = events[event].object, eventPointer = patternPointer + "/\(events[event].index)"
            guard let value else { return (eventPointer + "/" + member, .null) }
            return (eventPointer + document.pointer(to: value, from: object), .requestValue(value))
        }
        let range = FieldValue.array([.number(HapticPatternContract.parameterRange.lowerBound),
                                      .number(HapticPatternContract.parameterRange.upperBound)])
        violations = broken.map { violation in
            let found: (pointer: String, observed: FieldValue), expected: FieldValue
            switch violation {
            case .count:
                found = (patternPointer, .number(Double(events.count)))
                expected = .number(Double(HapticPatternContract.eventCount))
            case .eventType(let event):
                found = given(events[event].eventType, member: "eventType", of: event)
                expected = .string(HapticPatternContract.eventType)
            case .relativeTime(let event):
                found = given(events[event].relativeTime, member: "relativeTime", of: event)
                expected = .number(HapticPatternContract.relativeTime)
            case .parameterRange(let event, let parameter):
                found = given(events[event].parameters[parameter], member: "parameters", of: event)
                expected = range
            case .parameterValue(let event, let parameter):
                found = given(events[event].parameters[parameter], member: "parameters", of: event)
                expected = .number(contract.expected[parameter])
            }
            return Violation(rule: violation.rule, pointer: found.pointer, expected: expected, observed: found.observed)
        }
    }

    /// `{"verdict", "violations": [{"rule", "pointer", "expected", "observed"}]}`.
    func write(to writer: inout JSONWriter, document: JSONDocument) {
        writer.beginObject()
        writer.key("verdict")
        writer.string(passed ? "pass" : "fail")
        writer.key("violations")
        writer.beginArray()
        for violation in violations {
            writer.beginObject()
            writer.key("rule")
            writer.string(escaping: violation.rule.rawValue)
            writer.key("pointer")
            writer.string(escaping: violation.pointer)
            writer.key("expected")
            violation.expected.write(to: &writer, document: document)
            writer.key("observed")
            violation.observed.write(to: &writer, document: document)
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
    }

    /// `canonicalPattern`: the rules' one fixed event, whatever the tuned values;
    /// written once, since every answer carries it.
    static let canonicalPatternJSON: [UInt8] = {
        var writer = JSONWriter(capacity: 128)
        writeCanonicalPattern(to: &writer)
        return writer.finish()
    }()

    private static func writeCanonicalPattern(to writer: inout JSONWriter) {
        writer.beginArray()
        writer.beginObject()
        writer.key("eventType")
        writer.string(escaping: HapticPatternContract.eventType)
        writer.key("relativeTime")
        writer.number(HapticPatternContract.relativeTime)
        writer.key("parameters")
        writer.beginObject()
        for parameter in HapticParameterID.allCases {
            writer.key(escaping: parameter.rawValue)
            writer.number(HapticParameters.canonical[parameter])
        }
        writer.endObject()
        writer.endObject()
        writer.endArray()
    }
}
