import CSyscalls
import Glibc

/// One accepted connection, driven by its loop's thread only. It feeds bytes to the
/// `RequestFramer`, routes each head, collects or discards the body, runs the handler
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
        /// The current body needs the budget's share of `bodyBytes` more than it has;
        /// reading is paused (its bytes wait in the socket) until they fit or `memoryWait` passes.
        case awaitingMemory(since: Int64, bodyBytes: Int)
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

    /// A streamed body, and its access line, written once it has ended. Sent chunked,
    /// or to an HTTP/1.0 client as plain bytes after a Content-Length counted first.
    private struct StreamedBody {
        let stream: any HTTPBodyStream
        let chunked: Bool
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
    /// A chunked body's share of the memory budget is taken this many bytes at a time,
    /// since its length is unknown until it ends.
    static let chunkedReservationBytes = 1024 * 1024
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

    @exclusivity(unchecked) private var decoder: RequestFramer
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
    /// The minimum-rate clock of the request being received: since when, and how many
    /// bytes have arrived since then.
    @exclusivity(unchecked) private var rateClockStartedAt: Int64 = 0
    @exclusivity(unchecked) private var bytesSinceRateClock = 0
    /// The body bytes the current request's share of the memory budget covers.
    @exclusivity(unchecked) private var reservedBodyBytes = 0
    /// Unsent output counted in the memory budget.
    @exclusivity(unchecked) private var countedOutputBytes = 0
    /// What a lingering close reads and discards at most: more after a refusal whose
    /// client sends its body anyway, so it reads the answer instead of a reset.
    @exclusivity(unchecked) private var lingerAllowance = HTTPConnection.maxLingerBytes

    init(fd: Int32, generation: UInt32, loop: EpollEventLoop) {
        self.fd = fd
        self.generation = generation
        self.loop = loop
        decoder = RequestFramer(limits: loop.context.configuration.headLimits,
                                 maxBodyBytes: loop.context.configuration.maxBodyBytes)
    }

    private var hasQueuedOutput: Bool { !output.isEmpty || !loop.scratch.isEmpty }
    private var hasPendingOutput: Bool { hasQueuedOutput || streamedBody != nil }

    /// A request whose head has arrived and whose answer is not fully sent (http.md:
    /// such requests complete at shutdown).
    var hasRequestInFlight: Bool {
        switch phase {
        case .awaitingHandler, .awaitingMemory: true
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
                if discarded + count >= lingerAllowance { closeNow() } else { phase = .lingering(discarded: discarded + count) }
                return
            }
            if decoder.isBetweenRequests {
                headStartedAt = loop.now
                restartRateClock()
            }
            bytesSinceRateClock += count
            process(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            if case .reading = phase, !decoder.isBetweenRequests, isBelowMinimumRate {
                let configuration = loop.context.configuration
                refuse(HTTPError(status: 408, detail: "the request arrived at under \(configuration.minReceiveRate) bytes/s on average after its first \(configuration.minReceiveRateGrace) s"),
                       summary: HeadSummary())
            }
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
            case .awaitingHandler, .awaitingMemory, .closingAfterWrite, .closed:
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
        case .memoryRetry:
            guard case .awaitingMemory(let since, let bodyBytes) = phase else { return }
            if loop.context.memoryBudget.reserve(share(of: bodyBytes)) {
                phase = .reading
                admitted(bodyBytes: bodyBytes)
            } else if loop.now - since >= Int64(loop.context.configuration.memoryWait * 1e9) {
                phase = .reading
                refuseOverBudget()
            }
            afterProcessing()
        case .header, .idle, .send, .linger:
            closeNow()
        }
    }

    // MARK: Memory budget and minimum rate

    private func restartRateClock() {
        rateClockStartedAt = loop.now
        bytesSinceRateClock = 0
    }

    /// Past its grace period, the request has averaged under the minimum rate.
    private var isBelowMinimumRate: Bool {
        let configuration = loop.context.configuration
        guard configuration.minReceiveRate > 0 else { return false }
        let seconds = Double(loop.now - rateClockStartedAt) / 1e9 - configuration.minReceiveRateGrace
        return seconds > 0 && Double(bytesSinceRateClock) < configuration.minReceiveRate * seconds
    }

    /// Takes the budget for `bodyBytes` more of the current body, or pauses reading
    /// until it can (`timerExpired(.memoryRetry)`).
    private func reserve(bodyBytes: Int) {
        if loop.context.memoryBudget.reserve(share(of: bodyBytes)) {
            admitted(bodyBytes: bodyBytes)
        } else {
            phase = .awaitingMemory(since: loop.now, bodyBytes: bodyBytes)
        }
    }

    /// What `bodyBytes` of a body are counted at in the memory budget.
    private func share(of bodyBytes: Int) -> Int {
        bodyBytes * loop.context.configuration.memoryPerBodyByte
    }

    /// The budget took its share of `bodyBytes` more of the current body: (go on) reading it.
    private func admitted(bodyBytes: Int) {
        reservedBodyBytes += bodyBytes
        guard let head = exchange?.head else { return }
        if exchange!.body.isEmpty {
            if case .length(let length) = head.framing { exchange!.body.reserveCapacity(length) }
            if head.expectsContinue { appendOutput { $0.append(ResponseSerializer.continueResponse) } }
        }
        restartRateClock()  // the wait was the server's, not the client's
    }

    private func releaseReservation() {
        guard reservedBodyBytes > 0 else { return }
        loop.context.memoryBudget.adjust(by: -share(of: reservedBodyBytes))
        if reservedBodyBytes >= loop.context.configuration.offloadBodyBytes { loop.context.heapTrimmer.largeWorkEnded() }
        reservedBodyBytes = 0
    }

    /// The body did not fit within `memoryWait`: `503` at once, before reading it; then a
    /// lingering close that takes in the rest of a body the client sends anyway.
    private func refuseOverBudget() {
        let budget = loop.context.memoryBudget
        var response = ProblemDetails(status: 503, detail: "the server's memory budget of \(budget.limit) bytes for requests in flight is in use; retry later").response
        response.headers.append(("Retry-After", "1"))
        if let head = exchange?.head, !head.expectsContinue, case .length(let length) = head.framing {
            lingerAllowance = Self.maxLingerBytes + max(0, length - exchange!.body.count)
        }
        finish(response, forceClose: true)
    }

    /// Keeps the budget's count of this connection's unsent output up to date.
    private func countOutput() {
        let unsent = output.count
        guard unsent != countedOutputBytes else { return }
        loop.context.memoryBudget.adjust(by: unsent - countedOutputBytes)
        countedOutputBytes = unsent
    }

    func handlerFinished(_ response: HTTPResponse) {
        guard case .awaitingHandler = phase else { return }
        phase = .reading
        finish(response)
        afterProcessing()
    }

    func closeNow() {
        if case .closed = phase { return }
        // An offloaded handler still holds its request: its completion gives the share back.
        if case .awaitingHandler = phase {} else { releaseReservation() }
        phase = .closed
        loop.scratch.removeAll()  // only ever holds the current connection's answers
        // A large answer cut short (a peer that stopped reading) is given back too.
        if output.count >= OutputQueue.retainedCapacity { loop.context.heapTrimmer.largeWorkEnded() }
        output = OutputQueue()
        countOutput()
        if streamedBody.take() != nil { loop.context.heapTrimmer.largeWorkEnded() }
        pending = []
        loop.close(self)
    }

    /// The share of the budget an offloaded handler's request holds, for its completion
    /// to give back when the connection has closed meanwhile.
    var offloadedReservation: Int { share(of: reservedBodyBytes) }

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
                    // A chunked body outgrew its share: take the next step of it.
                    if exchange!.body.count > reservedBodyBytes {
                        reserve(bodyBytes: max(Self.chunkedReservationBytes, exchange!.body.count - reservedBodyBytes))
                    }
                }
            case .end:
                requestComplete()
            case .failure(let error, let summary):
                refuse(error, summary: summary)
            }
        }
        if index < input.count {
            switch phase {
            case .reading, .awaitingHandler, .awaitingMemory:
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
        switch head.framing {
        case .length(let length) where keepsBody:
            reserve(bodyBytes: length)
        case .chunked where keepsBody:
            reserve(bodyBytes: min(Self.chunkedReservationBytes, loop.context.configuration.maxBodyBytes))
        case .length, .chunked:
            // Read and discarded, so it takes nothing of the budget.
            if head.expectsContinue { appendOutput { $0.append(ResponseSerializer.continueResponse) } }
        case .none:
            break
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
        var framing = ResponseSerializer.BodyFraming.whole
        if let bodyStream = response.bodyStream.take() {
            // A body that ends within its first piece is sent whole with a Content-Length.
            // A longer one is chunked, or, to an HTTP/1.0 client (which has no chunked
            // coding), sent as it is written after a Content-Length counted beforehand.
            // HEAD gets a GET's header fields without making the body.
            let isHTTP10 = exchange!.head.version == .http1_0
            if isHead {
                if !isHTTP10 { framing = .chunked }
            } else if bodyStream.next(into: &response.body, minimum: Self.streamPieceBytes) {
                stream = bodyStream
                framing = isHTTP10 ? .length(response.streamLength ?? bodyStream.byteCount()) : .chunked
            }
        }
        appendOutput {
            ResponseSerializer.append(response, to: &$0, date: loop.dateField, omitBody: isHead, connection: field,
                                      framing: framing)
            if stream != nil { ResponseSerializer.appendPiece(response.body, to: &$0, chunked: framing == .chunked) }
        }
        let accessLine = !loop.logsAccess ? nil : AccessLineFields(
            method: exchange!.head.method.rawValue, path: exchange!.head.path, status: response.status,
            startedAt: exchange!.startedAt, fields: response.logFields, userAgent: exchange!.head.userAgent)
        if let stream {
            streamedBody = StreamedBody(stream: stream, chunked: framing == .chunked, sentBytes: response.body.count,
                                        accessLine: accessLine)
        } else {
            releaseReservation()
            // Whatever the request, an answer this large leaves freed megabytes to give back.
            if response.body.count >= loop.context.configuration.offloadBodyBytes { loop.context.heapTrimmer.largeWorkEnded() }
            if let accessLine { loop.logAccess(accessLine, bytes: isHead ? 0 : response.body.count) }
        }
        exchange = nil
        decidedResponse = nil
        servedRequests += 1
        restartRateClock()  // a request pipelined behind this one is timed from here
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
        let chunked = streamedBody!.chunked
        appendOutput {
            ResponseSerializer.appendPiece(piece, to: &$0, chunked: chunked)
            if !more && chunked { ResponseSerializer.appendLastChunk(to: &$0) }
        }
        guard !more, let ended = streamedBody.take() else { return }
        releaseReservation()
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
        releaseReservation()
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
        if output.isEmpty {
            output = OutputQueue()
            // A whole answer of megabytes that waited for a slow peer has gone.
            if countedOutputBytes >= OutputQueue.retainedCapacity { loop.context.heapTrimmer.largeWorkEnded() }
        }
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
        countOutput()
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
        case .awaitingMemory:
            // Only a 100 Continue can be waiting here; the retry timer runs either way.
            loop.setInterest(self, blocked ? UInt32(CSYSCALLS_EPOLLOUT) : 0)
            if timerKind != .memoryRetry { loop.arm(self, .memoryRetry) }
        case .lingering, .closed:
            break
        }
        bodyProgress = false
        sendProgress = false
    }
}
