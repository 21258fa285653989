import CSyscalls
import Glibc

/// One accepted connection, driven by its loop's thread only. It feeds bytes to the
/// `RequestDecoder`, routes each head, collects or discards the body, runs the handler
/// (inline, or on a global queue for large bodies), and writes answers in order.
///
/// Memory per idle connection is this object and the decoder's small state: input is
/// parsed straight from the loop's read buffer, answers are built in the loop's scratch
/// queue, and only what could not be processed or sent yet is kept here.
///
/// Every stored `var` is `@exclusivity(unchecked)`: only the loop's thread touches a
/// connection, one call at a time, so the runtime's access tracking would only cost time.
final class HTTPConnection {
    private enum Phase {
        /// Reading requests (or pausing while answers are blocked on the socket).
        case reading
        /// A handler runs on a global queue; nothing more is read until it answers.
        case awaitingHandler
        /// Send what is queued, then close (lingering after answers that refused something).
        case closingAfterWrite(linger: Bool)
        /// Write side shut; reading and discarding so the peer sees the answer, not a reset.
        case lingering(discarded: Int)
        case closed
    }

    /// The request between its head and its answer. Used in place (never copied or
    /// moved whole): at over a hundred bytes, each move was a call to memcpy.
    private struct Exchange {
        var head: RequestHead
        /// The route that answers (its index in the router); nil when `decidedResponse` does.
        var routeIndex: Int?
        var keepsBody: Bool
        var body: [UInt8] = []
        var startedAt: Int64
    }

    /// A streamed body sent chunked, and its access line, written once it has ended.
    private struct StreamedBody {
        let stream: any HTTPBodyStream
        var sentBytes: Int
        let accessLine: AccessLineFields?
        /// The last two pieces' arrays. A new piece starts only once less than a piece
        /// waits, so the older one has normally been sent and dropped by the output
        /// queue: it is written again in place instead of allocating (and page-faulting
        /// in) a fresh megabyte for every piece.
        var recycled: (older: [UInt8], newer: [UInt8]) = ([], [])

        /// An empty array for the next piece, with the older piece's capacity.
        mutating func takeBuffer() -> [UInt8] {
            var buffer: [UInt8] = []
            swap(&buffer, &recycled.older)
            swap(&recycled.older, &recycled.newer)
            buffer.removeAll(keepingCapacity: true)
            return buffer
        }
    }

    static let maxLingerBytes = 64 * 1024
    /// Pipelined requests stop being parsed while this much output waits.
    static let outputHighWater = 256 * 1024
    /// A streamed body is pulled in pieces of this size, the next one once less
    /// than this waits for the socket: about two pieces in memory at a time.
    /// Measured on the 100k-event log's 20 MB answer: 1 MiB took 6–10 % less time
    /// than 256 KiB (fewer sends and wake-ups) and 64 KiB 15 % more; 2 MiB, more
    /// than the CPU's cache, was slower again.
    static let streamPieceBytes = 1024 * 1024

    let fd: Int32
    let generation: UInt32
    // unowned(unsafe): a loop outlives its connections; it closes them all before it stops.
    unowned(unsafe) let loop: EpollEventLoop
    @exclusivity(unchecked) var interest: UInt32 = 0
    @exclusivity(unchecked) var timerKind: TimerKind?
    @exclusivity(unchecked) var deadline: Int64 = 0
    /// Links of the loop's timer lists, not counted (see `TimerList`).
    @exclusivity(unchecked) var timerPrevious: TimerList.Link?
    @exclusivity(unchecked) var timerNext: TimerList.Link?

    @exclusivity(unchecked) private var decoder: RequestDecoder
    @exclusivity(unchecked) private var phase = Phase.reading
    @exclusivity(unchecked) private var exchange: Exchange?
    /// The answer decided from the current request's head alone (404, 405, 415, 417...).
    @exclusivity(unchecked) private var decidedResponse: HTTPResponse?
    /// Input received but not processed yet (processing is suspended).
    @exclusivity(unchecked) private var pending: [UInt8] = []
    /// Answers the socket has not taken yet.
    @exclusivity(unchecked) private var output = OutputQueue()
    /// The body being streamed after the output, if any; nothing else is answered until it ends.
    @exclusivity(unchecked) private var streamedBody: StreamedBody?
    @exclusivity(unchecked) private var servedRequests = 0
    @exclusivity(unchecked) private var headStartedAt: Int64 = 0
    @exclusivity(unchecked) private var peerClosedInput = false
    @exclusivity(unchecked) private var bodyProgress = false
    @exclusivity(unchecked) private var sendProgress = false

