/// Splits a connection's byte stream into requests: a head, its body parts, its end —
/// or a failure, after which the stream cannot be trusted and nothing more is decoded.
/// Routing is not its business: the connection decides what to do with a head.
struct RequestFramer: ~Copyable {
    enum Event {
        case head(RequestHead)
        /// Body bytes: this range of the input given to `next`.
        case body(Range<Int>)
        case end
        case failure(HTTPError, HeadSummary)
    }

    private enum State {
        case head
        /// `bodyDecoder` reads the body.
        case body
        case failed
    }

    private var state = State.head
    private var headParser: RequestHeadParser
    /// The current request's body decoder, kept outside `state` so it is decoded in
    /// place rather than copied out of the enum and back for every input.
    private var bodyDecoder: BodyDecoder
    let maxBodyBytes: Int
    /// An answered request's buffers, lent by the loop while this connection parses: the
    /// next head's bytes and body are written in their memory.
    var recycled = RecycledBuffers()
    /// The largest Content-Length a head may declare (the caller then decides, by
    /// route, whether the body's limit is `maxBodyBytes` or a stream's).
    private let maxDeclaredLength: Int

    /// `checksContentLength` false: a head's Content-Length is not held to
    /// `maxBodyBytes`; the caller checks it once it knows which limit applies.
    init(limits: HeadLimits = HeadLimits(), maxBodyBytes: Int, checksContentLength: Bool = true) {
        headParser = RequestHeadParser(limits: limits)
        bodyDecoder = BodyDecoder(framing: .none, maxBodyBytes: maxBodyBytes, limits: limits)
        self.maxBodyBytes = maxBodyBytes
        maxDeclaredLength = checksContentLength ? maxBodyBytes : Int.max
    }

    /// The current body is held to `limit` instead of `maxBodyBytes` (a streamed one).
    mutating func limitBody(to limit: Int) {
        bodyDecoder.maxBodyBytes = limit
    }

    /// True while part of a head has arrived but not all of it.
    var isInsideHead: Bool {
        if case .head = state { return headParser.hasStarted }
        return false
    }

    var isBetweenRequests: Bool {
        if case .head = state { return !headParser.hasStarted }
        return false
    }

    /// The next event from `input[index...]`, or nil when more input is needed (then
    /// every byte was consumed).
    @inline(__always)  // into the machine's parse, its one caller a request: out of line it cost ~100 instructions more
    mutating func next(_ input: UnsafeRawBufferPointer, index: inout Int) -> Event? {
        switch state {
        case .failed:
            index = input.count
            return nil
        case .head:
            guard index < input.count else { return nil }
            switch headParser.parse(input, index: &index, recycling: &recycled.head) {
            case .needMore:
                return nil
            case .failure(let error):
                state = .failed
                return .failure(error, HeadSummary())
            case .complete(let raw):
                switch RequestHeadValidator.validate(raw, fields: headParser.fields, maxBodyBytes: maxDeclaredLength) {
                case .failure(let failure):
                    state = .failed
                    return .failure(failure.error, failure.summary)
                case .success(let head):
                    bodyDecoder.restart(framing: head.framing, maxBodyBytes: maxBodyBytes)
                    state = .body
                    return .head(head)
                }
            }
        case .body:
            switch bodyDecoder.decode(input, index: &index) {
            case .needMore:
                return nil
            case .data(let range):
                return .body(range)
            case .end:
                state = .head
                return .end
            case .failure(let error):
                state = .failed
                return .failure(error, HeadSummary())
            }
        }
    }

    /// Elements with copied body bytes, for callers that hold whole buffers.
    enum Element {
        case head(RequestHead)
        case body([UInt8])
        case end
        case failure(HTTPError)
    }

    /// Feeds bytes and returns every complete element they finish.
    mutating func feed(_ bytes: [UInt8]) -> [Element] {
        var elements: [Element] = []
        bytes.withUnsafeBytes { input in
            var index = 0
            while let event = next(input, index: &index) {
                switch event {
                case .head(let head): elements.append(.head(head))
                case .body(let range): elements.append(.body(Array(input[range])))
                case .end: elements.append(.end)
                case .failure(let error, _): elements.append(.failure(error))
                }
            }
        }
        return elements
    }
}

/// The memory of an answered request's head bytes and body, written again by the next
/// request's: a head and a body of the usual few hundred bytes each cost an allocation
/// and its release (~250 instructions each) when made new. One set per event loop: a
/// connection borrows it while it parses (`RequestFramer.recycled`), so an idle
/// connection holds none, and buffers over `maxCapacity` are let go.
struct RecycledBuffers {
    /// Larger buffers are freed, not kept for the next request.
    static let maxCapacity = 16 * 1024

    var head: [UInt8] = []
    var body: [UInt8] = []

    /// Keeps the memory of `buffers` (each emptied) where it is larger than what is kept
    /// and not too large. (Swapped in, not assigned: emptied while it holds the only
    /// reference, so its memory is kept rather than copied.)
    mutating func keep(_ buffers: inout (head: [UInt8], body: [UInt8])) {
        Self.keep(&buffers.head, in: &head)
        Self.keep(&buffers.body, in: &body)
    }

    @inline(__always)
    private static func keep(_ buffer: inout [UInt8], in kept: inout [UInt8]) {
        guard buffer.capacity <= maxCapacity, buffer.capacity > kept.capacity else { return }
        buffer.removeAll(keepingCapacity: true)
        swap(&kept, &buffer)
    }

    /// The body's memory, empty, swapped into `empty` (an empty body): what it held is
    /// left here, so nothing is released. (Assigned, the body it replaced was released.)
    mutating func moveBody(into empty: inout [UInt8]) {
        swap(&empty, &body)
    }
}
