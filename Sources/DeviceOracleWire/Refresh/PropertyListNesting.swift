/// How deep Foundation's text property-list parsers would nest on a text, read the
/// way they read it, so a text nested too deep is refused before they see it: the
/// XML scanner (swift-foundation, `XMLPlistScanner.swift`) recurses once per
/// `<array>`, `<dict>` or `<plist>` without a bound, about 1 KB of stack a level
/// (a 512 KiB thread overflows near 500 nested `<dict>`s, an 8 MiB one near 8 000);
/// the OpenStep reader (`OpenStepPlist.swift`) stops itself at 513 levels, but on
/// the way out of a failed parse rescans the text from its start once per open
/// array. Binary lists need no bound: `PropertyListDecoder` reads the trailer and
/// offset table in a loop and an object only when asked, and `InfoPlistRegistration`
/// asks for the root and two keys.
///
/// Both readers follow the parser's own rules for where markup ends (comments,
/// CDATA, processing instructions, DOCTYPE, quoted strings), so `</` or `)` hidden
/// inside them closes nothing. Where the parser would stop with an error the
/// reader may read on: that only counts deeper, never shallower.
enum PropertyListNesting {
    /// Deepest nesting passed to Foundation: far beyond any Info.plist, and a quarter
    /// of what a 512 KiB Dispatch worker stack holds of the XML scanner.
    static let limit = 128
    /// OpenStep text's deepest nesting times its length at most: a failed parse
    /// rescans the text once per open level (7 MB inside 128 open arrays took 4.3 s),
    /// so the product bounds that cost to a few tenths of a second. An Info.plist of
    /// 100 KB may still nest 128 deep, one of 8 MB four.
    static let openStepRescanLimit = 1 << 25

    /// Whether Foundation, given `text` (UTF-8, as a JSON string arrives), would nest
    /// containers deeper than `limit`.
    static func exceedsLimit(_ text: [UInt8]) -> Bool {
        text.withUnsafeBufferPointer { bytes in
            // Foundation reads a text that starts `bplist0` as a binary list.
            if bytes.count > 40, bytes.starts(with: "bplist0".utf8) { return false }
            var reader = Reader(bytes: bytes)
            // A UTF-8 byte order mark is dropped; no other encoding can reach the
            // parser from a JSON string (FE and FF bytes never occur in UTF-8), and
            // Foundation on Linux refuses any declared `encoding=` but UTF-8.
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { reader.index = 3 }
            var probe = reader
            probe.skipXMLSpace()
            return probe.peek == UInt8(ascii: "<") ? reader.xmlExceedsLimit() : reader.openStepExceedsLimit()
        }
    }

    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

        func matches(_ literal: StaticString, at offset: Int) -> Bool {
            let count = literal.utf8CodeUnitCount
            guard offset >= 0, bytes.count - offset >= count else { return false }
            return (0..<count).allSatisfy { bytes[offset + $0] == literal.utf8Start[$0] }
        }

        /// Moves past the first `terminator` at or after the index; false if there is none.
        mutating func skip(past terminator: StaticString) -> Bool {
            while index < bytes.count {
                if matches(terminator, at: index) {
                    index += terminator.utf8CodeUnitCount
                    return true
                }
                index += 1
            }
            return false
        }

        mutating func skipXMLSpace() {
            while let byte = peek, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
        }

        /// The element names `XMLPlistScanner.readTag` knows, each delimited by
        /// `>`, `/` or XML white space; containers recurse.
        private static let xmlContainers: [StaticString] = ["plist", "array", "dict"]
        private static let xmlLeaves: [StaticString] = ["key", "string", "data", "date", "real", "integer", "true", "false"]

        func xmlTagName(isContainer: Bool) -> Int? {
            for name in isContainer ? Self.xmlContainers : Self.xmlLeaves where matches(name, at: index) {
                let end = index + name.utf8CodeUnitCount
                guard end < bytes.count else { return nil }
                switch bytes[end] {
                case UInt8(ascii: ">"), UInt8(ascii: "/"), 0x20, 0x09, 0x0A, 0x0D: return name.utf8CodeUnitCount
                default: return nil
                }
            }
            return nil
        }

