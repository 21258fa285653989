import DeviceOracleJSON

/// Each case's name as a JSON string, quoted once per process, for names an answer
/// writes on every step: `JSONWriter.string(escaping:)` would make the `rawValue`
/// string, then scan and copy it, each time.
struct QuotedNames<Name: CaseIterable & Equatable & RawRepresentable & Sendable>: Sendable where Name.RawValue == String {
    private let cases: [Name]
    private let quoted: [[UInt8]]

    init() {
        cases = Array(Name.allCases)
        quoted = cases.map { JSONWriter.quoted($0.rawValue) }
    }

    /// `name`, quoted. A look along the few cases costs less than hashing one.
    subscript(_ name: Name) -> [UInt8] {
        guard let position = cases.firstIndex(of: name) else { preconditionFailure("\(Name.self).allCases lacks \(name)") }
        return quoted[position]
    }
}

extension JSONWriter {
    /// `text` as a JSON string: quoted, and escaped where RFC 8259 requires.
    static func quoted(_ text: String) -> [UInt8] {
        var writer = JSONWriter(capacity: text.utf8.count + 2)
        writer.string(escaping: text)
        return writer.finish()
    }
}
