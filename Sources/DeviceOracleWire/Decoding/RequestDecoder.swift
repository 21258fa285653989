import DeviceOracleJSON

/// Walks a request body and collects every schema problem with where it is, so
/// one `422` lists them all in document order (spec: up to 50, with pointers).
/// Readers return `nil` for a member that is absent or `null` — the same thing
/// everywhere — and for one of the wrong type, which they report.
struct RequestDecoder {
    static let listedProblems = 50

    let document: JSONDocument
    /// The problems and the scope, which most decoders never have: one optional
    /// reference, so a decoder that found nothing (an NDJSON line's) is freed by its
    /// document's release and a test of nil, not an outlined destroy of an array and
    /// an optional scope (two releases a line).
    private var extras: Extras?
    /// Whether the keys this decoder answers for repeat any: a problem from the start.
    private let repeatsKeys: Bool
    private var scoped: Scope? { extras?.scoped }
    private var duplicateKeys: [JSONValue] { scoped?.duplicateKeys ?? document.duplicateKeys }

    private final class Extras {
        /// The problems that may still be among the first listed: a body with millions
        /// of problems keeps a few of them, not millions of sentences.
        var recorded: [RecordedProblem] = []
        /// How many were reported.
        var recordedCount = 0
        /// Set when the decoder reads one value of the document (a case of a batch);
        /// nil for the whole document, whose own repeated keys are read in place.
        let scoped: Scope?

        init(scoped: Scope?) {
            self.scoped = scoped
        }

        /// A decoder's copy that records on its own.
        func copy() -> Extras {
            let copy = Extras(scoped: scoped)
            copy.recorded = recorded
            copy.recordedCount = recordedCount
            return copy
        }
    }

    /// The value a decoder reads, the pointer to it, which its caller knows (finding it
    /// again for each case of a batch would make the batch quadratic), and the
    /// document's repeated keys inside it.
    private struct Scope {
        let value: JSONValue
        let pointer: String
        let duplicateKeys: [JSONValue]
    }

    private struct RecordedProblem {
        /// Document position, for ordering.
        let position: Int
        /// The order it was reported in, among problems at one position.
        var sequence = 0
        let value: JSONValue
        /// A member that is missing from the object `value`.
        let missingMember: String?
        let detail: String
    }

    /// Reads the whole document.
    init(document: JSONDocument) {
        self.document = document
        extras = nil
        repeatsKeys = document.hasDuplicateKeys
    }

    /// Reads one value of the document (a case of a batch), which `pointer` points
    /// to; a repeated key elsewhere is not its problem.
    init(document: JSONDocument, scope: JSONValue, at pointer: String) {
        // A request that is its whole document (a body) is read as the document: no scope
        // to keep, nothing allocated (~450 instructions a request, and the accesses to it).
        guard scope != document.root || !pointer.isEmpty else {
            self = RequestDecoder(document: document)
            return
        }
        self.document = document
        let end = document.end(of: scope)
        let duplicateKeys = document.duplicateKeys.filter { $0.index >= scope.index && $0.index < end }
        extras = Extras(scoped: Scope(value: scope, pointer: pointer, duplicateKeys: duplicateKeys))
        repeatsKeys = !duplicateKeys.isEmpty
    }

    /// The JSON Pointer to a value inside the scope, from the document's root.
    func pointer(to value: JSONValue) -> String {
        guard let scoped else { return document.pointer(to: value, from: document.root) }
        return scoped.pointer + document.pointer(to: value, from: scoped.value)
    }

    var hasProblems: Bool { repeatsKeys || extras?.recorded.isEmpty == false }

    mutating func report(_ detail: String, at value: JSONValue) {
        record(RecordedProblem(position: value.index, value: value, missingMember: nil, detail: detail))
    }

    /// A required member that `object` lacks; listed after the object's other problems.
    mutating func reportMissing(_ member: String, in object: JSONValue, _ detail: String) {
        record(RecordedProblem(position: document.end(of: object), value: object, missingMember: member, detail: detail))
    }

    private mutating func record(_ problem: RecordedProblem) {
        if !isKnownUniquelyReferenced(&extras) { extras = extras?.copy() ?? Extras(scoped: nil) }
        guard let extras else { return }
        var problem = problem
        problem.sequence = extras.recordedCount
        extras.recordedCount += 1
        extras.recorded.append(problem)
        // Problems come mostly in document order, so the first listed are kept by a
        // sort now and then of a few times as many: linear in the problems reported.
        if extras.recorded.count == 4 * Self.listedProblems { extras.recorded = Self.first(extras.recorded) }
    }

    /// The first `listedProblems` in document order; stable.
    private static func first(_ problems: [RecordedProblem]) -> [RecordedProblem] {
        Array(problems.sorted { ($0.position, $0.sequence) < ($1.position, $1.sequence) }.prefix(listedProblems))
    }

    /// The value unless it is absent or `null`.
    @inline(__always)
    func present(_ value: JSONValue?) -> JSONValue? {
        guard let value, !document.isNull(value) else { return nil }
        return value
    }