        /// `XMLPlistScanner.scanXMLPropertyList`: comments, DOCTYPE and processing
        /// instructions before the root element, then the elements, depth first.
        mutating func xmlExceedsLimit() -> Bool {
            guard declaresUTF8OrNothing() else { return true }
            while true {
                skipXMLSpace()
                guard peek == UInt8(ascii: "<") else { return false }
                index += 1
                switch peek {
                case UInt8(ascii: "!"):
                    if matches("!--", at: index) {
                        index += 3
                        guard skip(past: "-->") else { return false }
                    } else {
                        // `skipDTD`: `DOCTYPE`, then up to the first `>`; an internal subset is an error.
                        guard matches("!DOCTYPE", at: index) else { return false }
                        while let byte = peek, byte != UInt8(ascii: ">") {
                            if byte == UInt8(ascii: "[") { return false }
                            index += 1
                        }
                        guard skip(past: ">") else { return false }
                    }
                case UInt8(ascii: "?"):
                    // Searched from the `?` itself: the scanner starts one byte later
                    // here, never earlier, so this never ends a PI after the scanner does.
                    guard skip(past: "?>") else { return false }
                case .some:
                    return xmlElementsExceedLimit()
                case .none:
                    return false
                }
            }
        }

        /// `scanXMLElement` and the container loops (`scanUpToNextValue`), with the
        /// recursion kept as a count. The index is just past an element's `<`.
        private mutating func xmlElementsExceedLimit() -> Bool {
            var depth = 0
            while true {
                // An element: its name, then (`peekXMLElement`) up to the first `>`,
                // quotes or not; `/>` ends an empty one.
                let container = xmlTagName(isContainer: true)
                guard let nameLength = container ?? xmlTagName(isContainer: false) else { return false }
                index += nameLength
                guard skip(past: ">") else { return false }
                let isEmpty = bytes[index - 2] == UInt8(ascii: "/")
                if container != nil {
                    if !isEmpty {
                        depth += 1
                        if depth > PropertyListNesting.limit { return true }
                    }
                } else if !isEmpty {
                    // A leaf's text (`parseString`): up to a `<` that opens no CDATA
                    // section, which must start its close tag.
                    while true {
                        guard skip(past: "<") else { return false }
                        guard matches("![CDATA[", at: index) else { break }
                        index += 8
                        guard skip(past: "]]>") else { return false }
                    }
                    guard peek == UInt8(ascii: "/"), skip(past: ">") else { return false }
                }
                // The content of the innermost open container, up to its next element.
                nextElement: while true {
                    guard depth > 0 else { return false }
                    skipXMLSpace()
                    guard peek == UInt8(ascii: "<") else { return false }
                    index += 1
                    switch peek {
                    case UInt8(ascii: "?"):
                        guard skip(past: "?>") else { return false }
                    case UInt8(ascii: "!"):
                        guard matches("!--", at: index) else { return false }
                        index += 3
                        guard skip(past: "-->") else { return false }
                    case UInt8(ascii: "/"):
                        depth -= 1
                        guard skip(past: ">") else { return false }
                    case .some:
                        break nextElement
                    case .none:
                        return false
                    }
                }
            }
        }

        /// `PropertyListDecoder.detectEncoding` without a byte order mark: a text
        /// that starts `<?xml` may name its encoding before the first `?` or `>`.
        /// Any but UTF-8 is refused here, as Foundation on Linux refuses it, so the
        /// bytes read here are the bytes the scanner reads on every platform.
        private func declaresUTF8OrNothing() -> Bool {
            guard index == 0, matches("<?xml", at: 0) else { return true }
            var offset = 5
            while offset < bytes.count, bytes[offset] != UInt8(ascii: "?"), bytes[offset] != UInt8(ascii: ">") {
                if matches("encoding=", at: offset) {
                    let quoteAt = offset + 9
                    guard quoteAt < bytes.count, bytes[quoteAt] == UInt8(ascii: "\"") || bytes[quoteAt] == UInt8(ascii: "'") else {
                        return true
                    }
                    let name = bytes[(quoteAt + 1)...].prefix { $0 != bytes[quoteAt] }
                    return name.count == 5 && name.map { $0 | 0x20 }.elementsEqual("utf-8".utf8)
                }
                offset += 1
            }
            return true
        }

