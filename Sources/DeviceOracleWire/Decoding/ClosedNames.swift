import DeviceOracleJSON
import DeviceOracleRules

/// A closed set of names a request may use — event types, observed fields,
/// `initial` fields, categories — in documented order. Unknown names are
/// `422`s with a did-you-mean, so a typo in a harness fails loudly.
final class ClosedNames<Name: Sendable>: Sendable {
    /// What a name of this set is called in messages: "event type", "observed field".
    let kind: String
    /// The spellings, in documented order.
    let spellings: [String]
    private let names: [Name]
    /// Every spelling's UTF-8 back to back (each one's place is in its slot).
    private let utf8: [UInt8]
    /// Each name's `signature` (most names are told apart by one integer compare),
    /// position (`-1`: empty), the name and its spelling's place, at the slot its
    /// signature hashes to or the next free one: a lookup costs the same for the last
    /// name as for the first, with no branch that depends on which name a log uses,
    /// and reads one slot where all it needs sits side by side.
    private let slots: [Slot]
    private let slotShift: UInt64

    private struct Slot {
        var signature: UInt64 = 0
        /// A spelling of 8 bytes or more: its first, second (from 16 bytes) and last
        /// eight bytes, which for one of up to 24 bytes (every event type and member of
        /// the rulesets) are all of it, so its match is three compares, not a walk of
        /// the spelling.
        var first: UInt64 = 0, second: UInt64 = 0, last: UInt64 = 0
        var position = -1
        /// The name, and where its spelling is in `utf8`: read with the signature, not
        /// looked up again in `names` and a table of where spellings start.
        var name: Name?
        var start = 0, end = 0
    }

    init(_ kind: String, _ entries: [(String, Name)]) {
        self.kind = kind
        spellings = entries.map(\.0)
        names = entries.map(\.1)
        utf8 = entries.flatMap { Array($0.0.utf8) }
        var start = 0
        let starts = entries.map { entry in
            defer { start += entry.0.utf8.count }
            return start
        }
        let words = entries.map { entry in
            Array(entry.0.utf8).withUnsafeBufferPointer { Self.words(of: $0) }
        }
        // At most a quarter full, so a probe for a name outside the set ends soon.
        var bits: UInt64 = 3
        while 1 << bits < 4 * entries.count { bits += 1 }
        slotShift = 64 - bits
        var slots = [Slot](repeating: Slot(), count: 1 << bits)
        for (position, words) in words.enumerated() {
            // Probing from the home slot in insertion order: a spelling listed twice
            // finds its first entry, as a scan in documented order would.
            var slot = Self.home(of: words.signature, shift: slotShift)
            while slots[slot].position >= 0 { slot = (slot + 1) & (slots.count - 1) }
            slots[slot] = Slot(signature: words.signature, first: words.first, second: words.second, last: words.last,
                               position: position,
                               name: names[position], start: starts[position],
                               end: starts[position] + entries[position].0.utf8.count)
        }
        self.slots = slots
    }

    /// 2⁶⁴ divided by the golden ratio: multiplying by it spreads any bits of a word
    /// over its high bits (Fibonacci hashing), which pick a slot and mix a long name.
    private static var goldenRatio: UInt64 { 0x9E37_79B9_7F4A_7C15 }

    @inline(__always)
    private static func home(of signature: UInt64, shift: UInt64) -> Int {
        Int(truncatingIfNeeded: (signature &* goldenRatio) &>> shift)
    }

