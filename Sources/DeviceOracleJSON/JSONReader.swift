/// A JSON text that is not RFC 8259 JSON, with where it went wrong.
public struct JSONSyntaxError: Error, Equatable, Sendable {
    /// Byte offset from 0.
    public let offset: Int
    /// Line and column from 1; the column counts bytes.
    public let line: Int
    public let column: Int
    /// What was wrong, for a person ("expected ',' or ']' after an array element").
    public let reason: String
    /// True when the error is the nesting limit rather than the syntax.
    public let isDepthLimit: Bool
}

/// Strict RFC 8259 reader producing a `JSONDocument`. A leading UTF-8 BOM is
/// skipped; invalid UTF-8, lone surrogate escapes, raw control bytes in strings,
/// numbers beyond the range of a double and nesting deeper than `maxDepth` are errors.
public enum JSONReader {
    public static let defaultMaxDepth = 64

    public static func parse(_ input: [UInt8], maxDepth: Int = defaultMaxDepth) throws(JSONSyntaxError) -> JSONDocument {
        try checkSize(input.count)
        var parser = Parser(maxDepth: maxDepth, nodes: JSONNodeBuffer(capacity: Parser.expectedNodes(input.count)))
        let failure = input.withUnsafeBufferPointer { bytes in parser.parseDocument(bytes).map { syntaxError($0, in: bytes) } }
        if let failure { throw failure }
        return JSONDocument(input: input, nodes: parser.nodes, decoded: parser.decoded,
                            duplicateKeys: parser.duplicateKeys)
    }

    /// Node handles are 32-bit, and a text has fewer nodes than bytes.
    static func checkSize(_ count: Int) throws(JSONSyntaxError) {
        guard count < Int(UInt32.max) else {
            throw JSONSyntaxError(offset: 0, line: 1, column: 1, reason: "the text is 4 GiB or larger", isDepthLimit: false)
        }
    }

    /// Parses `text` into `storage`, which no document shares (`JSONLineReader`);
    /// whether a part of it may have grown (`Storage.refill`).
    @discardableResult @inline(__always)
    static func parse(_ text: UnsafeRawBufferPointer, into storage: JSONDocument.Storage, maxDepth: Int) throws(JSONSyntaxError)
        -> Bool {
        try checkSize(text.count)
        return try storage.refill(text) { (input, tape, decoded, duplicateKeys) throws(JSONSyntaxError) in
            tape.reserve(Parser.expectedNodes(input.count))
            var parser = Parser(maxDepth: maxDepth, nodes: tape)
            swap(&parser.decoded, &decoded)
            swap(&parser.duplicateKeys, &duplicateKeys)
            let failure = parser.parseDocument(input)
            swap(&parser.decoded, &decoded)
            swap(&parser.duplicateKeys, &duplicateKeys)
            tape = parser.nodes
            if let failure { throw syntaxError(failure, in: input) }
        }
    }

    private static func syntaxError(_ failure: Parser.Failure, in bytes: UnsafeBufferPointer<UInt8>) -> JSONSyntaxError {
        let (line, column) = position(of: failure.offset, in: bytes)
        return JSONSyntaxError(offset: failure.offset, line: line, column: column, reason: failure.reason,
                               isDepthLimit: failure.isDepthLimit)
    }

    /// Line and column (from 1, column in bytes) of a byte offset.
    static func position(of offset: Int, in input: UnsafeBufferPointer<UInt8>) -> (line: Int, column: Int) {
        var line = 1, lineStart = 0
        for i in 0..<min(offset, input.count) where input[i] == UInt8(ascii: "\n") {
            line += 1
            lineStart = i + 1
        }
        return (line, offset - lineStart + 1)
    }
}

private struct Parser: ~Copyable {
    struct Failure: Error {
        let offset: Int
        let reason: String
        var isDepthLimit = false
    }

    let maxDepth: Int
    var nodes: JSONNodeBuffer
    var decoded: [UInt8] = []
    var duplicateKeys: [JSONValue] = []
    var depth = 0
    var position = 0
    /// The input while parsing, for comparing keys that point into it.
    var source = UnsafeBufferPointer<UInt8>(start: nil, count: 0)

    init(maxDepth: Int, nodes: consuming JSONNodeBuffer) {
        self.maxDepth = maxDepth
        self.nodes = nodes
    }

