/// Whether a binary property list's root dictionary names one key twice. Foundation's
/// decoder then keeps one of the two values, and which one changes from call to call,
/// so the same request could pass or fail its checks; such a list is refused instead.
/// Reads only the trailer, the offset table's entries for the root and its keys, and
/// the keys themselves, at most as many bytes as the list has: distinct keys that add
/// up to more overlap one another, which only a crafted list does, and reading them
/// all would cost the square of its length. (Foundation's decoder reads every root
/// key as well; its cost on such a list is not measured.)
enum BinaryPropertyListKeys {
    static func rootRepeatsAKey(_ bytes: [UInt8]) -> Bool {
        // The trailer: offset size, reference size, object count, top object, table offset.
        guard bytes.count >= 8 + 32 else { return false }
        let trailer = bytes.count - 32
        let offsetSize = Int(bytes[trailer + 6]), referenceSize = Int(bytes[trailer + 7])
        guard (1...8).contains(offsetSize), (1...8).contains(referenceSize),
              let objectCount = integer(bytes, at: trailer + 8, size: 8),
              let top = integer(bytes, at: trailer + 16, size: 8),
              let table = integer(bytes, at: trailer + 24, size: 8) else { return false }
        func object(_ reference: Int) -> Int? {
            guard reference < objectCount, reference <= (trailer - table) / offsetSize else { return nil }
            return integer(bytes, at: table + reference * offsetSize, size: offsetSize)
        }
        guard let root = object(top), root < trailer, bytes[root] >> 4 == 0xD,
              let (count, keysStart) = length(bytes, marker: root) else { return false }
        guard count <= (trailer - keysStart) / referenceSize else { return false }
        var keys = Set<[UInt8]>()
        var keyBytes = 0
        for index in 0..<count {
            guard let reference = integer(bytes, at: keysStart + index * referenceSize, size: referenceSize),
                  let key = object(reference), key < trailer, let text = string(bytes, at: key, end: trailer)
            else { return false }
            if !keys.insert(text).inserted { return true }
            keyBytes += text.count
            if keyBytes > bytes.count { return true }
        }
        return false
    }

    /// A big-endian unsigned integer of `size` bytes at `offset`, if it fits the list.
    private static func integer(_ bytes: [UInt8], at offset: Int, size: Int) -> Int? {
        guard offset >= 0, size <= 8, offset <= bytes.count - size else { return nil }
        var value: UInt64 = 0
        for byte in bytes[offset..<offset + size] { value = value << 8 | UInt64(byte) }
        return value <= UInt64(Int.max) ? Int(value) : nil
    }

    /// The count in the marker at `offset` (its low nibble, or the integer after it
    /// when that is 0xF) and where the object's contents start.
    private static func length(_ bytes: [UInt8], marker offset: Int) -> (count: Int, start: Int)? {
        let nibble = Int(bytes[offset] & 0x0F)
        guard nibble == 0x0F else { return (nibble, offset + 1) }
        guard offset + 1 < bytes.count, bytes[offset + 1] >> 4 == 0x1 else { return nil }
        let size = 1 << Int(bytes[offset + 1] & 0x0F)
        guard let count = integer(bytes, at: offset + 2, size: size) else { return nil }
        return (count, offset + 2 + size)
    }

    /// A key's bytes with its type (ASCII or UTF-16) in front, so that equal keys, and
    /// only they, compare equal; `nil` for anything but a string.
    private static func string(_ bytes: [UInt8], at offset: Int, end: Int) -> [UInt8]? {
        let type = bytes[offset] >> 4
        guard type == 0x5 || type == 0x6, let (count, start) = length(bytes, marker: offset) else { return nil }
        // UTF-16 keys count code units of two bytes; `count` came from the list.
        guard start <= end, count <= (end - start) / (type == 0x6 ? 2 : 1) else { return nil }
        let byteCount = type == 0x6 ? count * 2 : count
        return [type] + bytes[start..<start + byteCount]
    }
}
