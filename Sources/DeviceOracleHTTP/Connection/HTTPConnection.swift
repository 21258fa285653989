import CSyscalls
import DeviceOracleJSON
import Glibc

/// One accepted connection's I/O, driven by its loop's thread only: it reads into the
/// loop's buffer, hands events to its `ConnectionStateMachine`, and performs what the
/// machine decides — its effects in order (sends, access records), epoll interest,
/// timers, memory reservations, routing, handlers (inline, or on the worker pool for large bodies), a
/// streamed request's handler calls, streamed answers' pieces, close.
///
/// Memory per idle connection is this object and the machine's small state: input is
/// parsed straight from the loop's read buffer, answers are built in the loop's scratch
/// queue, and only what could not be processed or sent yet is kept here.
///
/// Every stored `var` is `@exclusivity(unchecked)`: only the loop's thread touches a
/// connection, one call at a time, so the runtime's access tracking would only cost time.
/// Debug builds check that thread at each entry point (`loop.assertOnLoop()`): an epoll
/// event, a timer, an offloaded handler's answer, a close.
final class HTTPConnection {
    /// A streamed body, and its access line, written once it has ended. Sent chunked,
    /// or to an HTTP/1.0 client as plain bytes after a Content-Length counted first.
    /// A reference: the connection asks whether one is going out several times a request,
    /// and as an optional value of ~200 bytes each ask copied it (a `memcpy`).
    private final class StreamedBody {
        let stream: any HTTPBodyStream
        let chunked: Bool
        @exclusivity(unchecked) var sentBytes: Int
        let accessLine: AccessLineFields?
        /// What its request holds of the budget, given back once the body has gone.
        let holding: ConnectionStateMachine.Holding
        /// The last two pieces. A new piece starts only once less than a piece waits,
        /// so the older one has normally been sent and dropped by the output queue: its
        /// memory is written again instead of allocating (and page-faulting in) a fresh
        /// megabyte for every piece.
        @exclusivity(unchecked) var recycled: (older: WrittenBytes?, newer: WrittenBytes?)

        init(stream: any HTTPBodyStream, chunked: Bool, sentBytes: Int, accessLine: AccessLineFields?,
             holding: ConnectionStateMachine.Holding, recycled: (older: WrittenBytes?, newer: WrittenBytes?)) {
            self.stream = stream
            self.chunked = chunked
            self.sentBytes = sentBytes
            self.accessLine = accessLine
            self.holding = holding
            self.recycled = recycled
        }

        /// An empty piece for the next one: the older piece, memory and all, unless the
        /// output queue still holds it.
        func takePiece() -> WrittenBytes {
            let older = recycled.older
            recycled = (recycled.newer, nil)
            guard var older, isKnownUniquelyReferenced(&older) else { return WrittenBytes() }
            older.removeAll()
            return older
        }
    }

    /// Pipelined requests stop being parsed while this much output waits.
    static let outputHighWater = DeviceOracleHTTP.StreamedBody.outputHighWater
    /// A streamed body is pulled in pieces of this size, the next one once less
    /// than this waits for the socket: about two pieces in memory at a time.
    /// Measured on the 100k-event log's 20 MB answer: 1 MiB took 6–10 % less time
    /// than 256 KiB (fewer sends and wake-ups) and 64 KiB 15 % more; 2 MiB, more
    /// than the CPU's cache, was slower again.
    static let streamPieceBytes = 1024 * 1024

    let fd: Int32
    let generation: UInt32
    /// Strong, though a loop outlives its connections (it closes them all before it
    /// stops, and a closed connection leaves its table, so the cycle ends): a read of an
    /// unowned(unsafe) reference is a strong copy, retained and released around each use
    /// of the loop, a dozen a request (~40 instructions each).
    let loop: EpollEventLoop
    /// The server's, held here for the same reason: read through `loop.context`, it was
    /// retained and released around each use, two a request.
    private let memoryBudget: MemoryBudget
    @exclusivity(unchecked) var interest: UInt32 = 0
    @exclusivity(unchecked) var timerKind: TimerKind?
    @exclusivity(unchecked) var deadline: Int64 = 0
    /// Links of the loop's timer lists, not counted (see `TimerList`).
    @exclusivity(unchecked) var timerPrevious: TimerList.Link?
    @exclusivity(unchecked) var timerNext: TimerList.Link?

