/// Header fields in the order received. Duplicates are kept as separate fields, never
/// merged (merging `Content-Length` or `Host` is how requests get smuggled); lookup
/// ignores the case of names (RFC 9110 §5.1).
///
/// The fields stay in the bytes they arrived in; a name or value becomes a `String`
/// only when asked for, so requests whose handlers read no headers build none. A
/// request head's fields are not even listed: a lookup reads the head's field lines
/// (the parser has checked them), so a request costs no field table of its own.
package struct HTTPHeaders: Sendable, Sequence {
    package typealias Element = (name: String, value: String)

    private typealias Field = RawRequestHead.Field

    private var storage: [UInt8]
    /// Where a request head's field lines start in `storage`; 0 when it holds no head
    /// (a head starts with its request line). Not an optional: see `HeadRange`.
    private var headFieldsStart: Int
    /// Fields added with `add`, after the head's (if any). Nil until one is: a request
    /// head's headers, copied into its request and destroyed twice, then hold one
    /// reference fewer to retain and release.
    private var added: [Field]?

    package init(_ elements: [Element] = []) {
        storage = []
        headFieldsStart = 0
        added = nil
        for (name, value) in elements { add(name: name, value: value) }
    }

    /// The fields of a request head: `head` holds the whole head as the parser
    /// accepted it, its field lines from `fieldsStart` to the empty line.
    init(head: [UInt8], fieldsStart: Int) {
        storage = head
        headFieldsStart = fieldsStart
        added = nil
    }

    /// Its bytes (a request head's, when it was made from one), for their memory to be
    /// written again (`RecycledBuffers`).
    mutating func takeStorage() -> [UInt8] {
        var taken: [UInt8] = []
        swap(&taken, &storage)
        return taken
    }

    package var count: Int {
        var count = 0
        forEachField { _, _ in
            count += 1
            return true
        }
        return count
    }

    package mutating func add(name: String, value: String) {
        let nameStart = storage.count
        storage += name.utf8
        let valueStart = storage.count
        storage += value.utf8
        var fields = added.take() ?? []  // taken, so appended to in place
        fields.append(Field(name: nameStart..<valueStart, value: valueStart..<storage.count))
        added = fields
    }

    /// The value of the first field with this name.
    package subscript(name: String) -> String? {
        var found: String?
        forEachField(named: name) { value in
            found = string(value)
            return false
        }
        return found
    }

    /// Every value of the fields with this name, in order.
    package func values(for name: String) -> [String] {
        var values: [String] = []
        forEachField(named: name) { value in
            values.append(string(value))
            return true
        }
        return values
    }

    package func makeIterator() -> AnyIterator<Element> {
        var elements: [Element] = []
        forEachField { name, value in
            elements.append((string(name), string(value)))
            return true
        }
        return AnyIterator(elements.makeIterator())
    }

    /// Calls `body` with each field's name and value ranges, in order, while it returns true.
    private func forEachField(_ body: (_ name: Range<Int>, _ value: Range<Int>) -> Bool) {
        if headFieldsStart > 0 {
            let finished: Bool = storage.withUnsafeBytes { bytes in
                // Each line is token ":" OWS value OWS CRLF, the value without CR or LF
                // (RequestHeadParser refused anything else); the empty line ends the head.
                var i = headFieldsStart
                while bytes[i] != 0x0D {
                    let nameStart = i
                    while bytes[i] != UInt8(ascii: ":") { i += 1 }
                    let name = nameStart..<i
                    i += 1
                    while ByteClass.isWhitespace(bytes[i]) { i += 1 }
                    let valueStart = i
                    while bytes[i] != 0x0D { i += 1 }
                    var valueEnd = i
                    while valueEnd > valueStart && ByteClass.isWhitespace(bytes[valueEnd - 1]) { valueEnd -= 1 }
                    i += 2
                    if !body(name, valueStart..<valueEnd) { return false }
                }
                return true
            }
            if !finished { return }
        }
        for field in added ?? [] where !body(field.name, field.value) { return }
    }

    /// Calls `body` with the value range of each field with this name, in order, while it returns true.
    private func forEachField(named name: String, _ body: (_ value: Range<Int>) -> Bool) {
        var name = name
        name.withUTF8 { wanted in
            storage.withUnsafeBytes { bytes in
                forEachField { fieldName, value in
                    guard asciiCaseInsensitiveEqual(UnsafeRawBufferPointer(rebasing: bytes[fieldName]), UnsafeRawBufferPointer(wanted)) else {
                        return true
                    }
                    return body(value)
                }
            }
        }
    }

    /// Bytes of the head these fields came from, as text (for the head's path, query and values).
    func string(_ range: Range<Int>) -> String {
        // Most requests have no query: an empty one is no call to make a `String`.
        guard !range.isEmpty else { return "" }
        return storage.withUnsafeBytes { String(decoding: UnsafeRawBufferPointer(rebasing: $0[range]), as: UTF8.self) }
    }

    /// The bytes of the head these fields came from (for ranges of the head).
    func withHeadBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        storage.withUnsafeBytes(body)
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

/// `asciiCaseInsensitiveEqual` for a token (RFC 9110 §5.6.2) and a name of lowercase
/// letters and "-", eight bytes at a time: setting bit 5 of every byte lowercases the
/// token's letters, and no other tchar becomes a letter or "-" that way (only CR, which
/// no token holds, becomes "-").
@inline(__always)
func tokenEqualsLowercase(_ token: UnsafeRawBufferPointer, _ name: StaticString) -> Bool {
    let count = name.utf8CodeUnitCount
    guard token.count == count else { return false }
    let expected = UnsafeRawPointer(name.utf8Start)
    var i = 0
    while i + 8 <= count {
        let word = token.loadUnaligned(fromByteOffset: i, as: UInt64.self) | 0x2020_2020_2020_2020
        guard word == expected.loadUnaligned(fromByteOffset: i, as: UInt64.self) else { return false }
        i += 8
    }
    while i < count {
        guard token[i] | 0x20 == expected.load(fromByteOffset: i, as: UInt8.self) else { return false }
        i += 1
    }
    return true
}
