extension UnsafeBufferPointer where Element == UInt8 {
    /// Whether both hold the same bytes. A plain loop, inlined where it is used:
    /// `elementsEqual` stays an out-of-line generic call that walks both buffers
    /// through iterators, several times slower on the short keys and names compared
    /// here (for every member looked up, every key checked for a duplicate).
    @inlinable @inline(__always)
    func hasSameBytes(as other: UnsafeBufferPointer<UInt8>) -> Bool {
        guard count == other.count else { return false }
        for index in indices where self[index] != other[index] { return false }
        return true
    }
}
