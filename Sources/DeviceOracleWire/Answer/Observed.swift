import DeviceOracleJSON

/// A canonical value an observed field is compared with, and the `expected` of
/// a mismatch.
enum FieldValue: Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([FieldValue])
    /// A value of the request itself (what the device observed).
    case requestValue(JSONValue)
    /// A value of another document of the request (an item the store holds, from an
    /// earlier line of an NDJSON body).
    case value(JSONValue, of: JSONDocument)

    func write(to writer: inout JSONWriter, document: JSONDocument) {
        switch self {
        case .null: writer.null()
        case .bool(let value): writer.bool(value)
        case .number(let value): writer.number(value)
        case .string(let value): writer.string(escaping: value)
        case .array(let values):
            writer.beginArray()
            for value in values { value.write(to: &writer, document: document) }
            writer.endArray()
        case .requestValue(let value): writer.value(value, of: document)
        case .value(let value, let valueDocument): writer.value(value, of: valueDocument)
        }
    }

    /// JSON equality; a value of another JSON type is simply not equal — the
    /// device reported something else, which is a mismatch, not a bad request.
    func matches(_ observed: JSONValue, in document: JSONDocument) -> Bool {
        switch self {
        case .null: return document.isNull(observed)
        case .bool(let value): return document.bool(observed) == value
        case .number(let value): return document.number(observed) == value
        case .string(let value): return document.string(observed, matches: value)
        case .array(let values):
            guard document.kind(observed) == .array, document.count(observed) == values.count else { return false }
            return zip(values, document.elements(observed)).allSatisfy { $0.matches($1, in: document) }
        case .requestValue(let value): return document.isEqual(value, to: observed, in: document)
        case .value(let value, let valueDocument): return valueDocument.isEqual(value, to: observed, in: document)
        }
    }
}

/// An observed field that differs from the canonical one.
struct Mismatch: Sendable {
    /// The step, or `nil` for `observedFinal`.
    let index: Int?
    /// The field name; `final.`-prefixed for `observedFinal`.
    let field: String
    let expected: FieldValue
    /// What the device showed: a value of the request, or a computed one (a
    /// measured timing difference).
    let observed: FieldValue
    /// Optional detail for a person (which ids were missing).
    let detail: String?

    init(index: Int?, field: String, expected: FieldValue, observed: FieldValue, detail: String? = nil) {
        self.index = index
        self.field = field
        self.expected = expected
        self.observed = observed
        self.detail = detail
    }

    func write(to writer: inout JSONWriter, document: JSONDocument) {
        writer.mismatch(index: index, field: field, detail: detail,
                        expected: { expected.write(to: &$0, document: document) },
                        observed: { observed.write(to: &$0, document: document) })
    }
}

extension JSONWriter {
    /// `{"index", "field", "expected", "observed", "detail"?}`: a mismatch as every
    /// answer lists it, whatever holds its values.
    @inline(__always)
    mutating func mismatch(index: Int?, field: String, detail: String?, expected: (inout JSONWriter) -> Void,
                           observed: (inout JSONWriter) -> Void) {
        beginObject()
        key("index")
        if let index { integer(index) } else { null() }
        key("field")
        string(escaping: field)
        key("expected")
        expected(&self)
        key("observed")
        observed(&self)
        if let detail {
            key("detail")
            string(escaping: detail)
        }
        endObject()
    }
}

/// The fields an `observed` (or `observedFinal`) object named, validated against
/// the ruleset's closed list; values are compared after the run.
struct ObservedFields<Field: Sendable>: Sendable {
    let entries: [(field: Field, value: JSONValue)]

    static var none: ObservedFields { ObservedFields(entries: []) }
}

extension ObservedFields {
    /// The named, non-null members of an object whose names were checked against `names`.
    init(_ object: JSONValue, names: ClosedNames<Field>, in document: JSONDocument) {
        var entries: [(field: Field, value: JSONValue)] = []
        // One allocation for the object's members, not one per growth.
        entries.reserveCapacity(document.count(object))
        for member in document.members(object) where !document.isNull(member.value) {
            if let field = names.match(member.key, in: document) { entries.append((field, member.value)) }
        }
        self.init(entries: entries)
    }
}

extension RequestDecoder {
    /// Reads an `observed`/`observedFinal` object: any subset of `names`, any
    /// other name a `422` with a did-you-mean. `null` values are not checked.
    mutating func observed<Field>(_ value: JSONValue?, names: ClosedNames<Field>) -> ObservedFields<Field>? {
        var entries: [(field: Field, value: JSONValue)] = []
        guard observedObject(value, names: names, { entries.append(($0, $1)) }) != nil else { return nil }
        return ObservedFields(entries: entries)
    }

    /// Checks an `observed` object as `observed(_:names:)` does, in the same one walk
    /// over its members, handing each named, non-null field to `found`; returns the object.
    @inline(__always)  // most events carry no `observed`: no call for those
    mutating func observedObject<Field>(_ value: JSONValue?, names: ClosedNames<Field>,
                                        _ found: (Field, JSONValue) -> Void = { _, _ in }) -> JSONValue? {
        guard let value else { return nil }
        return presentObservedObject(value, names: names, found)
    }

    private mutating func presentObservedObject<Field>(_ value: JSONValue, names: ClosedNames<Field>,
                                                       _ found: (Field, JSONValue) -> Void) -> JSONValue? {
        guard let object = self.value(value, of: .object) else { return nil }
        closedObject(object, names: names) { _, field, value in found(field, value) }
        return object
    }
}

/// Hands over what an engine found since the last call (an NDJSON log's findings
/// are taken line by line), leaving both empty: swapped out, not copied and emptied,
/// as emptying a shared array would allocate.
func takeFindings(_ mismatches: inout MismatchList, _ diagnostics: inout [Diagnostic])
    -> (mismatches: MismatchList, diagnostics: [Diagnostic]) {
    var taken = (mismatches: MismatchList(), diagnostics: [Diagnostic]())
    swap(&taken.mismatches, &mismatches)
    swap(&taken.diagnostics, &diagnostics)
    return taken
}

/// Collects mismatches in the order the spec lists them: by step, final last.
struct MismatchList {
    private(set) var entries: [Mismatch] = []
    /// Whether any `observed` or `observedFinal` was carried (`{}` counts).
    private(set) var carried = false

    /// Compares each observed field with its canonical value; `prefix` is
    /// `final.` for `observedFinal`. `canonical` returns `nil` for a field the
    /// ruleset checks in its own way (haptics' `visibleAt`/`hapticAt` feed one
    /// timing check instead of being compared one by one).
    mutating func compare<Field>(_ observed: ObservedFields<Field>?, index: Int?, prefix: String = "",
                                 document: JSONDocument, name: (Field) -> String,
                                 canonical: (Field) -> FieldValue?) {
        guard let observed else { return }
        carried = true
        for entry in observed.entries {
            guard let expected = canonical(entry.field) else { continue }
            if !expected.matches(entry.value, in: document) {
                entries.append(Mismatch(index: index, field: prefix + name(entry.field), expected: expected,
                                        observed: .requestValue(entry.value)))
            }
        }
    }

    mutating func append(_ mismatch: Mismatch) { entries.append(mismatch) }
}