    /// A rough guess of a text's nodes that avoids most regrowth: one per 6 input bytes.
    static func expectedNodes(_ byteCount: Int) -> Int { min(byteCount / 6 + 4, 1 << 22) }

    /// Parses `bytes` onto the tape (empty); the failure, if the text is not JSON.
    mutating func parseDocument(_ bytes: UnsafeBufferPointer<UInt8>) -> Failure? {
        do throws(Failure) {
            try parseText(bytes)
            return nil
        } catch {
            return error
        }
    }

    private mutating func parseText(_ bytes: UnsafeBufferPointer<UInt8>) throws(Failure) {
        source = bytes
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { position = 3 }
        skipWhitespace(bytes)
        guard position < bytes.count else {
            throw Failure(offset: position, reason: bytes.isEmpty ? "the text is empty" : "expected a value, found the end of the text")
        }
        // A line of a log is an object: read as one without the dispatch on its first byte.
        if bytes[position] == UInt8(ascii: "{") {
            try parseObject(bytes)
        } else {
            try parseValue(bytes)
        }
        skipWhitespace(bytes)
        guard position == bytes.count else {
            throw Failure(offset: position, reason: "unexpected \(describe(bytes[position])) after the top-level value")
        }
    }

    @inline(__always)
    mutating func skipWhitespace(_ bytes: UnsafeBufferPointer<UInt8>) {
        // Compact JSON has none; check once before looping on a local copy.
        guard position < bytes.count, bytes[position] <= 0x20 else { return }
        var index = position
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default:
                position = index
                return
            }
        }
        position = index
    }

    mutating func parseValue(_ bytes: UnsafeBufferPointer<UInt8>) throws(Failure) {
        guard position < bytes.count else { throw Failure(offset: position, reason: "expected a value, found the end of the text") }
        switch bytes[position] {
        case UInt8(ascii: "{"): try parseObject(bytes)
        case UInt8(ascii: "["): try parseArray(bytes)
        case UInt8(ascii: "\""): try parseString(bytes)
        case UInt8(ascii: "t"): try literal(bytes, "true", .true)
        case UInt8(ascii: "f"): try literal(bytes, "false", .false)
        case UInt8(ascii: "n"): try literal(bytes, "null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try parseNumber(bytes)
        default: throw Failure(offset: position, reason: "expected a value, found \(describe(bytes[position]))")
        }
    }

    /// `true`, `false` or `null` (`word`, of four or five bytes) at `position`: its first
    /// four bytes compared as one word, and the fifth of `false`. Inlined, the word is a
    /// constant; a walk of its spelling through the `StaticString` was ~90 instructions.
    @inline(__always)
    mutating func literal(_ bytes: UnsafeBufferPointer<UInt8>, _ word: StaticString, _ tag: JSONNode.Tag) throws(Failure) {
        let count = word.utf8CodeUnitCount
        assert(count == 4 || count == 5, "a JSON literal is true, false or null")
        guard count <= bytes.count &- position, let base = bytes.baseAddress else { throw invalidLiteral(word) }
        let text = UnsafeRawPointer(base + position), expected = UnsafeRawPointer(word.utf8Start)
        guard text.loadUnaligned(as: UInt32.self) == expected.loadUnaligned(as: UInt32.self),
              count == 4 || text.load(fromByteOffset: 4, as: UInt8.self) == expected.load(fromByteOffset: 4, as: UInt8.self)
        else { throw invalidLiteral(word) }
        position &+= count
        nodes.append(JSONNode(tag: tag))
    }

    @inline(never)
    func invalidLiteral(_ word: StaticString) -> Failure {
        Failure(offset: position, reason: "invalid literal; expected '\(word)'")
    }

    @inline(__always)
    mutating func enter() throws(Failure) {
        depth &+= 1
        if depth > maxDepth { throw tooDeep() }
    }

    func tooDeep() -> Failure {
        Failure(offset: position, reason: "nesting deeper than \(maxDepth) levels", isDepthLimit: true)
    }

    mutating func parseArray(_ bytes: UnsafeBufferPointer<UInt8>) throws(Failure) {
        try enter()
        let start = nodes.count
        nodes.append(JSONNode(tag: .array))
        position &+= 1
        skipWhitespace(bytes)
        var count: UInt32 = 0
        if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
            position &+= 1
        } else {
            while true {
                try parseValue(bytes)
                count &+= 1
                skipWhitespace(bytes)
                guard position < bytes.count else {
                    throw Failure(offset: position, reason: "unterminated array; expected ',' or ']'")
                }
                let byte = bytes[position]
                position &+= 1
                if byte == UInt8(ascii: ",") { skipWhitespace(bytes); continue }
                if byte == UInt8(ascii: "]") { break }
                throw Failure(offset: position - 1, reason: "expected ',' or ']' after an array element, found \(describe(byte))")
            }
        }
        nodes[start].count = count
        nodes[start].payload = UInt64(truncatingIfNeeded: nodes.count)
        depth &-= 1
    }

    mutating func parseObject(_ bytes: UnsafeBufferPointer<UInt8>) throws(Failure) {
        try enter()
        let start = nodes.count
        nodes.append(JSONNode(tag: .object))
        position &+= 1
        skipWhitespace(bytes)
        var count: UInt32 = 0
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
            position &+= 1
        } else {
            // Keys compared pairwise; an object that reaches `linearKeyLimit` members goes
            // on out of line with a table of its keys, so a small object holds no table,
            // not even an empty one to destroy.
            while try parseMember(bytes, checkingKey: { parser, key in
                parser.checkDuplicate(key: key, objectStart: start, memberCount: Int(count))
            }) {
                count &+= 1
                if count == Self.linearKeyLimit {
                    count = try parseManyMembers(bytes, objectStart: start, after: count)
                    break
                }
            }
            if count < Self.linearKeyLimit { count &+= 1 }
        }
        nodes[start].count = count
        nodes[start].payload = UInt64(truncatingIfNeeded: nodes.count)
        depth &-= 1
    }

    /// Reads one member at `position` (its name's opening quote) and what follows it:
    /// whether another member follows (`,`) or the object ended (`}`). `checkingKey` is
    /// given the name's node.
    @inline(__always)
    private mutating func parseMember(_ bytes: UnsafeBufferPointer<UInt8>,
                                      checkingKey: (inout Parser, Int) -> Void) throws(Failure) -> Bool {
        guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
            throw Failure(offset: position, reason: position < bytes.count
                ? "expected a member name in double quotes, found \(describe(bytes[position]))"
                : "unterminated object; expected a member name")
        }
        let key = nodes.count
        try parseString(bytes)
        checkingKey(&self, key)
        skipWhitespace(bytes)
        guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else {
            throw Failure(offset: position, reason: position < bytes.count
                ? "expected ':' after a member name, found \(describe(bytes[position]))"
                : "unterminated object; expected ':'")
        }
        position &+= 1
        skipWhitespace(bytes)
        // Most member values of a log are strings: no dispatch for those.
        if position < bytes.count, bytes[position] == UInt8(ascii: "\"") {
            try parseString(bytes)
        } else {
            try parseValue(bytes)
        }
        skipWhitespace(bytes)
        guard position < bytes.count else {
            throw Failure(offset: position, reason: "unterminated object; expected ',' or '}'")
        }
        let byte = bytes[position]
        position &+= 1
        if byte == UInt8(ascii: ",") {
            skipWhitespace(bytes)
            return true
        }
        if byte == UInt8(ascii: "}") { return false }
        throw Failure(offset: position - 1, reason: "expected ',' or '}' after an object member, found \(describe(byte))")
    }

    /// The members of an object after its first `count`, with a table of its keys: a
    /// hostile object with a million keys stays linear. Its member count.
    @inline(never)
    private mutating func parseManyMembers(_ bytes: UnsafeBufferPointer<UInt8>, objectStart: Int,
                                           after count: UInt32) throws(Failure) -> UInt32 {
        var keys = ByteStringTable()
        var earlier = objectStart + 1
        for _ in 0..<count {
            _ = withStringBytes(earlier) { keys.insert($0) }
            earlier = nextIndex(after: earlier + 1)
        }
        var count = count
        while try parseMember(bytes, checkingKey: { parser, key in
            if !parser.withStringBytes(key, { keys.insert($0) }).inserted {
                parser.duplicateKeys.append(JSONValue(index: key))
            }
        }) {
            count &+= 1
        }
        return count &+ 1
    }

    /// Pairwise for the small objects of real logs; past `linearKeyLimit` members, a hash table
    /// of the keys keeps a hostile object with a million keys linear.
    /// Up to this many earlier keys a new key is compared with each (a length first, so most
    /// comparisons are one load), past it they are hashed: a unified-log record has about 25
    /// members, and building a table for each of them was a third of reading a capture.
    static let linearKeyLimit: UInt32 = 32

    /// Whether `key` repeats one of the `memberCount` (fewer than `linearKeyLimit`)
    /// keys before it, compared pairwise; reported when it does.
    @inline(__always)
    mutating func checkDuplicate(key: Int, objectStart: Int, memberCount: Int) {
        var earlier = objectStart + 1
        for _ in 0..<memberCount {
            if sameString(earlier, key) {
                duplicateKeys.append(JSONValue(index: key))
                return
            }
            earlier = nextIndex(after: earlier + 1)
        }
    }

    @inline(__always)
    func nextIndex(after index: Int) -> Int {
        let node = nodes[index]
        return node.tag == .array || node.tag == .object ? Int(node.payload) : index + 1
    }

    func withStringBytes<R>(_ index: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        let node = nodes[index]
        let start = Int(node.payload), count = Int(node.count)
        if node.tag == .escapedString {
            return decoded.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[start..<start + count])) }
        }
        return body(UnsafeBufferPointer(rebasing: source[start..<start + count]))
    }

    @inline(__always)
    func sameString(_ a: Int, _ b: Int) -> Bool {
        guard nodes[a].count == nodes[b].count else { return false }
        return withStringBytes(a) { x in withStringBytes(b) { y in x.hasSameBytes(as: y) } }
    }

    /// A string at `position` (its opening quote). Plain ASCII without escapes, as
    /// nearly every key and name is, points straight into the input, inline; the
    /// rest is decoded out of line.
    @inline(__always)
    mutating func parseString(_ bytes: UnsafeBufferPointer<UInt8>) throws(Failure) {
        let start = position &+ 1
        let index = Self.plainASCIIPrefixEnd(bytes, from: start)
        if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
            nodes.append(JSONNode(tag: .string, count: UInt32(truncatingIfNeeded: index &- start), payload: UInt64(truncatingIfNeeded: start)))
            position = index &+ 1
            return
        }
        try parseDecodedString(bytes, plainUpTo: index)
    }

    /// The rest of a string whose first `plainUpTo - position - 1` bytes are plain.
    @inline(never)
    mutating func parseDecodedString(_ bytes: UnsafeBufferPointer<UInt8>, plainUpTo index: Int) throws(Failure) {
        let open = position
        let start = position + 1
        position = index
        guard position < bytes.count else { throw Failure(offset: open, reason: "unterminated string") }
        var hasEscapes = false
        let decodedStart = decoded.count
        var plainFrom = start  // bytes not yet copied to `decoded`
        while true {
            guard position < bytes.count else { throw Failure(offset: open, reason: "unterminated string") }
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "\""):
                if hasEscapes {
                    decoded.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[plainFrom..<position]))
                    nodes.append(JSONNode(tag: .escapedString, count: UInt32(decoded.count - decodedStart),
                                          payload: UInt64(decodedStart)))
                } else {
                    nodes.append(JSONNode(tag: .string, count: UInt32(position - start), payload: UInt64(start)))
                }
                position += 1
                return
            case UInt8(ascii: "\\"):
                if !hasEscapes { hasEscapes = true }
                decoded.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[plainFrom..<position]))
                try parseEscape(bytes)
                plainFrom = position
            case 0..<0x20:
                throw Failure(offset: position, reason: "raw control character U+\(hex4(UInt32(byte))) in a string; escape it")
            case 0x80...:
                try skipUTF8Scalar(bytes)
            default:
                position += 1
            }
        }
    }

    /// Where the run of plain string bytes starting at `from` ends: the first quote,
    /// backslash, control byte or non-ASCII byte (or the end). Eight bytes at a time
    /// (SWAR): long ids and names cost little more than short ones.
    @inline(__always)
    static func plainASCIIPrefixEnd(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        guard let base = bytes.baseAddress else { return start }
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        // Wrapping arithmetic: an index never passes the text's count, and a check for
        // overflow on each step was a tenth of the loop.
        var index = start
        let lastWord = bytes.count &- 8
        while index <= lastWord {
            let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
            let quote = word ^ (ones &* 0x22), backslash = word ^ (ones &* 0x5C)
            // A byte is flagged when it is zero in `quote`/`backslash`, below 0x20, or
            // has its high bit set; the lowest flagged byte is exact.
            let flagged = ((quote &- ones) & ~quote | (backslash &- ones) & ~backslash | (word &- ones &* 0x20) | word) & highs
            if flagged != 0 { return index &+ flagged.trailingZeroBitCount &>> 3 }
            index &+= 8
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 || byte >= 0x80 { return index }
            index &+= 1
        }
        return index
    }

    mutating func parseEscape(_ bytes: UnsafeBufferPointer<UInt8>) throws(Failure) {
        let escapeStart = position
        guard position + 1 < bytes.count else { throw Failure(offset: escapeStart, reason: "unterminated escape sequence") }
        let byte = bytes[position + 1]
        position += 2
        switch byte {
        case UInt8(ascii: "\""): decoded.append(0x22)
        case UInt8(ascii: "\\"): decoded.append(0x5C)
        case UInt8(ascii: "/"): decoded.append(0x2F)
        case UInt8(ascii: "b"): decoded.append(0x08)
        case UInt8(ascii: "f"): decoded.append(0x0C)
        case UInt8(ascii: "n"): decoded.append(0x0A)
        case UInt8(ascii: "r"): decoded.append(0x0D)
        case UInt8(ascii: "t"): decoded.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try hexQuad(bytes, at: position, escapeStart: escapeStart)
            position += 4
            if (0xDC00...0xDFFF).contains(scalar) {
                throw Failure(offset: escapeStart, reason: "lone low surrogate escape \\u\(hex4(scalar))")
            }
            if (0xD800...0xDBFF).contains(scalar) {
                guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u"),
                      case let low = try hexQuad(bytes, at: position + 2, escapeStart: position),
                      (0xDC00...0xDFFF).contains(low) else {
                    throw Failure(offset: escapeStart, reason: "lone high surrogate escape \\u\(hex4(scalar))")
                }
                position += 6
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            }
            appendUTF8(scalar)
        default:
            throw Failure(offset: escapeStart, reason: "invalid escape sequence '\\\(Character(Unicode.Scalar(byte)))'")
        }
    }

    func hexQuad(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int, escapeStart: Int) throws(Failure) -> UInt32 {
        guard offset + 4 <= bytes.count else { throw Failure(offset: escapeStart, reason: "incomplete \\u escape") }
        var value: UInt32 = 0
        for i in offset..<offset + 4 {
            let byte = bytes[i]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw Failure(offset: escapeStart, reason: "invalid \\u escape; expected four hex digits")
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    mutating func appendUTF8(_ scalar: UInt32) {
        switch scalar {
        case 0..<0x80:
            decoded.append(UInt8(scalar))
        case 0x80..<0x800:
            decoded.append(UInt8(0xC0 | scalar >> 6))
            decoded.append(UInt8(0x80 | scalar & 0x3F))
        case 0x800..<0x10000:
            decoded.append(UInt8(0xE0 | scalar >> 12))
            decoded.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            decoded.append(UInt8(0x80 | scalar & 0x3F))
        default:
            decoded.append(UInt8(0xF0 | scalar >> 18))
            decoded.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            decoded.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            decoded.append(UInt8(0x80 | scalar & 0x3F))
        }
    }

    /// Validates one multi-byte UTF-8 sequence (RFC 3629: no overlong forms, no
    /// surrogates, nothing above U+10FFFF) and steps over it.
    mutating func skipUTF8Scalar(_ bytes: UnsafeBufferPointer<UInt8>) throws(Failure) {
        let lead = bytes[position]
        let length: Int
        var lowerBound: UInt8 = 0x80, upperBound: UInt8 = 0xBF  // range of the second byte
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; lowerBound = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; upperBound = 0x9F
        case 0xF0: length = 4; lowerBound = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; upperBound = 0x8F
        default: throw Failure(offset: position, reason: "invalid UTF-8 byte 0x\(hex2(lead))")
        }
        guard position + length <= bytes.count else { throw Failure(offset: position, reason: "truncated UTF-8 sequence") }
        guard (lowerBound...upperBound).contains(bytes[position + 1]) else {
            throw Failure(offset: position, reason: "invalid UTF-8 sequence")
        }
        for i in 2..<length where bytes[position + i] & 0xC0 != 0x80 {
            throw Failure(offset: position, reason: "invalid UTF-8 sequence")
        }
        position += length
    }

    mutating func parseNumber(_ bytes: UnsafeBufferPointer<UInt8>) throws(Failure) {
        let start = position
        var negative = false
        if bytes[position] == UInt8(ascii: "-") { negative = true; position += 1 }
        var mantissa: UInt64 = 0
        var digits = 0       // significant digits accumulated into `mantissa`
        var dropped = 0      // integer digits beyond what `mantissa` holds
        guard position < bytes.count, isDigit(bytes[position]) else {
            throw Failure(offset: start, reason: "invalid number; expected a digit")
        }
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
            if position < bytes.count, isDigit(bytes[position]) {
                throw Failure(offset: start, reason: "invalid number; leading zeros are not allowed")
            }
        } else {
            while position < bytes.count, isDigit(bytes[position]) {
                if digits < 19 {
                    mantissa = mantissa &* 10 &+ UInt64(bytes[position] - UInt8(ascii: "0"))
                    digits += 1
                } else {
                    dropped += 1
                }
                position += 1
            }
        }
        var fractionDigits = 0
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            guard position < bytes.count, isDigit(bytes[position]) else {
                throw Failure(offset: start, reason: "invalid number; expected a digit after '.'")
            }
            while position < bytes.count, isDigit(bytes[position]) {
                if digits < 19 {
                    mantissa = mantissa &* 10 &+ UInt64(bytes[position] - UInt8(ascii: "0"))
                    if mantissa != 0 { digits += 1 }
                    fractionDigits += 1
                }
                position += 1
            }
        }
        var exponent = 0
        if position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
            position += 1
            var exponentNegative = false
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                exponentNegative = bytes[position] == UInt8(ascii: "-")
                position += 1
            }
            guard position < bytes.count, isDigit(bytes[position]) else {
                throw Failure(offset: start, reason: "invalid number; expected a digit in the exponent")
            }
            while position < bytes.count, isDigit(bytes[position]) {
                if exponent < 100_000 { exponent = exponent * 10 + Int(bytes[position] - UInt8(ascii: "0")) }
                position += 1
            }
            if exponentNegative { exponent = -exponent }
        }
        // Clinger's fast path: an exact mantissa and an exact power of ten give a
        // correctly rounded result with one IEEE operation.
        let scale = exponent + dropped - fractionDigits
        var value: Double
        if mantissa < 1 << 53, dropped == 0, (-22...22).contains(scale) {
            value = Double(mantissa)
            if scale < 0 { value /= powersOfTen[-scale] } else if scale > 0 { value *= powersOfTen[scale] }
            if negative { value = -value }
        } else {
            // Rare: long mantissas or large exponents. The standard library's
            // conversion is correctly rounded.
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
            guard let parsed = Double(text) else {
                throw Failure(offset: start, reason: "invalid number")
            }
            value = parsed
        }
        guard value.isFinite else {
            throw Failure(offset: start, reason: "number out of the range of a double")
        }
        nodes.append(JSONNode(tag: .number, payload: value.bitPattern))
    }
}

private let powersOfTen: [Double] = (0...22).map { exponent in
    var value = 1.0
    for _ in 0..<exponent { value *= 10 }
    return value
}

@inline(__always) private func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

private func hex2(_ byte: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
}

private func hex4(_ value: UInt32) -> String {
    hex2(UInt8(value >> 8 & 0xFF)) + hex2(UInt8(value & 0xFF))
}

/// How an unexpected byte reads in an error message.
private func describe(_ byte: UInt8) -> String {
    if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
    return "byte 0x\(hex2(byte))"
}

extension JSONDocument {
    /// `{}`: the head of an NDJSON body that has no head line. Made here, where a
    /// constant text is known to parse, so nothing outside this module parses text
    /// the program wrote.
    public static let emptyObject: JSONDocument = {
        var parser = Parser(maxDepth: 1, nodes: JSONNodeBuffer(capacity: 1))
        let empty: [UInt8] = Array("{}".utf8)
        let failure = empty.withUnsafeBufferPointer { parser.parseDocument($0) }
        assert(failure == nil, "'{}' is JSON")
        return JSONDocument(input: empty, nodes: parser.nodes, decoded: parser.decoded, duplicateKeys: parser.duplicateKeys)
    }()
}