    init(fd: Int32, generation: UInt32, loop: EpollEventLoop) {
        self.fd = fd
        self.generation = generation
        self.loop = loop
        decoder = RequestDecoder(limits: loop.context.configuration.headLimits,
                                 maxBodyBytes: loop.context.configuration.maxBodyBytes)
    }

    private var hasQueuedOutput: Bool { !output.isEmpty || !loop.scratch.isEmpty }
    private var hasPendingOutput: Bool { hasQueuedOutput || streamedBody != nil }

    /// A request whose head has arrived and whose answer is not fully sent (http.md:
    /// such requests complete at shutdown).
    var hasRequestInFlight: Bool {
        switch phase {
        case .awaitingHandler: true
        case .reading: exchange != nil || hasPendingOutput
        case .closingAfterWrite: hasPendingOutput
        case .lingering, .closed: false
        }
    }

    // MARK: Events

    func handle(events: UInt32) {
        if events & UInt32(CSYSCALLS_EPOLLERR) != 0 {
            closeNow()
            return
        }
        if events & UInt32(CSYSCALLS_EPOLLOUT) != 0 {
            sendProgress = false
            afterProcessing()
        }
        if case .closed = phase { return }
        if events & UInt32(CSYSCALLS_EPOLLIN) != 0 {
            readable()
        } else if events & UInt32(CSYSCALLS_EPOLLHUP) != 0 {
            closeNow()
        }
    }

