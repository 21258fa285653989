/// Appends compact JSON text to a byte buffer in exactly the order the caller
/// writes it — answers must be byte-identical for equal requests, which
/// dictionary-based encoders do not promise. Commas are placed automatically.
public struct JSONWriter: ~Copyable {
    // A plain growable buffer: appends are a bounds check and a copy, without the
    // uniqueness checks of `Array` on every call (they dominated small answers).
    @usableFromInline var base: UnsafeMutablePointer<UInt8>
    @usableFromInline var count = 0
    @usableFromInline var capacity: Int
    /// True after a value (or a closed container): the next value or key needs a comma.
    @usableFromInline var needsComma = false

    /// `capacity: 0` allocates nothing until the first write: a writer kept at hand
    /// for a case that seldom comes costs nothing when it does not.
    public init(capacity: Int = 1024) {
        self.capacity = capacity > 0 ? max(capacity, 64) : 0
        // With no capacity, `base` is never read or written: every write grows first.
        base = capacity > 0 ? .allocate(capacity: self.capacity) : UnsafeMutablePointer(bitPattern: 1)!
    }

    /// Nonzero while the writer writes in memory lent to it (`init(lentMemory:spillCapacity:)`):
    /// that memory is never freed here, and the first growth moves the text to memory of
    /// the writer's own of at least this many bytes.
    @usableFromInline var lentSpillCapacity = 0

    /// Writes in `lentMemory` (a small answer's, on the stack: no allocation) until it is
    /// full, then in memory of its own of at least `spillCapacity` bytes. `lentMemory`
    /// must outlive the writer.
    public init(lentMemory: UnsafeMutableBufferPointer<UInt8>, spillCapacity: Int) {
        guard let memory = lentMemory.baseAddress, lentMemory.count > 0 else {
            self = JSONWriter(capacity: spillCapacity)
            return
        }
        base = memory
        capacity = lentMemory.count
        lentSpillCapacity = max(spillCapacity, 1)
    }

    deinit { if capacity > 0 && lentSpillCapacity == 0 { base.deallocate() } }

    /// The text written so far (a copy).
    public var bytes: [UInt8] { Array(UnsafeBufferPointer(start: base, count: count)) }

    /// Bytes written so far.
    public var byteCount: Int { count }
    /// The memory the writer holds, written or not (it keeps its capacity when emptied).
    public var allocatedByteCount: Int { capacity }

    /// The text, once writing is done.
    public consuming func finish() -> [UInt8] { bytes }

