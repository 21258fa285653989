/// Appends compact JSON text to a byte buffer in exactly the order the caller
/// writes it — answers must be byte-identical for equal requests, which
/// dictionary-based encoders do not promise. Commas are placed automatically.
public struct JSONWriter: Sendable {
    public private(set) var bytes: [UInt8]
    /// True after a value (or a closed container): the next value or key needs a comma.
    var needsComma = false

    public init(capacity: Int = 1024) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }

    public mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    public mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    public mutating func beginArray() {
        separate()
        bytes.append(UInt8(ascii: "["))
        needsComma = false
    }

    public mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// A member name we own: written as is, so it must need no escaping.
    public mutating func key(_ name: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// A member name from elsewhere (a session id, a field name): escaped.
    public mutating func key(_ name: String) {
        string(name)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// A string we own that needs no escaping (an enum case name, a code).
    public mutating func string(_ text: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    public mutating func string(_ text: String) {
        var text = text
        text.withUTF8 { string(utf8: $0) }
    }

    /// Any UTF-8 text, escaped as RFC 8259 requires (`"`, `\` and control
    /// characters; `/` and non-ASCII are written as they are).
    public mutating func string(utf8 text: UnsafeBufferPointer<UInt8>) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        var plainFrom = 0
        for (i, byte) in text.enumerated() where byte < 0x20 || byte == 0x22 || byte == 0x5C {
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: text[plainFrom..<i]))
            plainFrom = i + 1
            bytes.append(UInt8(ascii: "\\"))
            switch byte {
            case 0x22: bytes.append(0x22)
            case 0x5C: bytes.append(0x5C)
            case 0x0A: bytes.append(UInt8(ascii: "n"))
            case 0x0D: bytes.append(UInt8(ascii: "r"))
            case 0x09: bytes.append(UInt8(ascii: "t"))
            case 0x08: bytes.append(UInt8(ascii: "b"))
            case 0x0C: bytes.append(UInt8(ascii: "f"))
            default:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            }
        }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: text[plainFrom...]))
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    public mutating func bool(_ value: Bool) {
        separate()
        if value {
            bytes.append(contentsOf: [UInt8(ascii: "t"), UInt8(ascii: "r"), UInt8(ascii: "u"), UInt8(ascii: "e")])
        } else {
            bytes.append(contentsOf: [UInt8(ascii: "f"), UInt8(ascii: "a"), UInt8(ascii: "l"), UInt8(ascii: "s"), UInt8(ascii: "e")])
        }
        needsComma = true
    }

    public mutating func null() {
        separate()
        bytes.append(contentsOf: [UInt8(ascii: "n"), UInt8(ascii: "u"), UInt8(ascii: "l"), UInt8(ascii: "l")])
        needsComma = true
    }

    public mutating func integer(_ value: Int) {
        separate()
        appendDecimal(value)
        needsComma = true
    }

    /// Canonical numbers: integral values without a fraction (`1.0` → `1`), others
    /// in the shortest form that reads back to the same double.
    public mutating func number(_ value: Double) {
        // Int(_:) truncates; the round trip tells integral values without libm.
        if value.magnitude < 9.2e18, Double(Int(value)) == value {
            integer(Int(value))
            return
        }
        separate()
        // Swift's description is the shortest round-tripping form; non-integral
        // finite values never end in ".0", and large ones use an exponent.
        bytes.append(contentsOf: value.description.utf8)
        needsComma = true
    }

    /// Bytes that are already a complete JSON value (a cached fragment).
    public mutating func raw(_ json: [UInt8]) {
        separate()
        bytes.append(contentsOf: json)
        needsComma = true
    }

    /// A value of a parsed document, written canonically (compact, numbers canonical).
    public mutating func value(_ value: JSONValue, of document: JSONDocument) {
        switch document.kind(value) {
        case .null: null()
        case .bool: bool(document.bool(value)!)
        case .number: number(document.number(value)!)
        case .string: document.withUTF8(value) { string(utf8: $0) }
        case .array:
            beginArray()
            for element in document.elements(value) { self.value(element, of: document) }
            endArray()
        case .object:
            beginObject()
            for member in document.members(value) {
                document.withUTF8(member.key) { string(utf8: $0) }
                bytes.append(UInt8(ascii: ":"))
                needsComma = false
                self.value(member.value, of: document)
            }
            endObject()
        }
    }

    mutating func appendDecimal(_ value: Int) {
        if value < 0 {
            bytes.append(UInt8(ascii: "-"))
            // Int.min cannot be negated; its magnitude still fits in UInt.
            appendDecimal(magnitude: value.magnitude)
        } else {
            appendDecimal(magnitude: UInt(value))
        }
    }

    mutating func appendDecimal(magnitude: UInt) {
        if magnitude < 10 {
            bytes.append(UInt8(ascii: "0") + UInt8(magnitude))
            return
        }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes of scratch, enough for 20 digits
        var count = 0
        var rest = magnitude
        withUnsafeMutableBytes(of: &digits) { scratch in
            while rest > 0 {
                count += 1
                scratch[24 - count] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            }
            bytes.append(contentsOf: scratch[(24 - count)...])
        }
    }
}