    @exclusivity(unchecked) private var machine: ConnectionStateMachine
    /// A handler ran for the current request and its answer has not gone whole yet.
    @exclusivity(unchecked) private var answering = false
    /// Input received but not processed yet (processing is suspended).
    @exclusivity(unchecked) private var pending: [UInt8] = []
    /// Answers the socket has not taken yet.
    @exclusivity(unchecked) private var output = OutputQueue()
    /// The body being streamed after the output, if any; nothing else is answered until it ends.
    @exclusivity(unchecked) private var streamedBody: StreamedBody?
    /// What a streamed request's handler writes during one call (the machine takes it).
    @exclusivity(unchecked) private var streamOutput: [UInt8] = []
    /// The socket took bytes since the machine last chose what to wait for.
    @exclusivity(unchecked) private var sendProgress = false
    /// Unsent output counted in the memory budget.
    @exclusivity(unchecked) private var countedOutputBytes = 0

    init(fd: Int32, generation: UInt32, loop: EpollEventLoop) {
        self.fd = fd
        self.generation = generation
        self.loop = loop
        memoryBudget = loop.context.memoryBudget
        machine = ConnectionStateMachine(settings: loop.connectionSettings, now: loop.now, draining: loop.draining)
    }

    /// The timer a new connection starts with (its first head's).
    var initialTimer: (kind: TimerKind, deadline: Int64)? { machine.armedTimer }

    private var hasQueuedOutput: Bool { !output.isEmpty || !loop.scratch.isEmpty }
    private var hasPendingOutput: Bool { hasQueuedOutput || streamedBody != nil }

    /// A request whose head has arrived and whose answer is not fully sent (http.md:
    /// such requests complete at shutdown).
    var hasRequestInFlight: Bool { machine.hasRequestInFlight(hasPendingOutput: hasPendingOutput) }

    /// The share of the budget an offloaded handler's request holds, for its completion
    /// to give back when the connection has closed meanwhile.
    var offloadedReservation: Int { machine.offloadedReservation }

    // MARK: Events

    func handle(events: UInt32) {
        loop.assertOnLoop()
        if events & UInt32(CSYSCALLS_EPOLLERR) != 0 {
            closeNow()
            return
        }
        if events & UInt32(CSYSCALLS_EPOLLOUT) != 0 {
            sendProgress = false
            afterProcessing()
        }
        if machine.isClosed { return }
        if events & UInt32(CSYSCALLS_EPOLLIN) != 0 {
            readable()
        } else if events & UInt32(CSYSCALLS_EPOLLHUP) != 0 {
            closeNow()
        }
    }

