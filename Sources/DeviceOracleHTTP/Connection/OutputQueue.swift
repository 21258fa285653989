import CSyscalls
import DeviceOracleJSON
import Glibc

/// Answers on their way to a socket, in order: the bytes written here (status lines,
/// header fields, small bodies), with large response bodies spliced in by reference.
/// A body of megabytes goes to the socket straight from the handler's array (or a
/// streamed piece from the memory it was written in), in the same `sendmsg` as the head
/// before it, instead of being copied into a buffer first (for a 20 MB answer the copies
/// cost more time than the send and twice its size in memory).
struct OutputQueue {
    /// A body sent by reference.
    enum Body {
        case array([UInt8])
        case written(WrittenBytes)

        var count: Int {
            switch self {
            case .array(let bytes): bytes.count
            case .written(let piece): piece.count
            }
        }

        func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
            switch self {
            case .array(let bytes): bytes.withUnsafeBytes(body)
            case .written(let piece): piece.withUnsafeBytes(body)
            }
        }
    }

    /// Bodies at least this large are sent from their own array; smaller ones are
    /// copied, which costs less than another iovec.
    static let bodyByReferenceBytes = 16 * 1024
    /// iovecs per `sendmsg` at most (IOV_MAX is 1024).
    static let maxBuffersPerSend = 64
    /// Capacity kept for reuse after everything was sent; a buffer grown past it is freed.
    static let retainedCapacity = 1 << 20

    private var bytes: [UInt8] = []
    /// Bodies that follow `bytes[..<offset]`, by offset.
    private var bodies: [(offset: Int, body: Body)] = []
    private var bodyBytes = 0
    /// Bytes at the front of the stream the socket has taken.
    private var sentBytes = 0

    /// Bytes not sent yet.
    @inline(__always) var count: Int { bytes.count + bodyBytes - sentBytes }
    @inline(__always) var isEmpty: Bool { count == 0 }

    mutating func reserveCapacity(_ capacity: Int) {
        bytes.reserveCapacity(capacity)
    }

    // MARK: Writing

    mutating func append(_ text: StaticString) {
        append(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    mutating func append(_ raw: UnsafeRawBufferPointer) {
        bytes.append(contentsOf: raw)
    }

    /// Appends at most `maxCount` bytes that `write` writes: many small pieces (a
    /// response head) cost one append to the buffer instead of one each.
    mutating func append(maxCount: Int, _ write: (inout ByteWriter) -> Void) {
        withUnsafeTemporaryAllocation(byteCount: maxCount, alignment: 1) { space in
            var writer = ByteWriter(space)
            write(&writer)
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: space[..<writer.count]))
        }
    }

    /// A response body: copied when small, else kept by reference and sent from its own memory.
    mutating func append(body: Body) {
        if body.count < Self.bodyByReferenceBytes {
            body.withUnsafeBytes { bytes.append(contentsOf: $0) }
        } else {
            bodies.append((bytes.count, body))
            bodyBytes += body.count
        }
    }

    /// A whole answer's body, as `append(body:)` does. A small one is copied from the
    /// borrowed array: wrapped in a `Body` first, it was retained and released for nothing.
    mutating func append(body array: [UInt8]) {
        if array.count < Self.bodyByReferenceBytes {
            array.withUnsafeBytes { bytes.append(contentsOf: $0) }
        } else {
            append(body: .array(array))
        }
    }

    // MARK: Sending

    /// Sends until everything is sent or the socket would block. Returns false on a
    /// socket error; `progress` is set when the socket took bytes.
    mutating func send(to fd: Int32, progress: inout Bool) -> Bool {
        while !isEmpty {
            let sent: Int
            if bodies.isEmpty {
                sent = bytes.withUnsafeBytes { csyscalls_send(fd, $0.baseAddress! + sentBytes, $0.count - sentBytes) }
            } else {
                sent = withUnsentBuffers { csyscalls_sendv(fd, $0.baseAddress, Int32($0.count)) }
            }
            if sent > 0 {
                sentBytes += sent
                progress = true
            } else if sent != -Int(EINTR) {
                return sent == -Int(EAGAIN)
            }
        }
        return true
    }

    /// Forgets everything (sent or not), keeping a reasonably sized buffer for reuse.
    mutating func removeAll() {
        bytes.removeAll(keepingCapacity: bytes.capacity <= Self.retainedCapacity)
        if !bodies.isEmpty { bodies.removeAll() }  // the usual answer has none: no release of an empty array
        bodyBytes = 0
        sentBytes = 0
    }

    /// Moves what is not sent yet into a queue of its own (the bytes copied, bodies
    /// still by reference) and empties this one: the loop's scratch queue hands a
    /// blocked connection its remaining answers this way.
    mutating func takeUnsent() -> OutputQueue {
        // Find the first unsent byte: in the bytes before body `first`, at `cut`, or inside body `first`.
        var position = 0, cursor = 0
        var first = bodies.count, cut = -1, sentOfFirst = 0
        for (index, (offset, body)) in bodies.enumerated() {
            if sentBytes < position + offset - cursor {
                first = index
                cut = cursor + sentBytes - position
                break
            }
            position += offset - cursor
            if sentBytes < position + body.count {
                first = index
                cut = offset
                sentOfFirst = sentBytes - position
                break
            }
            position += body.count
            cursor = offset
        }
        if cut < 0 { cut = cursor + sentBytes - position }
        var rest = OutputQueue()
        rest.bytes = Array(bytes[cut...])
        for (offset, body) in bodies[first...] {
            rest.bodies.append((offset - cut, body))
            rest.bodyBytes += body.count
        }
        rest.sentBytes = sentOfFirst
        removeAll()
        return rest
    }

    /// Calls `send` with iovecs for the unsent stream (at most `maxBuffersPerSend`),
    /// valid for the duration of the call: each array is entered with `withUnsafeBytes`.
    private func withUnsentBuffers(_ send: (UnsafeBufferPointer<csyscalls_iovec>) -> Int) -> Int {
        withUnsafeTemporaryAllocation(of: csyscalls_iovec.self, capacity: Self.maxBuffersPerSend) { buffers in
            bytes.withUnsafeBytes { head in
                var count = 0
                var position = 0  // stream position of the next piece
                func add(_ piece: UnsafeRawBufferPointer) {
                    defer { position += piece.count }
                    guard !piece.isEmpty, count < buffers.count, position + piece.count > sentBytes else { return }
                    let skip = max(0, sentBytes - position)
                    buffers[count] = csyscalls_iovec(base: piece.baseAddress! + skip, length: piece.count - skip)
                    count += 1
                }
                // Recursion keeps every body's `withUnsafeBytes` open until the send.
                func addBodies(from index: Int, cursor: Int) -> Int {
                    guard index < bodies.count, count < buffers.count else {
                        if count < buffers.count, cursor < head.count { add(UnsafeRawBufferPointer(rebasing: head[cursor...])) }
                        return send(UnsafeBufferPointer(rebasing: buffers[0..<count]))
                    }
                    let offset = bodies[index].offset
                    if offset > cursor { add(UnsafeRawBufferPointer(rebasing: head[cursor..<offset])) }
                    return bodies[index].body.withUnsafeBytes { body in
                        add(body)
                        return addBodies(from: index + 1, cursor: offset)
                    }
                }
                return addBodies(from: 0, cursor: 0)
            }
        }
    }
}

