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

    @inlinable package static func == (a: LiteralKey, b: LiteralKey) -> Bool {
        a.string.utf8.elementsEqual(b.string.utf8)
    }

    @inlinable package func hash(into hasher: inout Hasher) {
        var string = string
        string.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}