        /// `OpenStepPlist.swift`, token by token: `(` and `{` open, `)` and `}` close;
        /// between tokens white space and comments (`advanceToNonSpace`); quoted
        /// strings, data and unquoted strings are passed over as the parser reads
        /// them, ending where it ends them even on an error, since a caller may read on.
        mutating func openStepExceedsLimit() -> Bool {
            var depth = 0
            // The depth the text's length allows: the rescan bound, or the nesting limit.
            let allowed = min(PropertyListNesting.limit, PropertyListNesting.openStepRescanLimit / max(1, bytes.count))
            while let byte = peek {
                switch byte {
                case UInt8(ascii: "("), UInt8(ascii: "{"):
                    depth += 1
                    if depth > allowed { return true }
                    index += 1
                case UInt8(ascii: ")"), UInt8(ascii: "}"):
                    depth = max(0, depth - 1)
                    index += 1
                case UInt8(ascii: "/") where matches("//", at: index):
                    // To the end of the line: CR, LF, U+2028 or U+2029.
                    while let byte = peek, byte != 0x0A, byte != 0x0D, !isLineOrParagraphSeparator(at: index) { index += 1 }
                case UInt8(ascii: "/") where matches("/*", at: index):
                    index += 2
                    if !skip(past: "*/") { return false }
                case UInt8(ascii: "\""), UInt8(ascii: "'"):
                    skipOpenStepQuotedString()
                case UInt8(ascii: "<"):
                    skipOpenStepData()
                default:
                    if isOpenStepUnquoted(byte) {
                        while let byte = peek, isOpenStepUnquoted(byte) { index += 1 }
                    } else {
                        // White space, a separator, or a byte the parser stops at.
                        index += 1
                    }
                }
            }
            return false
        }

        private func isLineOrParagraphSeparator(at offset: Int) -> Bool {
            matches("\u{2028}", at: offset) || matches("\u{2029}", at: offset)
        }

        private func isOpenStepUnquoted(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "_"), UInt8(ascii: "$"), UInt8(ascii: "/"), UInt8(ascii: ":"), UInt8(ascii: "."), UInt8(ascii: "-"):
                true
            default:
                false
            }
        }

        /// `parseQuotedPlistString`: a backslash takes the next character; `\U` takes
        /// up to four hex digits, and one naming a surrogate ends the string there.
        /// Unterminated, the parser goes back to just past the quote.
        private mutating func skipOpenStepQuotedString() {
            let quote = bytes[index]
            index += 1
            let start = index
            while let byte = peek {
                if byte == quote {
                    index += 1
                    return
                }
                guard byte == UInt8(ascii: "\\") else {
                    index += 1
                    continue
                }
                index += 1
                guard let escaped = peek else { return }
                index += 1
                if escaped == UInt8(ascii: "U") {
                    var scalar = 0
                    // Four tries, as `parseU16Scalar` makes: a byte that is no hex digit stays unread.
                    for _ in 0..<4 {
                        guard let digit = peek, digit.isHexDigit else { continue }
                        scalar = scalar << 4 | Int(digit <= UInt8(ascii: "9") ? digit - UInt8(ascii: "0") : (digit | 0x20) - UInt8(ascii: "a") + 10)
                        index += 1
                    }
                    if (0xD800...0xDFFF).contains(scalar) { return }
                } else if escaped >= 0xF0 {
                    // A character outside the BMP: its first UTF-16 half is no scalar.
                    return
                }
            }
            index = start
        }

        /// `parsePlistData`: hex pairs and spaces up to `>`; any other byte ends it there.
        private mutating func skipOpenStepData() {
            index += 1
            while let byte = peek {
                if byte == UInt8(ascii: ">") {
                    index += 1
                    return
                }
                if byte == 0x20 || byte == 0x0A || byte == 0x0D {
                    index += 1
                } else if isLineOrParagraphSeparator(at: index) {
                    index += 3
                } else if byte.isHexDigit {
                    index += 1
                    guard peek?.isHexDigit == true else { return }
                    index += 1
                } else {
                    return
                }
            }
        }
    }
}

private extension UInt8 {
    var isHexDigit: Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self | 0x20)
    }
}
