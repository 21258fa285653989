/// Bytes written once, then sent or copied out, passed by reference. A long answer is
/// streamed in pieces of a megabyte: `JSONWriter.move(into:)` hands the writer's own
/// memory to an empty piece instead of copying the text, so a piece goes to the socket
/// from the memory it was written in, and the piece's former memory is written next.
/// Whoever writes into a `WrittenBytes` must hold its only reference: a piece still
/// queued for sending is read by the socket.
public final class WrittenBytes: @unchecked Sendable {
    // @unchecked: one owner writes it, then whoever sends it only reads it.
    private var base: UnsafeMutablePointer<UInt8>?
    public private(set) var count = 0
    private var capacity = 0

    public init() {}

    deinit { base?.deallocate() }

    public var isEmpty: Bool { count == 0 }

    /// A copy of the bytes.
    public var bytes: [UInt8] { withUnsafeBytes { Array($0) } }

    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }

    public func append(_ raw: UnsafeRawBufferPointer) {
        guard let source = raw.baseAddress, !raw.isEmpty else { return }
        if count + raw.count > capacity {
            (base, capacity) = grownMemory(base, count: count, capacity: capacity, needed: count + raw.count)
        }
        UnsafeMutableRawPointer(base! + count).copyMemory(from: source, byteCount: raw.count)
        count += raw.count
    }

    public func append(contentsOf bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    /// Forgets the bytes, keeping the memory for the next ones.
    public func removeAll() {
        count = 0
    }

    /// Takes `count` bytes written in `memory` (allocated, of `capacity` bytes, now owned
    /// here) and gives back this piece's former memory, which holds nothing worth keeping:
    /// `nil` when it had none.
    func exchangeMemory(_ memory: UnsafeMutablePointer<UInt8>, count: Int, capacity: Int)
        -> (memory: UnsafeMutablePointer<UInt8>, capacity: Int)? {
        precondition(isEmpty, "WrittenBytes: only an empty piece takes a writer's memory")
        let former = base.map { ($0, self.capacity) }
        base = memory
        self.count = count
        self.capacity = capacity
        return former
    }
}