    private func readable() {
        let buffer = loop.readBuffer
        let count = csyscalls_read(fd, buffer.baseAddress, buffer.count)
        if count > 0 {
            if case .lingering(let discarded) = phase {
                if discarded + count >= Self.maxLingerBytes { closeNow() } else { phase = .lingering(discarded: discarded + count) }
                return
            }
            if decoder.isBetweenRequests { headStartedAt = loop.now }
            process(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            afterProcessing()
        } else if count == 0 {
            peerClosedInput = true
            switch phase {
            case .reading:
                // An incomplete request can no longer complete; answers already queued still go out.
                if hasPendingOutput && exchange == nil { phase = .closingAfterWrite(linger: false) } else { closeNow() }
                if case .closed = phase { return }
                afterProcessing()
            case .lingering:
                closeNow()
            case .awaitingHandler, .closingAfterWrite, .closed:
                loop.setInterest(self, hasPendingOutput ? UInt32(CSYSCALLS_EPOLLOUT) : 0)
            }
        } else if count != -Int(EAGAIN) && count != -Int(EINTR) {
            closeNow()
        }
    }

    func timerExpired(_ kind: TimerKind) {
        switch kind {
        case .header where decoder.isInsideHead:
            let seconds = loop.context.configuration.headerTimeout
            refuse(HTTPError(status: 408, detail: "the request head did not arrive within \(seconds) s"), summary: HeadSummary())
            afterProcessing()
        case .body:
            let seconds = loop.context.configuration.bodyTimeout
            refuse(HTTPError(status: 408, detail: "the request body made no progress for \(seconds) s"), summary: HeadSummary())
            afterProcessing()
        case .header, .idle, .send, .linger:
            closeNow()
        }
    }

    func handlerFinished(_ response: HTTPResponse) {
        guard case .awaitingHandler = phase else { return }
        phase = .reading
        finish(response)
        afterProcessing()
    }

    func closeNow() {
        if case .closed = phase { return }
        phase = .closed
        loop.scratch.removeAll()  // only ever holds the current connection's answers
        output = OutputQueue()
        if streamedBody.take() != nil { loop.context.heapTrimmer.largeWorkEnded() }
        pending = []
        loop.close(self)
    }

    // MARK: Requests

    private func process(_ input: UnsafeRawBufferPointer) {
        var index = 0
        while case .reading = phase {
            if output.count + loop.scratch.count >= Self.outputHighWater || streamedBody != nil { break }
            guard let event = decoder.next(input, index: &index) else { break }
            switch event {
            case .head(let head):
                receivedHead(head)
            case .body(let range):
                bodyProgress = true
                if exchange?.keepsBody == true {
                    exchange!.body.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[range]))
                }
            case .end:
                requestComplete()
            case .failure(let error, let summary):
                refuse(error, summary: summary)
            }
        }
        if index < input.count {
            switch phase {
            case .reading, .awaitingHandler:
                pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[index...]))
            case .closingAfterWrite, .lingering, .closed:
                break
            }
        }
    }

    private func receivedHead(_ head: RequestHead) {
        let hasBody = head.framing != .none
        var routeIndex: Int?
        var response: HTTPResponse?
        var keepsBody = false
        let router = loop.context.router
        let choice = head.withPathAndContentType { router.choose(method: head.method, path: $0, contentType: $1) }
        switch choice {
        case .respond(let decided):
            response = decided
        case .handle(let index, let keeps):
            if head.hasUnsupportedExpectation {
                response = ProblemDetails(status: 417, detail: "only the expectation 100-continue is supported").response
            } else {
                routeIndex = index
                keepsBody = keeps
            }
        }
        exchange = Exchange(head: head, routeIndex: routeIndex, keepsBody: keepsBody, startedAt: headStartedAt)
        decidedResponse = response
        if let response, response.status >= 400, hasBody, head.expectsContinue || head.hasUnsupportedExpectation {
            // Refused early: the client holds its body back, so answer now and close
            // rather than read a body nobody wants (http.md "Protocol edge cases").
            finish(response, forceClose: true)
            return
        }
        if head.expectsContinue && hasBody {
            appendOutput { $0.append(ResponseSerializer.continueResponse) }
        }
        if keepsBody, case .length(let length) = head.framing {
            exchange!.body.reserveCapacity(length)
        }
    }

    private func requestComplete() {
        guard exchange != nil else { return }
        if let response = decidedResponse.take() {
            finish(response)
            return
        }
        guard let routeIndex = exchange!.routeIndex else { return }
        var body: [UInt8] = []
        swap(&body, &exchange!.body)
        let request = exchange!.head.request(body: body)
        if request.body.count > loop.context.configuration.offloadBodyBytes {
            phase = .awaitingHandler
            loop.offload(self, routeIndex: routeIndex, request: request)
        } else {
            finish(loop.context.router.routes[routeIndex].handler(request))
        }
    }

    /// Queues the answer to the current request and decides what the connection does next.
    private func finish(_ response: consuming HTTPResponse, forceClose: Bool = false) {
        guard exchange != nil else { return }
        let keepAlive = exchange!.head.keepAlive && !forceClose && !loop.draining && !peerClosedInput
        let field: ResponseSerializer.ConnectionField = !keepAlive ? .close : exchange!.head.version == .http1_0 ? .keepAlive : .none
        let isHead = exchange!.head.method == .HEAD
        var response = response
        var stream: (any HTTPBodyStream)?
        var chunked = false
        if let bodyStream = response.bodyStream.take() {
            // A body that ends within its first piece, or goes to an HTTP/1.0 client
            // (which has no chunked coding), is sent whole with a Content-Length.
            // HEAD gets a GET's header fields without making the body.
            let minimum = exchange!.head.version == .http1_0 ? Int.max : Self.streamPieceBytes
            if isHead {
                chunked = exchange!.head.version != .http1_0
            } else if bodyStream.next(into: &response.body, minimum: minimum) {
                stream = bodyStream
                chunked = true
            }
        }
        appendOutput {
            ResponseSerializer.append(response, to: &$0, date: loop.dateField, omitBody: isHead, connection: field,
                                      chunked: chunked)
            if stream != nil { ResponseSerializer.appendChunk(response.body, to: &$0) }
        }
        let accessLine = !loop.logsAccess ? nil : AccessLineFields(
            method: exchange!.head.method.rawValue, path: exchange!.head.path, status: response.status,
            startedAt: exchange!.startedAt, fields: response.logFields, userAgent: exchange!.head.userAgent)
        if let stream {
            streamedBody = StreamedBody(stream: stream, sentBytes: response.body.count, accessLine: accessLine)
        } else if let accessLine {
            loop.logAccess(accessLine, bytes: isHead ? 0 : response.body.count)
        }
        exchange = nil
        decidedResponse = nil
        servedRequests += 1
        loop.disarm(self)  // the idle clock starts again after every answer
        if !keepAlive { phase = .closingAfterWrite(linger: true) }
    }

    /// Appends the next piece of the streamed body once little output waits; after the
    /// last one, the last chunk, and the access line with the body's whole size.
    private func continueStreamedBody() {
        guard streamedBody != nil, output.count + loop.scratch.count < Self.streamPieceBytes else { return }
        var piece = streamedBody!.takeBuffer()
        let more = streamedBody!.stream.next(into: &piece, minimum: Self.streamPieceBytes)
        streamedBody!.sentBytes += piece.count
        streamedBody!.recycled.newer = piece
        appendOutput {
            ResponseSerializer.appendChunk(piece, to: &$0)
            if !more { ResponseSerializer.appendLastChunk(to: &$0) }
        }
        guard !more, let ended = streamedBody.take() else { return }
        loop.context.heapTrimmer.largeWorkEnded()
        if let accessLine = ended.accessLine { loop.logAccess(accessLine, bytes: ended.sentBytes) }
    }

    /// A framing error or timeout: answer, then close with a lingering close.
    private func refuse(_ error: HTTPError, summary: HeadSummary) {
        var summary = summary
        if let head = exchange?.head {
            summary = HeadSummary(method: head.method.rawValue, path: head.path, userAgent: head.userAgent)
        }
        let startedAt = exchange?.startedAt ?? headStartedAt
        exchange = nil
        decidedResponse = nil
        let response = error.response
        appendOutput { ResponseSerializer.append(response, to: &$0, date: loop.dateField, omitBody: false, connection: .close) }
        if loop.logsAccess {
            loop.logAccess(AccessLineFields(method: summary.method, path: summary.path, status: error.status,
                                            startedAt: startedAt, userAgent: summary.userAgent),
                           bytes: response.body.count)
        }
        phase = .closingAfterWrite(linger: true)
    }

    /// Answers go into the loop's scratch queue unless this connection already has
    /// unsent output, which they must queue behind.
    private func appendOutput(_ write: (inout OutputQueue) -> Void) {
        if output.isEmpty { write(&loop.scratch) } else { write(&output) }
    }

    // MARK: Output, interest and timers

    /// Sends queued output; returns false if the connection was closed.
    private func flush() -> Bool {
        if output.isEmpty {
            guard !loop.scratch.isEmpty else { return true }
            guard loop.scratch.send(to: fd, progress: &sendProgress) else {
                closeNow()
                return false
            }
            if loop.scratch.isEmpty {
                loop.scratch.removeAll()
            } else {
                output = loop.scratch.takeUnsent()
            }
            return true
        }
        guard output.send(to: fd, progress: &sendProgress) else {
            closeNow()
            return false
        }
        if output.isEmpty { output = OutputQueue() }
        return true
    }

    private func afterProcessing() {
        while true {
            if case .closed = phase { return }
            continueStreamedBody()
            if hasQueuedOutput {
                guard flush() else { return }
                if hasQueuedOutput { break }
            }
            // The socket took everything: write the streamed body's next piece.
            if streamedBody != nil { continue }
            guard case .reading = phase, !pending.isEmpty else { break }
            let buffered = pending
            pending = []
            buffered.withUnsafeBytes { process($0) }
        }
        if case .closingAfterWrite(let linger) = phase, !hasPendingOutput {
            guard linger, !peerClosedInput else {
                closeNow()
                return
            }
            _ = csyscalls_shutdown_write(fd)
            phase = .lingering(discarded: 0)
            loop.setInterest(self, UInt32(CSYSCALLS_EPOLLIN))
            loop.arm(self, .linger)
            return
        }
        // Draining: an answer that was still going out when the drain began has now
        // gone; the connection is idle and closes like the idle ones did then.
        if loop.draining, !hasRequestInFlight {
            closeNow()
            return
        }
        updateInterestAndTimer()
    }

    private func updateInterestAndTimer() {
        let blocked = hasPendingOutput
        switch phase {
        case .reading:
            loop.setInterest(self, blocked ? UInt32(CSYSCALLS_EPOLLOUT) : UInt32(CSYSCALLS_EPOLLIN))
            if blocked {
                if timerKind != .send || sendProgress { loop.arm(self, .send) }
            } else if decoder.isBetweenRequests {
                if servedRequests == 0 {
                    if timerKind != .header { loop.arm(self, .header) }
                } else if timerKind != .idle {
                    loop.arm(self, .idle)
                }
            } else if decoder.isInsideHead {
                if timerKind != .header { loop.arm(self, .header) }
            } else if timerKind != .body || bodyProgress {
                loop.arm(self, .body)
            }
        case .awaitingHandler, .closingAfterWrite:
            loop.setInterest(self, blocked ? UInt32(CSYSCALLS_EPOLLOUT) : 0)
            if blocked {
                if timerKind != .send || sendProgress { loop.arm(self, .send) }
            } else {
                loop.disarm(self)
            }
        case .lingering, .closed:
            break
        }
        bodyProgress = false
        sendProgress = false
    }
}
