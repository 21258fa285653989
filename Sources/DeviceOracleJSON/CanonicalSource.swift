extension JSONDocument {
    /// Where the input already spells `value` exactly as `JSONWriter.value(_:of:)`
    /// writes it, the range of those bytes; else `nil`, and the writer must write it.
    /// For a non-empty object: a request that sends its objects compact, without
    /// escapes and with integers of up to 15 digits (as generators do) has them copied
    /// instead of written again member by member.
    public func canonicalSource(of value: JSONValue) -> Range<Int>? {
        let node = nodes[value.index]
        guard node.tag == .object, node.count > 0 else { return nil }
        // The first key follows its object on the tape; an unescaped one points at
        // its text, which a compact object begins right before: `{"`.
        let firstKey = nodes[value.index + 1]
        guard firstKey.tag == .string else { return nil }
        let start = Int(firstKey.payload) - 2
        return withInput { input in
            guard start >= 0, input[start] == UInt8(ascii: "{"), input[start + 1] == UInt8(ascii: "\"") else { return nil }
            if let end = adjacentStringsEnd(of: value, count: Int(node.count), in: input, from: start) { return start..<end }
            return Self.canonicalEnd(of: input, from: start).map { start..<$0 }
        }
    }

    /// The end of an object whose members are all unescaped strings with nothing
    /// between their tokens but the one byte the grammar requires there (`:` or `,`),
    /// read from the tape alone; else `nil`, and the bytes are scanned. Items of a
    /// generated log are mostly such objects, and they are checked one by one.
    private func adjacentStringsEnd(of object: JSONValue, count: Int, in input: UnsafeBufferPointer<UInt8>,
                                    from start: Int) -> Int? {
        // `{"key":"value","key":"value"}`: each string's text starts 3 bytes after
        // the end of the one before (`":"` or `","`), the first 2 after `{`.
        var expected = start + 2
        var node = nodes + object.index + 1
        for _ in 0..<count {
            let key = node[0], value = node[1]
            guard key.tag == .string, value.tag == .string, Int(key.payload) == expected,
                  Int(value.payload) == expected &+ Int(key.count) &+ 3 else { return nil }
            expected = Int(value.payload) &+ Int(value.count) &+ 3
            node += 2
        }
        // After the last value's closing quote, `}` is the object's last byte.
        let end = expected - 1
        return end <= input.count && input[end - 1] == UInt8(ascii: "}") ? end : nil
    }

    /// Calls `body` with the input bytes in `range` (from `canonicalSource(of:)`).
    /// Inlinable: it runs for every item of every store a long log renders.
    @inlinable @inline(__always)
    public func withSource<R>(_ range: Range<Int>, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        withInput { body(UnsafeBufferPointer(rebasing: $0[range])) }
    }

    /// The end of the container that opens at `start` if its text is canonical. The
    /// input parsed, so every token is well formed: what is left to find is anything
    /// the writer would spell otherwise — whitespace, an escape, a fraction or
    /// exponent, `-0`, or an integer too long to come back from a double unchanged.
    static func canonicalEnd(of input: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        var depth = 0
        var index = start
        while index < input.count {
            let byte = input[index]
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                index += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                index += 1
                if depth == 0 { return index }
            case UInt8(ascii: ","), UInt8(ascii: ":"):
                index += 1
            case UInt8(ascii: "\""):
                index += 1
                while index < input.count, input[index] != UInt8(ascii: "\"") {
                    if input[index] == UInt8(ascii: "\\") { return nil }
                    index += 1
                }
                index += 1
            case UInt8(ascii: "t"), UInt8(ascii: "n"):
                index += 4
            case UInt8(ascii: "f"):
                index += 5
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                if byte == UInt8(ascii: "-") { index += 1 }
                let digitsStart = index
                while index < input.count, input[index] >= UInt8(ascii: "0"), input[index] <= UInt8(ascii: "9") { index += 1 }
                // A double holds every integer of up to 15 digits exactly; `-0` is written `0`.
                guard index - digitsStart <= 15,
                      byte != UInt8(ascii: "-") || index - digitsStart > 1 || input[digitsStart] != UInt8(ascii: "0")
                else { return nil }
                if index < input.count,
                   input[index] == UInt8(ascii: ".") || input[index] == UInt8(ascii: "e") || input[index] == UInt8(ascii: "E") {
                    return nil
                }
            default:
                return nil  // whitespace
            }
        }
        return nil
    }
}
