/// Byte classes of the RFC 9110/9112/3986 grammars. Those of tokens, targets and host
/// names are bits of one table literal (`classes`), read in place: one load a byte, no
/// bounds check, no lazy global (a 128-bit mask's test was about twice the instructions).
enum ByteClass {
    /// tchar (RFC 9110 §5.6.2).
    @inline(__always) static func isToken(_ byte: UInt8) -> Bool {
        classes(byte) & 1 != 0
    }

    /// Bytes of an origin-form target: pchar, "/", "?" and "%" (RFC 3986 §3.3, §3.4).
    @inline(__always) static func isTarget(_ byte: UInt8) -> Bool {
        classes(byte) & 2 != 0
    }

    /// Target bytes that need no more than their class: all of `isTarget`'s but "?" and "%".
    @inline(__always) static func isPlainTarget(_ byte: UInt8) -> Bool {
        classes(byte) & 4 != 0
    }

    /// reg-name bytes of a Host value without ",": unreserved, pct-encoded, sub-delims.
    @inline(__always) static func isHostName(_ byte: UInt8) -> Bool {
        classes(byte) & 8 != 0
    }

    @inline(__always) private static func classes(_ byte: UInt8) -> UInt8 {
        table.utf8Start[Int(byte)]
    }

    /// At each byte's index, "0" (0x30) plus its classes: 1 tchar, 2 target, 4 plain
    /// target, 8 host name. 128 ASCII bytes, then 128 of 0x80 and more (in none).
    private static let table: StaticString = """
        000000000000000000000000000000000?01?;??>>??6??6??????????6>0>02\
        6??????????????????????????0001?1??????????????????????????010?0\
        0000000000000000000000000000000000000000000000000000000000000000\
        0000000000000000000000000000000000000000000000000000000000000000
        """

    /// field-vchar or obs-text (RFC 9110 §5.5): a field value byte other than SP/HTAB.
    @inline(__always) static func isFieldVisible(_ byte: UInt8) -> Bool {
        byte > 0x20 && byte != 0x7F
    }

    @inline(__always) static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09
    }

    @inline(__always) static func isDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10
    }

    @inline(__always) static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): Int(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): Int(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    /// The index of the first byte of `input[i..<end]` that is not `isFieldVisible`
    /// (`end` when all are): eight bytes at a time while eight are there, then one by one.
    @inline(__always) static func endOfFieldVisible(_ input: UnsafeRawBufferPointer, from i: Int, to end: Int) -> Int {
        endOfVisible(input, from: i, to: end, orObsText: true)
    }

    /// The same for visible ASCII, 0x21 to 0x7E (a request target's bytes).
    @inline(__always) static func endOfVisibleASCII(_ input: UnsafeRawBufferPointer, from i: Int, to end: Int) -> Int {
        endOfVisible(input, from: i, to: end, orObsText: false)
    }

    /// Visible ASCII, and with `orObsText` bytes of 0x80 and more too (a constant where
    /// each caller inlines it).
    @inline(__always) private static func endOfVisible(_ input: UnsafeRawBufferPointer, from i: Int, to end: Int,
                                                       orObsText: Bool) -> Int {
        var i = i
        while i + 8 <= end {
            let word = input.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            guard !hasByte(below: 0x21, in: word), !hasByte(0x7F, in: word), orObsText || word & highBits == 0 else { break }
            i += 8
        }
        while i < end, input[i] > 0x20 && input[i] != 0x7F && (orObsText || input[i] < 0x80) { i += 1 }
        return i
    }

    private static let lowBits: UInt64 = 0x0101_0101_0101_0101
    private static let highBits: UInt64 = 0x8080_8080_8080_8080

    /// Whether a byte of `word` is below `bound` (at most 0x80); bytes of 0x80 and more
    /// never count. Exact for the word as a whole (a borrow only marks bytes above one
    /// that is below), which is all a caller asks.
    @inline(__always) private static func hasByte(below bound: UInt8, in word: UInt64) -> Bool {
        (word &- lowBits &* UInt64(bound)) & ~word & highBits != 0
    }

    /// Whether a byte of `word` is `byte`.
    @inline(__always) private static func hasByte(_ byte: UInt8, in word: UInt64) -> Bool {
        hasByte(below: 1, in: word ^ (lowBits &* UInt64(byte)))
    }
}
