/// Byte strings numbered in the order they were first inserted, found by hash: n
/// insertions cost time in proportion to the bytes inserted, where comparing each
/// string with every earlier one (a scan, or a sorted array's inserts) is quadratic
/// in n. The hash is the standard library's `Hasher`, seeded per process, so a
/// request cannot be crafted to make its strings collide.
public struct ByteStringTable: Sendable {
    /// Every string's bytes back to back, where each one ends, and its hash.
    private var storage: [UInt8] = []
    private var ends: [Int] = []
    private var hashes: [Int] = []
    /// Open addressing with linear probing: a string's number plus one, or 0 for an
    /// empty slot; at most three quarters full.
    private var slots: [Int] = []
    /// Slots visited so far, growth included: tests count work by it, not by a clock.
    public private(set) var probes = 0

    public init() {}

    /// How many distinct strings the table holds.
    public var count: Int { ends.count }

    /// The bytes of the string numbered `id`.
    public subscript(id: Int) -> ArraySlice<UInt8> {
        storage[(id == 0 ? 0 : ends[id - 1])..<ends[id]]
    }

    /// The number of `key`: its own, newly given when the table did not hold it yet.
    public mutating func insert(_ key: UnsafeBufferPointer<UInt8>) -> (id: Int, inserted: Bool) {
        if (count + 1) * 4 > slots.count * 3 { grow() }
        var hasher = Hasher()
        hasher.combine(bytes: UnsafeRawBufferPointer(key))
        let hash = hasher.finalize()
        let mask = slots.count - 1
        var slot = hash & mask
        while slots[slot] != 0 {
            probes += 1
            let id = slots[slot] - 1
            if hashes[id] == hash, self[id].elementsEqual(key) { return (id, false) }
            slot = (slot + 1) & mask
        }
        probes += 1
        storage.append(contentsOf: key)
        ends.append(storage.count)
        hashes.append(hash)
        slots[slot] = count
        return (count - 1, true)
    }

    private mutating func grow() {
        let capacity = max(16, slots.count * 2), mask = capacity - 1
        slots = [Int](repeating: 0, count: capacity)
        for (id, hash) in hashes.enumerated() {
            var slot = hash & mask
            while slots[slot] != 0 {
                probes += 1
                slot = (slot + 1) & mask
            }
            probes += 1
            slots[slot] = id + 1
        }
    }
}