    /// The signature: the length's low byte, and above it, for names of up to 7 bytes
    /// the bytes themselves (equal signatures mean equal names), for longer ones a mix
    /// of the first and last eight (`interruptionBegan` and `interruptionEnded`
    /// differ); and for those, their first, second (from 16 bytes) and last eight
    /// bytes themselves (0 where a name is shorter).
    @inline(__always)
    private static func words(of bytes: UnsafeBufferPointer<UInt8>)
        -> (signature: UInt64, first: UInt64, second: UInt64, last: UInt64) {
        let count = bytes.count
        let length = UInt64(truncatingIfNeeded: count) & 0xFF
        guard let base = bytes.baseAddress else { return (length, 0, 0, 0) }
        let raw = UnsafeRawPointer(base)
        if count >= 8 {
            let first = raw.loadUnaligned(as: UInt64.self)
            let second = count >= 16 ? raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self) : 0
            let last = raw.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
            return (((first ^ (last << 29 | last >> 35)) &* goldenRatio) & ~0xFF | length, first, second, last)
        }
        // Two loads that overlap in the middle (never past the end): the overlapping
        // bytes are the same, so OR-ing them in place gives the name's bytes exactly.
        let word: UInt64
        if count >= 4 {
            word = UInt64(raw.loadUnaligned(as: UInt32.self))
                | UInt64(raw.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)) &<< (8 * (count - 4))
        } else if count >= 2 {
            word = UInt64(raw.loadUnaligned(as: UInt16.self))
                | UInt64(raw.loadUnaligned(fromByteOffset: count - 2, as: UInt16.self)) &<< (8 * (count - 2))
        } else {
            word = count == 1 ? UInt64(base[0]) : 0
        }
        return (word &<< 8 | length, 0, 0, 0)
    }

    /// The name a string node spells, without allocating.
    @inline(__always)
    func match(_ value: JSONValue, in document: JSONDocument) -> Name? {
        document.withUTF8(value) { bytes in
            let words = Self.words(of: bytes)
            return slots.withUnsafeBufferPointer { slots in
                let mask = slots.count - 1
                var slot = Self.home(of: words.signature, shift: slotShift)
                while case let entry = slots[slot], entry.position >= 0 {
                    // Equal signatures of names of up to 7 bytes are equal names; up to 24,
                    // the three words are the whole name (its length is the signature's low
                    // byte); longer ones are compared in full.
                    if entry.signature == words.signature,
                       bytes.count <= 7 || entry.first == words.first && entry.second == words.second
                        && entry.last == words.last && (bytes.count <= 24 || spells(entry, bytes)) {
                        return entry.name
                    }
                    slot = (slot + 1) & mask
                }
                return nil
            }
        }
    }

    /// Whether the name in `entry` is exactly `bytes` (8 bytes or more), eight bytes
    /// at a time.
    private func spells(_ entry: Slot, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let start = entry.start
        guard entry.end - start == bytes.count, let given = bytes.baseAddress.map(UnsafeRawPointer.init) else { return false }
        return utf8.withUnsafeBytes { all in
            let known = all.baseAddress! + start
            var offset = 0
            while offset + 8 < bytes.count {
                guard known.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                        == given.loadUnaligned(fromByteOffset: offset, as: UInt64.self) else { return false }
                offset += 8
            }
            // The last eight bytes, overlapping the words before when the length is not a multiple of 8.
            return known.loadUnaligned(fromByteOffset: bytes.count - 8, as: UInt64.self)
                == given.loadUnaligned(fromByteOffset: bytes.count - 8, as: UInt64.self)
        }
    }

    /// The name `text` spells (a value an app handed over, not a request's).
    func match(_ text: String) -> Name? {
        spellings.firstIndex(of: text).map { names[$0] }
    }

    /// "unknown event type 'userPause'; did you mean 'userPaused'?"
    func unknownNameDetail(_ name: String) -> String {
        var detail = "unknown \(kind) '\(name)'"
        if let suggestion = DidYouMean.closest(to: name, among: spellings) {
            detail += "; did you mean '\(suggestion)'?"
        }
        return detail
    }
}

extension ClosedNames where Name: CaseIterable & RawRepresentable, Name.RawValue == String, Name.AllCases.Element == Name {
    /// Every case, spelled as its raw value, in declaration order.
    convenience init(_ kind: String) {
        self.init(kind, Name.allCases.map { ($0.rawValue, $0) })
    }

    /// The case `name` spells, or a sentence saying which there are:
    /// "unknown diagram format 'svg' (formats: mermaid, dot, json)".
    func named(_ name: String, listing plural: String) -> Result<Name, UnknownName> {
        if let value = Name(rawValue: name) { return .success(value) }
        return .failure(UnknownName(detail: unknownNameDetail(name)
                                        + " (\(plural): \(Name.allCases.map(\.rawValue).joined(separator: ", ")))"))
    }
}

/// Suggests the known name a typo was probably meant to be.
enum DidYouMean {
    static let maximumDistance = 2

    /// The closest candidate at an edit distance of at most 2 (insertions,
    /// deletions, substitutions, transpositions); the first in order on a tie.
    static func closest(to name: String, among candidates: [String]) -> String? {
        var best: (candidate: String, distance: Int)?
        let scalars = Array(name.unicodeScalars)
        for candidate in candidates {
            let distance = EditDistance.optimalStringAlignment(scalars, Array(candidate.unicodeScalars),
                                                               limit: maximumDistance)
            if distance <= maximumDistance, distance < (best?.distance ?? .max) {
                best = (candidate, distance)
            }
        }
        return best?.candidate
    }

    /// Optimal string alignment distance (Damerau–Levenshtein without repeated edits
    /// of one substring); the rules module owns the implementation.
    static func editDistance<T: Equatable>(_ a: [T], _ b: [T]) -> Int {
        EditDistance.optimalStringAlignment(a, b)
    }
}

/// A name outside its closed set where there is no body to point into (a query
/// parameter, a command-line flag): one sentence for the problem's `detail`.
public struct UnknownName: Error, Sendable {
    public let detail: String

    public init(detail: String) {
        self.detail = detail
    }
}