/// Writes bytes into space sized beforehand (see `OutputQueue.append(maxCount:_:)`);
/// writing past its end is a precondition failure, never a buffer overflow.
struct ByteWriter {
    private let space: UnsafeMutableRawBufferPointer
    private(set) var count = 0

    init(_ space: UnsafeMutableRawBufferPointer) {
        self.space = space
    }

    // Inlined: a head is a dozen appends, most of literals whose copy then takes a few moves.
    @inline(__always) mutating func append(_ raw: UnsafeRawBufferPointer) {
        guard let source = raw.baseAddress, raw.count > 0 else { return }
        precondition(raw.count <= space.count - count, "ByteWriter: the space reserved is too small")
        guard let target = space.baseAddress else { return }  // never: the precondition held
        (target + count).copyMemory(from: source, byteCount: raw.count)
        count += raw.count
    }

    @inline(__always) mutating func append(_ text: StaticString) {
        append(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// A `String`'s UTF-8, copied from its storage when it has contiguous storage (native strings do).
    mutating func append(utf8 text: String) {
        let copied: Void? = text.utf8.withContiguousStorageIfAvailable { append(UnsafeRawBufferPointer($0)) }
        if copied == nil {
            var text = text
            text.withUTF8 { append(UnsafeRawBufferPointer($0)) }
        }
    }

    /// `value` (negative as 0) in decimal, written in place: its digits are counted
    /// first, then written from the last.
    mutating func appendDecimal(_ value: Int) {
        var rest = UInt(max(value, 0))
        var length = 1
        var bound: UInt = 10
        while rest >= bound, length < 19 {  // Int.max has 19 digits
            length += 1
            bound &*= 10
        }
        precondition(length <= space.count - count, "ByteWriter: the space reserved is too small")
        guard let target = space.baseAddress else { return }  // never: the precondition held
        var at = count + length
        repeat {
            at -= 1
            target.storeBytes(of: UInt8(48 + rest % 10), toByteOffset: at, as: UInt8.self)
            rest /= 10
        } while rest > 0
        count += length
    }
}
