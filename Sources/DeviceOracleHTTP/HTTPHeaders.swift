/// Header fields in the order received. Duplicates are kept as separate fields, never
/// merged (merging `Content-Length` or `Host` is how requests get smuggled); lookup
/// ignores the case of names (RFC 9110 §5.1).
public struct HTTPHeaders: Sendable, Sequence {
    public typealias Element = (name: String, value: String)

    private var fields: [Element]

    public init(_ fields: [Element] = []) {
        self.fields = fields
    }

    public var count: Int { fields.count }

    public mutating func add(name: String, value: String) {
        fields.append((name, value))
    }

    /// The value of the first field with this name.
    public subscript(name: String) -> String? {
        fields.first { Self.namesEqual($0.name, name) }?.value
    }

    /// Every value of the fields with this name, in order.
    public func values(for name: String) -> [String] {
        fields.filter { Self.namesEqual($0.name, name) }.map(\.value)
    }

    public func makeIterator() -> IndexingIterator<[Element]> { fields.makeIterator() }

    static func namesEqual(_ a: String, _ b: String) -> Bool {
        var a = a, b = b
        return a.withUTF8 { x in b.withUTF8 { y in asciiCaseInsensitiveEqual(UnsafeRawBufferPointer(x), UnsafeRawBufferPointer(y)) } }
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