    /// Whether a request (the body, or a request inside it) is an object, as
    /// every request must be; reports it otherwise.
    mutating func requireObject(_ request: JSONValue) -> Bool {
        let kind = document.kind(request)
        guard kind == .object else {
            report("the request body must be a JSON object, got \(kind.article)", at: request)
            return false
        }
        return true
    }

    /// The value when it has the expected kind; reports it otherwise.
    @inline(__always)
    mutating func value(_ value: JSONValue?, of kind: JSONKind) -> JSONValue? {
        guard let value = present(value), has(value, kind) else { return nil }
        return value
    }

    /// Whether a value (`null` included: an array element) has the expected kind;
    /// reports it otherwise.
    @inline(__always)
    mutating func has(_ value: JSONValue, _ kind: JSONKind) -> Bool {
        let actual = document.kind(value)
        guard actual == kind else {
            reportKind(of: value, actual, expected: kind)
            return false
        }
        return true
    }

    // Out of line: a report is rare, and building its message would bloat every
    // inlined check on a long log's path.
    @inline(never)
    private mutating func reportKind(of value: JSONValue, _ actual: JSONKind, expected kind: JSONKind) {
        report("expected \(kind.article), got \(actual.article)", at: value)
    }

    /// Like `value(_:of:)`, and reports an absent member as missing.
    mutating func required(_ value: JSONValue?, of kind: JSONKind, member: String, in object: JSONValue) -> JSONValue? {
        guard present(value) != nil else {
            reportMissing(member, in: object, "required \(kind.requiredName) is missing")
            return nil
        }
        return self.value(value, of: kind)
    }

    mutating func bool(_ value: JSONValue?) -> Bool? {
        self.value(value, of: .bool).flatMap(document.bool)
    }

    mutating func number(_ value: JSONValue?) -> Double? {
        self.value(value, of: .number).flatMap(document.number)
    }

    /// A name from a closed set, or a reported problem with a did-you-mean.
    @inline(__always)
    mutating func name<Name>(_ value: JSONValue, in names: ClosedNames<Name>) -> Name? {
        guard let string = self.value(value, of: .string) else { return nil }
        if let name = names.match(string, in: document) { return name }
        reportUnknown(string, in: names)
        return nil
    }

    @inline(never)
    private mutating func reportUnknown<Name>(_ string: JSONValue, in names: ClosedNames<Name>) {
        report(names.unknownNameDetail(document.string(string) ?? ""), at: string)
    }

    /// Checks that every member of `object` is one of `names` (and of the right
    /// kind, per `kinds`), calling `found` for each known, non-null member.
    mutating func closedObject<Name>(_ object: JSONValue, names: ClosedNames<Name>,
                                     _ found: (inout RequestDecoder, Name, JSONValue) -> Void) {
        // One reference for the whole walk: read from `self`, which `found` may change,
        // the document was retained for the loop and again for every member's match.
        let document = document
        for member in document.members(object) {
            guard let name = names.match(member.key, in: document) else {
                report(names.unknownNameDetail(document.string(member.key) ?? ""), at: member.key)
                continue
            }
            guard let value = present(member.value) else { continue }
            found(&self, name, value)
        }
    }

    /// The `422`, or `nil` when the request is valid.
    func rejection() -> RequestRejection? {
        guard hasProblems else { return nil }
        var all = extras?.recorded ?? []
        let recordedCount = extras?.recordedCount ?? 0
        // In document order already: only the first can be listed.
        for (offset, key) in duplicateKeys.prefix(Self.listedProblems).enumerated() {
            all.append(RecordedProblem(position: key.index, sequence: recordedCount + offset, value: key, missingMember: nil,
                                       detail: "duplicate key '\(document.string(key) ?? "")'"))
        }
        // Stable: problems at one position keep the order they were found in.
        let problems = Self.first(all).map { problem in
            var pointer = pointer(to: problem.value)
            if let member = problem.missingMember { pointer += "/" + JSONDocument.escapePointerToken(member) }
            return RequestRejection.Problem(pointer: pointer, detail: problem.detail)
        }
        return RequestRejection(listing: problems, of: recordedCount + duplicateKeys.count)
    }
}

extension RequestRejection {
    /// The `422` listing the first problems of `total`, in document order.
    init(listing problems: some Collection<Problem>, of total: Int) {
        let listed = RequestDecoder.listedProblems
        var detail = total == 1 ? "1 problem in the request body" : "\(total) problems in the request body"
        if total > listed { detail += "; the first \(listed) are listed" }
        self.init(kind: .invalidRequest, detail: detail, problems: Array(problems.prefix(listed)))
        problemCount = total
    }

}

/// One `422` for requests inside one body (the logs of a coverage request), each
/// already pointing into it, merged in document order as they come: the first
/// problems listed, and how many there were.
struct MergedRejections {
    private(set) var listed: [RequestRejection.Problem] = []
    private(set) var total = 0

    var isEmpty: Bool { total == 0 }

    mutating func add(_ rejection: RequestRejection) {
        listed += rejection.problems.prefix(RequestDecoder.listedProblems - listed.count)
        total += rejection.problemCount
    }

    var rejection: RequestRejection { RequestRejection(listing: listed, of: total) }
}

extension JSONKind {
    /// "required boolean is missing".
    var requiredName: String {
        switch self {
        case .null: "value"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}
