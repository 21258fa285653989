/// A string as a key compared by its UTF-8 bytes. Swift's `String` equality is
/// Unicode canonical equivalence ("é" equals "e" + U+0301), but the system and an
/// app's store compare identifiers and ids literally, so the rules do too. It keeps
/// the string itself: a page's every id is a key, and a copy of its bytes would be
/// an allocation each.
@usableFromInline
package struct LiteralKey: Hashable, Sendable {
    @usableFromInline package var string: String

    @inlinable package init(_ string: String) {
        self.string = string
    }

    /// Up to this many keys, comparing each with the others costs less than hashing
    /// them (ids are short): a refresh page's repeat check and a small store search so.
    @usableFromInline package static var linearSearchLimit: Int { 16 }

    @inlinable package static func == (a: LiteralKey, b: LiteralKey) -> Bool {
        let a = a.string.utf8, b = b.string.utf8
        guard a.count == b.count else { return false }
        // Contiguous bytes (every native or small string has them) compared in a
        // plain loop: `elementsEqual` on the views walks them through String's
        // generic index machinery, several times slower on a page's short ids.
        if let equal = a.withContiguousStorageIfAvailable({ a in
            b.withContiguousStorageIfAvailable { b in
                for index in a.indices where a[index] != b[index] { return false }
                return true
            }
        }), let equal { return equal }
        return a.elementsEqual(b)
    }

    @inlinable package func hash(into hasher: inout Hasher) {
        if string.utf8.withContiguousStorageIfAvailable({ hasher.combine(bytes: UnsafeRawBufferPointer($0)) }) != nil {
            return
        }
        var string = string
        string.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}

/// A set of literal keys for the rules' lists of ids and identifiers: searched in
/// order while it holds at most `LiteralKey.linearSearchLimit` keys, hashed once it
/// grows past that. A request's lists are usually a few entries, and hashing each
/// of them (and allocating the table) cost more than comparing them.
@usableFromInline
package struct LiteralKeySet: Sendable {
    /// The keys while there are few of them; empty once they are `hashed`.
    @usableFromInline var listed: [LiteralKey] = []
    /// Every key, once there are more than the limit; empty until then.
    @usableFromInline var hashed: Set<LiteralKey> = []

    @inlinable package init() {}

    @inlinable package init(_ strings: [String]) {
        for string in strings { insert(LiteralKey(string)) }
    }

    @inlinable package func contains(_ key: LiteralKey) -> Bool {
        hashed.isEmpty ? listed.contains(key) : hashed.contains(key)
    }

    /// Adds `key`; true when it was not in the set yet.
    @inlinable @discardableResult
    package mutating func insert(_ key: LiteralKey) -> Bool {
        guard hashed.isEmpty else { return hashed.insert(key).inserted }
        if listed.contains(key) { return false }
        if listed.count < LiteralKey.linearSearchLimit {
            listed.append(key)
        } else {
            hashed = Set(listed)
            hashed.insert(key)
            listed = []
        }
        return true
    }
}

extension LiteralKeySet {
    /// The strings `strings` holds more than once, each named once, in order of its
    /// first repetition.
    @inlinable
    package static func repeats(in strings: some Sequence<String>) -> [String] {
        var seen = LiteralKeySet(), reported = LiteralKeySet(), repeated: [String] = []
        for string in strings {
            let key = LiteralKey(string)
            if !seen.insert(key), reported.insert(key) { repeated.append(string) }
        }
        return repeated
    }
}