    private func readable() {
        let buffer = loop.readBuffer
        let count = csyscalls_recv(fd, buffer.baseAddress, buffer.count)
        if count > 0 {
            loop.metricsRecorder.bytesReceived(count)
            switch machine.bytesRead(count, now: loop.now) {
            case .discarded:
                return
            case .close:
                closeNow()
                return
            case .parse:
                process(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
                perform(machine.readEnded(now: loop.now))
            }
        } else if count == 0 {
            perform(machine.peerClosed(hasPendingOutput: hasPendingOutput))
        } else if count != -Int(EAGAIN) && count != -Int(EINTR) {
            closeNow()
        }
    }

    /// The server began to drain.
    func drainBegan() {
        loop.assertOnLoop()
        perform(machine.drainBegan(hasPendingOutput: hasPendingOutput))
    }

    func timerExpired() {
        loop.assertOnLoop()
        perform(machine.timerFired(now: loop.now))
    }

    /// An offloaded handler has answered.
    func handlerFinished(_ response: HTTPResponse) {
        loop.assertOnLoop()
        switch machine.handlerFinished(response, now: loop.now) {
        case .none: break
        case .proceed: perform(.proceed)
        case .send(let answer):
            queue(answer)
            perform(.proceed)
        }
    }

    private func perform(_ action: ConnectionStateMachine.Action) {
        switch action {
        case .none: break
        case .proceed:
            performEffects()
            callDueStreamHandler()
            afterProcessing()
        case .performEffects: performEffects()
        case .releaseMemory(let bytes): memoryBudget.adjust(by: -bytes)
        case .reserve(let bytes):
            perform(machine.budgetAnswered(granted: memoryBudget.reserve(bytes), now: loop.now))
        case .setInterest(let interest): loop.setInterest(self, Self.epollEvents(interest))
        case .close: closeNow()
        }
    }

    func closeNow() {
        loop.assertOnLoop()
        if machine.isClosed { return }
        perform(machine.closed())  // a stream cut by the close is still one answer in the access log
        loop.scratch.removeAll()  // only ever holds the current connection's answers
        // A large answer cut short (a peer that stopped reading) is given back too.
        if output.count >= OutputQueue.retainedCapacity { loop.largeWorkEnded() }
        output = OutputQueue()
        countOutput()
        if let streamed = streamedBody.take() {
            perform(machine.answerBodyQueued(streamed.holding))  // cut by the close: what it held is given back
            loop.largeWorkEnded()
        }
        pending = []
        stopAnswering()
        loop.close(self)
    }

    // MARK: Requests

    /// Parses `input`, running the handlers the machine asks for; keeps what it could not parse yet.
    private func process(_ input: UnsafeRawBufferPointer) {
        machine.lend(&loop.recycled)
        defer { machine.lend(&loop.recycled) }  // taken back
        var index = 0
        // Only performing effects changes the output: its state is read again after that alone.
        var output = outputState
        var next = machine.parse(input, index: &index, now: loop.now, output: output)
        parsing: while true {
            switch consume next {
            case .stop:
                break parsing
            case .runHandler(let routeIndex, let request):
                startAnswering()
                // Its answer goes out now, not through another round of parse.
                switch machine.handlerFinished(loop.context.router.handlers[routeIndex](request), now: loop.now) {
                case .none: break
                case .proceed:
                    performEffects()
                    output = outputState
                case .send(let answer):
                    queue(answer)
                    output = outputState
                }
                machine.recycle(request)
                next = machine.parse(input, index: &index, now: loop.now, output: output)
            case .offload(let routeIndex, let request):
                startAnswering()
                loop.offload(self, routeIndex: routeIndex, request: request)
                break parsing
            case .performEffects:
                performEffects()
                output = outputState
                next = machine.parse(input, index: &index, now: loop.now, output: output)
            case .reserve(let bytes):
                next = machine.budgetAnswered(granted: memoryBudget.reserve(bytes), input: input,
                                              index: &index, now: loop.now, output: output)
            case .route(let head):
                let choice = loop.context.choose(for: head)
                next = machine.headRouted(head, to: choice, input: input, index: &index, now: loop.now,
                                          output: output)
            case .makeStreamHandler(let streamed, let request):
                next = machine.streamHandlerMade(streamed.handler(request), input: input, index: &index, now: loop.now,
                                                 output: output)
            case .callStreamHandler(let handler, let call):
                let progress = call.perform(on: handler, input: input, output: &streamOutput)
                next = machine.streamHandlerAnswered(call, progress: progress, heldBytes: handler.heldBytes,
                                                     output: &streamOutput, input: input, index: &index, now: loop.now,
                                                     output: output)
            }
        }
        if index < input.count, machine.keepsUnparsedInput {
            pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[index...]))
        }
    }

    /// A handler call the machine decided outside `parse` (a timeout or the minimum rate
    /// cut a stream) is made now, before anything is sent.
    private func callDueStreamHandler() {
        if machine.hasDueStreamCall { process(ConnectionStateMachine.noBytes) }
    }

    // MARK: What the machine consults, and its effects

    /// What `parse` needs to know of the output: whether it is backed up, or all gone.
    private var outputState: ConnectionStateMachine.OutputState {
        .init(isBackedUp: output.count + loop.scratch.count >= Self.outputHighWater || streamedBody != nil,
              isDrained: !hasPendingOutput)
    }

    /// Performs what the machine decided, in order, until nothing is left.
    private func performEffects() {
        while let effect = machine.nextEffect() {
            switch consume effect {
            case .sendContinue:
                appendOutput { $0.append(ResponseSerializer.continueResponse) }
            case .send(let answer):
                queue(answer)
            case .sendRefusal(let response):
                appendOutput {
                    ResponseSerializer.append(response, to: &$0, date: loop.dateField, omitBody: false, connection: .close)
                }
            case .record(let line, let bytes):
                answered(line, bytes: bytes)
            case .streamStarted:
                startAnswering()
            case .sendStreamedHead(let response, let framing, let field):
                appendOutput {
                    ResponseSerializer.append(response, to: &$0, date: loop.dateField, omitBody: false, connection: field,
                                              framing: framing)
                }
            case .sendStreamedBytes(let bytes, let chunked):
                appendOutput { ResponseSerializer.appendPiece(.array(bytes), to: &$0, chunked: chunked) }
            case .sendStreamedEnd(let trailers):
                appendOutput { ResponseSerializer.appendLastChunk(trailers: trailers, to: &$0) }
            case .streamedAnswerEnded(let accessLine, let bytes):
                answered(accessLine, bytes: bytes)
            case .largeWorkEnded:
                loop.largeWorkEnded()
            case .releaseMemory(let bytes):
                memoryBudget.adjust(by: -bytes)
            case .holdMemory(let bytes):
                memoryBudget.adjust(by: bytes)
            case .logError(let message):
                loop.context.logger.log(.error, message)
            }
        }
    }

    /// Queues `answer`; once its body is queued to its end, the machine hears of it (what
    /// it gives back goes before the effects after it).
    private func queue(_ answer: borrowing ConnectionStateMachine.Answer) {
        if !queueAnswer(answer.response, omitsBody: answer.omitsBody, framing: answer.framing,
                        connection: answer.connection, accessLine: answer.accessLine, holding: answer.holding) {
            perform(machine.answerBodyQueued(answer.holding))
        }
    }

    /// Queues `response`, framed as decided. True when its body goes on streaming after
    /// the queued part (its access line is then written when the stream ends). Borrowed:
    /// an answer that goes whole is serialized from the effect, never copied.
    private func queueAnswer(_ response: borrowing HTTPResponse, omitsBody isHead: Bool,
                             framing decided: ConnectionStateMachine.AnswerFraming,
                             connection field: ResponseSerializer.ConnectionField, accessLine: AccessLineFields?,
                             holding: ConnectionStateMachine.Holding) -> Bool {
        var streamed: (stream: any HTTPBodyStream, firstPiece: WrittenBytes)?
        var framing = ResponseSerializer.BodyFraming.whole
        switch decided {
        case .whole:
            break
        case .headOfStream(let chunked):
            if chunked { framing = .chunked }
        case .stream(let chunked):
            guard let bodyStream = response.bodyStream else { break }
            let firstPiece = WrittenBytes()
            if bodyStream.next(into: firstPiece, minimum: Self.streamPieceBytes) {
                streamed = (bodyStream, firstPiece)
                framing = chunked ? .chunked : .length(response.streamLength ?? bodyStream.byteCount())
            } else {
                // The stream ended within its first piece: it goes whole, with a Content-Length.
                var whole = copy response
                whole.bodyStream = nil
                whole.body = firstPiece.bytes
                return queueAnswer(whole, omitsBody: isHead, framing: .whole, connection: field, accessLine: accessLine,
                                   holding: holding)
            }
        }
        appendOutput {
            ResponseSerializer.append(response, to: &$0, date: loop.dateField, omitBody: isHead, connection: field,
                                      framing: framing)
            if let streamed { ResponseSerializer.appendPiece(.written(streamed.firstPiece), to: &$0, chunked: framing == .chunked) }
        }
        if let streamed {
            streamedBody = StreamedBody(stream: streamed.stream, chunked: framing == .chunked,
                                        sentBytes: streamed.firstPiece.count, accessLine: accessLine, holding: holding,
                                        recycled: (nil, streamed.firstPiece))
            return true
        }
        // Whatever the request, an answer this large leaves freed megabytes to give back.
        if response.body.count >= loop.context.configuration.offloadBodyBytes { loop.largeWorkEnded() }
        answered(accessLine, bytes: isHead ? 0 : response.body.count)
        return false
    }

    /// A handler runs for the current request: it is in flight until `answered`.
    private func startAnswering() {
        guard !answering else { return }
        answering = true
        loop.metricsRecorder.inFlight(1)
    }

    /// The current request's answer has been queued whole, or its stream has ended.
    private func answered(_ line: AccessLineFields?, bytes: Int) {
        if let line { loop.recordAnswer(line, bytes: bytes) }
        stopAnswering()
    }

    private func stopAnswering() {
        guard answering else { return }
        answering = false
        loop.metricsRecorder.inFlight(-1)
    }

    /// Appends the next piece of the streamed body once little output waits; after the
    /// last one, the last chunk, and the access line with the body's whole size.
    private func continueStreamedBody() {
        guard output.count + loop.scratch.count < Self.streamPieceBytes, let streamed = streamedBody.take() else { return }
        let piece = streamed.takePiece()
        let more = streamed.stream.next(into: piece, minimum: Self.streamPieceBytes)
        streamed.sentBytes += piece.count
        streamed.recycled.newer = piece
        let chunked = streamed.chunked
        appendOutput {
            ResponseSerializer.appendPiece(.written(piece), to: &$0, chunked: chunked)
            if !more && chunked { ResponseSerializer.appendLastChunk(to: &$0) }
        }
        guard !more else {
            streamedBody = streamed
            return
        }
        perform(machine.answerBodyQueued(streamed.holding))
        loop.largeWorkEnded()
        answered(streamed.accessLine, bytes: streamed.sentBytes)
    }

    /// Answers go into the loop's scratch queue unless this connection already has
    /// unsent output, which they must queue behind.
    private func appendOutput(_ write: (inout OutputQueue) -> Void) {
        if output.isEmpty { write(&loop.scratch) } else { write(&output) }
    }

    // MARK: Output, interest and timers

    /// Keeps the budget's count of this connection's unsent output up to date.
    private func countOutput() {
        let unsent = output.count
        guard unsent != countedOutputBytes else { return }
        memoryBudget.adjust(by: unsent - countedOutputBytes)
        countedOutputBytes = unsent
    }

    /// Sends what `queue` holds as far as the socket takes it; false when the socket failed.
    private func send(_ queue: inout OutputQueue) -> Bool {
        let unsent = queue.count
        let healthy = queue.send(to: fd, progress: &sendProgress)
        loop.metricsRecorder.bytesSent(unsent - queue.count)
        return healthy
    }

    /// Sends queued output; returns false if the connection was closed.
    private func flush() -> Bool {
        if output.isEmpty {
            guard !loop.scratch.isEmpty else { return true }
            guard send(&loop.scratch) else {
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
        guard send(&output) else {
            closeNow()
            return false
        }
        if output.isEmpty {
            output = OutputQueue()
            // A whole answer of megabytes that waited for a slow peer has gone.
            if countedOutputBytes >= OutputQueue.retainedCapacity { loop.largeWorkEnded() }
        }
        return true
    }

    /// Sends what the machine queued, parses what waited behind it, then waits as the machine says.
    private func afterProcessing() {
        while true {
            if machine.isClosed { return }
            continueStreamedBody()
            if hasQueuedOutput {
                guard flush() else { return }
                if hasQueuedOutput { break }
            }
            // The socket took everything: write the streamed body's next piece.
            if streamedBody != nil { continue }
            guard machine.isReadingRequests else { break }
            if pending.isEmpty {
                // Nothing waits in the socket's order, but a paused stream's held read or
                // an event due without bytes (a Content-Length body's end) goes on now.
                guard machine.resumesWithoutInput else { break }
                process(UnsafeRawBufferPointer(start: nil, count: 0))
                continue
            }
            let buffered = pending
            pending = []
            buffered.withUnsafeBytes { process($0) }
        }
        switch machine.nextWait(hasPendingOutput: hasPendingOutput, sentSome: sendProgress, now: loop.now) {
        case .close:
            closeNow()
        case .shutdownWriteAndLinger(let deadline):
            _ = csyscalls_shutdown_write(fd)
            loop.setInterest(self, UInt32(CSYSCALLS_EPOLLIN))
            loop.arm(self, .linger, deadline: deadline)
        case .poll(let interest, let timer):
            countOutput()
            loop.setInterest(self, Self.epollEvents(interest))
            switch timer {
            case .keep: break
            case .disarm: loop.disarm(self)
            case .arm(let kind, let deadline): loop.arm(self, kind, deadline: deadline)
            }
            sendProgress = false
        case .unchanged:
            countOutput()
            sendProgress = false
        }
    }

    private static func epollEvents(_ interest: ConnectionStateMachine.Interest) -> UInt32 {
        switch interest {
        case .none: 0
        case .read: UInt32(CSYSCALLS_EPOLLIN)
        case .write: UInt32(CSYSCALLS_EPOLLOUT)
        }
    }
}