    /// Calls `body` with the text written so far, without copying it.
    public func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try body(UnsafeBufferPointer(start: base, count: count))
    }

    /// The text written so far, and an empty writer to go on with: one writer
    /// makes many small texts without an allocation of its own each.
    public mutating func take() -> [UInt8] {
        defer {
            count = 0
            needsComma = false
        }
        return bytes
    }

    /// Appends what was written so far to `buffer` and empties this writer, which
    /// goes on where it stopped (an answer written in pieces).
    public mutating func move(into buffer: inout [UInt8]) {
        buffer.append(contentsOf: UnsafeBufferPointer(start: base, count: count))
        count = 0
    }

    /// Appends what was written so far to `piece` and empties this writer, which goes on
    /// where it stopped. An empty `piece` takes this writer's memory rather than a copy,
    /// and the writer goes on in the piece's former memory (or in new memory of the same
    /// size): a long answer's pieces reach the socket without being copied.
    public mutating func move(into piece: WrittenBytes) {
        guard piece.isEmpty, capacity > 0, lentSpillCapacity == 0 else {
            piece.append(UnsafeRawBufferPointer(start: base, count: count))
            count = 0
            return
        }
        if let former = piece.exchangeMemory(base, count: count, capacity: capacity) {
            (base, capacity) = former
        } else {
            base = .allocate(capacity: capacity)
        }
        count = 0
    }

    @inlinable mutating func reserve(_ extra: Int) {
        if count + extra > capacity { grow(to: count + extra) }
    }

    @usableFromInline mutating func grow(to needed: Int) {
        guard lentSpillCapacity == 0 else {
            let lent = base
            (base, capacity) = grownMemory(nil, count: 0, capacity: 0, needed: max(needed, lentSpillCapacity))
            base.update(from: lent, count: count)
            lentSpillCapacity = 0
            return
        }
        (base, capacity) = grownMemory(capacity > 0 ? base : nil, count: count, capacity: capacity, needed: needed)
    }

    @inlinable mutating func append(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count += 1
    }

    @inlinable mutating func append(_ text: StaticString) {
        append(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    @inlinable mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress else { return }
        reserve(bytes.count)
        (base + count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    @inlinable mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { append($0) }
    }

    @inlinable mutating func separate() {
        if needsComma { append(UInt8(ascii: ",")) }
    }

    @inlinable @inline(__always) public mutating func beginObject() {
        separate()
        append(UInt8(ascii: "{"))
        needsComma = false
    }

    @inlinable @inline(__always) public mutating func endObject() {
        append(UInt8(ascii: "}"))
        needsComma = true
    }

    /// Ends a line of JSON Lines: a line feed, and the next value starts a new document.
    @inlinable public mutating func endLine() {
        append(0x0A)
        needsComma = false
    }

    @inlinable public mutating func beginArray() {
        separate()
        append(UInt8(ascii: "["))
        needsComma = false
    }

    @inlinable public mutating func endArray() {
        append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// A member name we own: written as is, so it must need no escaping.
    @inlinable @inline(__always) public mutating func key(_ name: StaticString) {
        appendQuoted(name, colon: true)
        needsComma = false
    }

    /// A member name from elsewhere (a session id, a field name): escaped.
    public mutating func key(escaping name: String) {
        string(escaping: name)
        append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// A string we own that needs no escaping (an enum case name, a code).
    @inlinable public mutating func string(_ text: StaticString) {
        appendQuoted(text, colon: false)
        needsComma = true
    }

    /// `,"text"` (the comma when one is due), and `:` after it for a member name, with
    /// one capacity check: keys and our own strings are most of what an answer writes.
    @inlinable @inline(__always) mutating func appendQuoted(_ text: StaticString, colon: Bool) {
        let length = text.utf8CodeUnitCount
        reserve(length + 4)
        if needsComma {
            base[count] = UInt8(ascii: ",")
            count += 1
        }
        base[count] = UInt8(ascii: "\"")
        (base + count + 1).update(from: text.utf8Start, count: length)
        base[count + 1 + length] = UInt8(ascii: "\"")
        count += length + 2
        if colon {
            base[count] = UInt8(ascii: ":")
            count += 1
        }
    }

    /// Text from elsewhere, escaped. (Literals take the `StaticString` overload.)
    public mutating func string(escaping text: String) {
        var text = text
        text.withUTF8 { string(utf8: $0) }
    }

    /// Any UTF-8 text, escaped as RFC 8259 requires (`"`, `\` and control
    /// characters; `/` and non-ASCII are written as they are).
    public mutating func string(utf8 text: UnsafeBufferPointer<UInt8>) {
        // Most text needs no escape: find the first byte that does before copying.
        var first = 0
        while first < text.count, !Self.needsEscape(text[first]) { first += 1 }
        guard first < text.count else {
            string(unescaped: text)
            return
        }
        separate()
        append(UInt8(ascii: "\""))
        var plainFrom = 0
        for i in first..<text.count where Self.needsEscape(text[i]) {
            let byte = text[i]
            append(UnsafeBufferPointer(rebasing: text[plainFrom..<i]))
            plainFrom = i + 1
            append(UInt8(ascii: "\\"))
            switch byte {
            case 0x22: append(0x22)
            case 0x5C: append(0x5C)
            case 0x0A: append(UInt8(ascii: "n"))
            case 0x0D: append(UInt8(ascii: "r"))
            case 0x09: append(UInt8(ascii: "t"))
            case 0x08: append(UInt8(ascii: "b"))
            case 0x0C: append(UInt8(ascii: "f"))
            default:
                let hex: StaticString = "0123456789abcdef"
                append("u00")
                append(hex.utf8Start[Int(byte >> 4)])
                append(hex.utf8Start[Int(byte & 0xF)])
            }
        }
        append(UnsafeBufferPointer(rebasing: text[plainFrom...]))
        append(UInt8(ascii: "\""))
        needsComma = true
    }

    @inline(__always) static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == 0x22 || byte == 0x5C
    }

    /// Text known to need no escape: `"text"` with one capacity check.
    mutating func string(unescaped text: UnsafeBufferPointer<UInt8>) {
        reserve(text.count + 3)
        if needsComma {
            base[count] = UInt8(ascii: ",")
            count += 1
        }
        base[count] = UInt8(ascii: "\"")
        if let source = text.baseAddress { (base + count + 1).update(from: source, count: text.count) }
        base[count + 1 + text.count] = UInt8(ascii: "\"")
        count += text.count + 2
        needsComma = true
    }

    @inlinable public mutating func bool(_ value: Bool) {
        separate()
        append(value ? "true" : "false")
        needsComma = true
    }

    @inlinable public mutating func null() {
        separate()
        append("null")
        needsComma = true
    }

    @inlinable public mutating func integer(_ value: Int) {
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
        var text = value.description
        text.withUTF8 { append($0) }
        needsComma = true
    }

    /// `thousandths / 1000` as a number, the same text `number(_:)` writes for it
    /// (`1.5`, `0.073`, `2`), without formatting a `Double`: that cost more than
    /// the rest of an access line.
    public mutating func number(thousandths: Int) {
        let whole = thousandths / 1000, fraction = abs(thousandths % 1000)
        guard fraction != 0 else {
            integer(whole)
            return
        }
        if thousandths < 0 && whole == 0 {
            separate()
            append(UInt8(ascii: "-"))
            append(UInt8(ascii: "0"))
        } else {
            integer(whole)
        }
        append(UInt8(ascii: "."))
        append(UInt8(48 + fraction / 100))
        if fraction % 100 != 0 {
            append(UInt8(48 + fraction / 10 % 10))
            if fraction % 10 != 0 { append(UInt8(48 + fraction % 10)) }
        }
        needsComma = true
    }

    /// Bytes that are already a complete JSON value.
    public mutating func raw(_ json: [UInt8]) {
        separate()
        append(json)
        needsComma = true
    }

    /// Members written before (`"a":1,"b":2`), placed like one member: after a comma
    /// when something precedes them in the object.
    @inlinable public mutating func members(_ json: UnsafeBufferPointer<UInt8>) {
        reserve(json.count + 1)
        if needsComma {
            base[count] = UInt8(ascii: ",")
            count += 1
        }
        append(json)
        needsComma = true
    }

    /// Members written before around a value written before: `head` ends where the
    /// value goes (`"event":{"type":"playSound","name":`), `rest` goes on after it.
    public mutating func members(_ head: UnsafeBufferPointer<UInt8>, around value: UnsafeBufferPointer<UInt8>,
                                 _ rest: UnsafeBufferPointer<UInt8>) {
        members(head)
        append(value)
        append(rest)
        needsComma = true
    }

    /// A string node of a document, written as `string(utf8:)` writes it, onto the end
    /// of `bytes`: text kept beside its document is later copied in order, without a
    /// visit to its node (by then out of the cache in a long log).
    public static func appendString(_ node: JSONValue, of document: JSONDocument, to bytes: inout [UInt8]) {
        document.withString(node) { text, escaped in
            guard escaped else {
                bytes.append(UInt8(ascii: "\""))
                bytes.append(contentsOf: text)
                bytes.append(UInt8(ascii: "\""))
                return
            }
            var writer = JSONWriter(capacity: text.count + 8)
            writer.string(utf8: text)
            writer.withBytes { bytes.append(contentsOf: $0) }
        }
    }

    /// `{"key":integer,members}`: an object whose first member is an integer and whose
    /// others were written before, with one capacity check. A long log's steps are
    /// mostly this shape (`{"index":7,"event":…}`), and the member-by-member calls
    /// cost more than the bytes.
    /// Inlined: with the key a literal, its length and bytes are constants.
    @inlinable @inline(__always)
    public mutating func object(key: StaticString, integer: Int, members: UnsafeBufferPointer<UInt8>) {
        let keyLength = key.utf8CodeUnitCount
        // `,{"` `":` up to 20 digits and a sign, `,` `}`
        reserve(keyLength + members.count + 30)
        var out = base + count
        if needsComma {
            out[0] = UInt8(ascii: ",")
            out += 1
        }
        out[0] = UInt8(ascii: "{")
        out[1] = UInt8(ascii: "\"")
        out += 2
        out.update(from: key.utf8Start, count: keyLength)
        out += keyLength
        out[0] = UInt8(ascii: "\"")
        out[1] = UInt8(ascii: ":")
        count = out + 2 - base
        appendDecimal(integer)
        out = base + count
        if let source = members.baseAddress, members.count > 0 {
            out[0] = UInt8(ascii: ",")
            (out + 1).update(from: source, count: members.count)
            out += 1 + members.count
        }
        out[0] = UInt8(ascii: "}")
        count = out + 1 - base
        needsComma = true
    }

    /// A complete JSON value known at compile time (a fixed fragment of an answer).
    @inlinable public mutating func raw(_ json: StaticString) {
        let length = json.utf8CodeUnitCount
        reserve(length + 1)
        if needsComma {
            base[count] = UInt8(ascii: ",")
            count += 1
        }
        (base + count).update(from: json.utf8Start, count: length)
        count += length
        needsComma = true
    }

    /// A value of a parsed document, written canonically (compact, numbers canonical).
    public mutating func value(_ value: JSONValue, of document: JSONDocument) {
        switch document.kind(value) {
        case .null: null()
        case .bool: bool(document.bool(value)!)
        case .number: number(document.number(value)!)
        case .string: string(value, of: document)
        case .array:
            beginArray()
            for element in document.elements(value) { self.value(element, of: document) }
            endArray()
        case .object:
            beginObject()
            for member in document.members(value) {
                string(member.key, of: document)
                append(UInt8(ascii: ":"))
                needsComma = false
                self.value(member.value, of: document)
            }
            endObject()
        }
    }

    /// A string node (or key): text the reader found without escapes holds no quote,
    /// backslash or control byte, so it is copied without a scan.
    @inline(__always) private mutating func string(_ node: JSONValue, of document: JSONDocument) {
        document.withString(node) { text, escaped in escaped ? string(utf8: text) : string(unescaped: text) }
    }

    @usableFromInline mutating func appendDecimal(_ value: Int) {
        if value < 0 {
            append(UInt8(ascii: "-"))
            // Int.min cannot be negated; its magnitude still fits in UInt.
            appendDecimal(magnitude: value.magnitude)
        } else {
            appendDecimal(magnitude: UInt(value))
        }
    }

    @usableFromInline mutating func appendDecimal(magnitude: UInt) {
        // Up to five digits (every step index of a log within the body limit) in at
        // most three compares; longer numbers count on from there.
        var digitCount: Int
        if magnitude < 100_000 {
            digitCount = magnitude < 100 ? (magnitude < 10 ? 1 : 2) : magnitude < 1_000 ? 3 : magnitude < 10_000 ? 4 : 5
        } else {
            digitCount = 6
            var power: UInt = 1_000_000
            while digitCount < 20, magnitude >= power {
                digitCount += 1
                power &*= 10  // wraps only once digitCount is 20, the most a UInt has
            }
        }
        reserve(digitCount)
        // Digits go backwards into reserved space, two at a time (a step index is
        // written for every step of a long log). Through a local pointer: a byte
        // stored through `base` might alias this writer's own fields, which the
        // compiler would then reload after every store.
        var rest = magnitude
        var end = base + count + digitCount
        let pairs = Self.digitPairs.utf8Start
        while rest >= 100 {
            let pair = Int(rest % 100) &* 2
            rest /= 100
            end -= 2
            end[0] = pairs[pair]
            end[1] = pairs[pair + 1]
        }
        if rest >= 10 {
            end[-2] = pairs[Int(rest) &* 2]
            end[-1] = pairs[Int(rest) &* 2 + 1]
        } else {
            end[-1] = UInt8(ascii: "0") + UInt8(rest)
        }
        count += digitCount
    }

    /// "00", "01", … "99" back to back.
    @usableFromInline static var digitPairs: StaticString {
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"
    }
}

/// Memory for at least `needed` bytes, doubling from `capacity` (64 at the least), that
/// holds the first `count` bytes of `memory`, which it frees: how a writer and a written
/// piece grow.
func grownMemory(_ memory: UnsafeMutablePointer<UInt8>?, count: Int, capacity: Int, needed: Int)
    -> (memory: UnsafeMutablePointer<UInt8>, capacity: Int) {
    var newCapacity = max(capacity * 2, 64)
    while newCapacity < needed { newCapacity *= 2 }
    let newMemory = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
    if let memory {
        newMemory.update(from: memory, count: count)
        memory.deallocate()
    }
    return (newMemory, newCapacity)
}
