/// Header fields in the order received. Duplicates are kept as separate fields, never
/// merged (merging `Content-Length` or `Host` is how requests get smuggled); lookup
/// ignores the case of names (RFC 9110 §5.1).
///
/// The fields stay in the bytes they arrived in; a name or value becomes a `String`
/// only when asked for, so requests whose handlers read no headers build none.
public struct HTTPHeaders: Sendable, Sequence {
    public typealias Element = (name: String, value: String)

    private typealias Field = RawRequestHead.Field

    private var storage: [UInt8]
    private var fields: [Field]

    public init(_ elements: [Element] = []) {
        storage = []
        fields = []
        for (name, value) in elements { add(name: name, value: value) }
    }

    /// Fields that point into the bytes of a request head (both arrays are kept as they are).
    init(head: [UInt8], fields: [RawRequestHead.Field]) {
        storage = head
        self.fields = fields
    }

    public var count: Int { fields.count }

    public mutating func add(name: String, value: String) {
        let nameStart = storage.count
        storage += name.utf8
        let valueStart = storage.count
        storage += value.utf8
        fields.append(Field(name: nameStart..<valueStart, value: valueStart..<storage.count))
    }

    /// The value of the first field with this name.
    public subscript(name: String) -> String? {
        guard let index = firstIndex(of: name) else { return nil }
        return string(fields[index].value)
    }

    /// Every value of the fields with this name, in order.
    public func values(for name: String) -> [String] {
        var name = name
        return name.withUTF8 { wanted in
            fields.filter { matches($0, UnsafeRawBufferPointer(wanted)) }.map { string($0.value) }
        }
    }

    public func makeIterator() -> AnyIterator<Element> {
        var index = 0
        return AnyIterator {
            guard index < fields.count else { return nil }
            defer { index += 1 }
            return (string(fields[index].name), string(fields[index].value))
        }
    }

    private func firstIndex(of name: String) -> Int? {
        var name = name
        return name.withUTF8 { wanted in fields.firstIndex { matches($0, UnsafeRawBufferPointer(wanted)) } }
    }

    private func matches(_ field: Field, _ name: UnsafeRawBufferPointer) -> Bool {
        storage.withUnsafeBytes { asciiCaseInsensitiveEqual(UnsafeRawBufferPointer(rebasing: $0[field.name]), name) }
    }

    /// Bytes of the head these fields came from, as text (for the head's path, query and values).
    func string(_ range: Range<Int>) -> String {
        storage.withUnsafeBytes { String(decoding: UnsafeRawBufferPointer(rebasing: $0[range]), as: UTF8.self) }
    }

    func withBytes<R>(_ range: Range<Int>, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        storage.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[range])) }
    }
}

/// Compares ASCII bytes ignoring case; field names and tokens are ASCII.
func asciiCaseInsensitiveEqual(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
    guard a.count == b.count else { return false }
    for i in 0..<a.count {
        let x = a[i], y = b[i]
        if x == y || (isLetter(x) && x | 0x20 == y | 0x20) { continue }
        return false
    }
    return true
}

@inline(__always) func isLetter(_ byte: UInt8) -> Bool {
    (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
}

func asciiCaseInsensitiveEqual(_ a: UnsafeRawBufferPointer, _ text: StaticString) -> Bool {
    asciiCaseInsensitiveEqual(a, UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
}
