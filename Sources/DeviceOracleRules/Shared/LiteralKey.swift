/// A string as a key compared by its UTF-8 bytes. Swift's `String` equality is
/// Unicode canonical equivalence ("é" equals "e" + U+0301), but the system and an
/// app's store compare identifiers and ids literally, so the rules do too.
@usableFromInline
package struct LiteralKey: Hashable, Sendable {
    @usableFromInline package let utf8: [UInt8]

    @inlinable package init(_ string: String) {
        utf8 = Array(string.utf8)
    }
}
