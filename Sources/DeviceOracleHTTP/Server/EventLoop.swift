import CSyscalls
import DeviceOracleJSON
import Dispatch
import Glibc
import Synchronization

/// What the rest of the server needs from an event loop: run work on its thread.
/// Readiness (epoll here) and timers stay inside the implementation, so another one
/// (Dispatch sources) could replace it without touching the HTTP state machines.
protocol EventLoop: AnyObject, Sendable {
    /// Runs `task` on the loop's thread, soon; callable from any thread.
    func execute(_ task: @escaping @Sendable () -> Void)
}

/// State every loop of one server shares.
final class ServerContext: Sendable {
    let configuration: ServerConfiguration
    let router: Router
    let logger: Logger
    let openConnections = OpenConnections()
    let requestCounter = Atomic<UInt64>(0)
    let heapTrimming: HeapTrimming
    let memoryBudget: MemoryBudget
    let metrics: ServerMetrics
    /// The rules every connection's state machine follows.
    let connectionSettings: ConnectionStateMachine.Settings

    /// `routes` are the user's; `GET /metrics` is added when `configuration.metrics` says so.
    init(configuration: ServerConfiguration, routes: [Route], logger: Logger, heapTrimming: HeapTrimming = HeapTrimming()) {
        self.configuration = configuration
        self.heapTrimming = heapTrimming
        let memoryBudget = MemoryBudget(limit: configuration.maxMemoryBytes)
        let openConnections = self.openConnections
        // The metrics name each route by its path, so they are made from the final list.
        let router: Router, metrics: ServerMetrics
        if configuration.metrics {
            let paths = Router(routes).routes.map(\.path) + [ServerMetrics.path]
            let made = ServerMetrics(routes: paths, loops: configuration.eventLoops, answerCounters: configuration.answerCounters,
                                     budget: memoryBudget, openConnections: { openConnections.count.load(ordering: .relaxed) })
            router = Router(routes + [made.route])
            metrics = made
        } else {
            router = Router(routes)
            metrics = ServerMetrics(routes: [], loops: 1, answerCounters: [], budget: memoryBudget, openConnections: { 0 })
        }
        connectionSettings = ConnectionStateMachine.Settings(
            configuration: configuration, router: router,
            answerRecording: logger.logsAccess ? .lines : configuration.metrics ? .counts : .nothing)
        self.memoryBudget = memoryBudget
        self.metrics = metrics
        self.router = router
        self.logger = logger
    }

    func nextRequestID() -> UInt64 {
        requestCounter.add(1, ordering: .relaxed).newValue
    }
}

/// The connections open across all loops: `--max-connections` is checked against it.
final class OpenConnections: Sendable {
    let count = Atomic<Int>(0)
}

/// One epoll instance on its own thread, accepting from the server's listening socket
/// and owning the connections it accepted. Level-triggered: a request costs about an
/// epoll_wait, a read and a write.
///
/// Listening: one socket, in every loop's epoll with EPOLLEXCLUSIVE, so a new connection
/// wakes one loop (a loop that loses a race gets EAGAIN). Not a SO_REUSEPORT socket per
/// loop: that lets any process of the same user bind the same port and silently take a
/// share of the connections (two servers on one port would both "start"; two test
/// servers on port 0 can even be given the same port).
final class EpollEventLoop: EventLoop, @unchecked Sendable {
    // @unchecked: every member but `tasks`, `wakeFD` and `workers` is touched only on the
    // loop's own thread; `tasks` is behind a lock, the eventfd is safe to write from
    // anywhere and the pool is Sendable. For the same reason every stored `var` is
    // `@exclusivity(unchecked)`: one thread, one call at a time, so the runtime's access
    // tracking would only cost time. Debug builds check the one thread: every entry point
    // from a connection or an epoll event calls `assertOnLoop()` (as NIOLoopBound does).

    static let readBufferSize = 64 * 1024
    private static let listenerToken: UInt64 = UInt64.max
    private static let wakeToken: UInt64 = UInt64.max - 1

    let context: ServerContext
    private let epollFD: Int32
    private let wakeFD: Int32
    private let listenFD: Int32
    @exclusivity(unchecked) private var listening = true
    /// Signalled once this loop has stopped watching the listener (the server then closes it).
    let stoppedAccepting = DispatchSemaphore(value: 0)
    private let tasks = Locked<[@Sendable () -> Void]>([])
    let finished = DispatchSemaphore(value: 0)
    /// The thread running `run()` (`pthread_self()`), 0 before it starts; read by
    /// `assertOnLoop()` only, so in debug builds only.
    private let thread = Atomic<UInt>(0)
    /// Where offloaded handlers run; shared by the server's loops.
    let workers: WorkerPool
    /// When this loop gives free heap back (one of its timers, beside the connections').
    @exclusivity(unchecked) private var heapTrimmer: HeapTrimmer

    /// The bytes of the last read; borrowed by connections while they parse.
    let readBuffer: UnsafeMutableRawBufferPointer
    @exclusivity(unchecked) private var connections: [HTTPConnection?] = []
    @exclusivity(unchecked) private var liveCount = 0
    @exclusivity(unchecked) private var nextGeneration: UInt32 = 1
    /// One list per `TimerKind`, by its raw value. Memory of the loop's own, not an array:
    /// re-arming a connection's timer after each answer changed the array in place, a
    /// uniqueness check each time (the loop alone ever holds it).
    private let timers: UnsafeMutableBufferPointer<TimerList>
    @exclusivity(unchecked) private var acceptPausedUntil: Int64?
    /// Access records are built as far as the access log or `/metrics` reads them;
    /// access lines are written only when the logger wants them (`.lines`).
    let answerRecording: AnswerRecording
    /// This loop's counts since it last published them (`ServerMetrics`), and its shard.
    @exclusivity(unchecked) var metricsRecorder: ServerMetrics.Recorder
    @exclusivity(unchecked) private var metricsPublishedAt: Int64 = 0
    private let index: Int

    /// The connections' rules, from `context`.
    var connectionSettings: ConnectionStateMachine.Settings { context.connectionSettings }
    /// Monotonic nanoseconds, read once per loop iteration.
    @exclusivity(unchecked) private(set) var now: Int64 = csyscalls_monotonic_ns()
    @exclusivity(unchecked) private var wallSecond = -1
    /// `Date: ...\r\n`, rewritten once a second in `dateStorage`. Not an array: one in a
    /// `var` of the loop was retained and released around each answer's serializing.
    @exclusivity(unchecked) private(set) var dateField = UnsafeRawBufferPointer(start: nil, count: 0)
    private let dateStorage: UnsafeMutableRawBufferPointer
    @exclusivity(unchecked) private var timestampPrefix: [UInt8] = []
    @exclusivity(unchecked) private var wallMilliseconds = 0
    /// Access lines written since the last hand-over to the logger.
    @exclusivity(unchecked) private var accessLog = JSONWriter(capacity: 64 * 1024)
    @exclusivity(unchecked) private var accessLogLines = 0
    /// The lines handed to the logger, in an array kept for the next batch.
    @exclusivity(unchecked) private var accessBatch: [UInt8] = []
    /// Answers of the connection being processed, built here and sent in one write;
    /// a connection keeps only what the socket did not take.
    @exclusivity(unchecked) var scratch = OutputQueue()
    /// An answered request's head and body memory, lent to the connection that parses
    /// (`RecycledBuffers`): one set per loop, not per connection.
    @exclusivity(unchecked) var recycled = RecycledBuffers()

    @exclusivity(unchecked) private(set) var draining = false
    /// True when draining had to close connections with a request still in flight.
    @exclusivity(unchecked) private(set) var cutRequests = false
    @exclusivity(unchecked) private var running = true

    init(context: ServerContext, listenFD: Int32, index: Int, workers: WorkerPool) throws(HTTPServerError) {
        self.context = context
        self.listenFD = listenFD
        self.index = index
        self.workers = workers
        heapTrimmer = HeapTrimmer(quietPeriod: context.heapTrimming.quietPeriod, now: csyscalls_monotonic_ns(),
                                  trimsAtStart: index == 0)
        answerRecording = context.connectionSettings.answerRecording
        metricsRecorder = context.metrics.recorder()
        epollFD = csyscalls_epoll_create()
        wakeFD = csyscalls_eventfd()
        readBuffer = .allocate(byteCount: Self.readBufferSize, alignment: 16)
        timers = .allocate(capacity: TimerKind.allCases.count)
        dateStorage = .allocate(byteCount: Self.dateFieldCapacity, alignment: 1)
        timers.initialize(repeating: TimerList())
        scratch.reserveCapacity(Self.readBufferSize)
        guard epollFD >= 0, wakeFD >= 0 else {
            throw HTTPServerError(message: "cannot create an epoll instance or eventfd", code: errno)
        }
        _ = csyscalls_epoll_ctl(epollFD, 0, wakeFD, UInt32(CSYSCALLS_EPOLLIN), Self.wakeToken)
        watchListener()
        refreshClock()
    }

    deinit {
        readBuffer.deallocate()
        timers.deallocate()  // TimerList holds no references
        dateStorage.deallocate()
    }

    func execute(_ task: @escaping @Sendable () -> Void) {
        tasks.withLock { $0.append(task) }
        csyscalls_eventfd_signal(wakeFD)
    }

    /// In debug builds, stops the program when called off the loop's thread (once the
    /// loop runs; before, its creator owns it). Release builds compile it away.
    @inline(__always)
    func assertOnLoop(file: StaticString = #fileID, line: UInt = #line) {
        assert({
            let owner = thread.load(ordering: .relaxed)
            return owner == 0 || owner == UInt(pthread_self())
        }(), "on-loop state touched off its loop's thread", file: file, line: line)
    }

    /// The loop's thread body: returns after shutdown, once every connection is closed.
    func run() {
        thread.store(UInt(pthread_self()), ordering: .relaxed)
        var events = [csyscalls_event](repeating: csyscalls_event(), count: 256)
        while running {
            let timeout = nextTimeoutMilliseconds()
            let count = events.withUnsafeMutableBufferPointer {
                csyscalls_epoll_wait(epollFD, $0.baseAddress, Int32($0.count), timeout)
            }
            refreshClock()
            if count > 0 {
                for i in 0..<Int(count) {
                    handle(events[i])
                }
            }
            expireTimers()
            flushAccessLog()
            publishMetrics()
        }
        Glibc.close(epollFD)
        Glibc.close(wakeFD)
        finished.signal()
    }

    private func handle(_ event: csyscalls_event) {
        assertOnLoop()
        switch event.data {
        case Self.listenerToken:
            acceptConnections()
        case Self.wakeToken:
            csyscalls_eventfd_drain(wakeFD)
            let pending = tasks.withLock { tasks -> [@Sendable () -> Void] in
                let taken = tasks
                tasks.removeAll()
                return taken
            }
            for task in pending { task() }
        default:
            let fd = Int(event.data & 0xFFFF_FFFF)
            let generation = UInt32(event.data >> 32)
            // A stale event for a closed fd (or one reused since) is dropped.
            guard fd < connections.count, let connection = connections[fd], connection.generation == generation else { return }
            connection.handle(events: event.events)
        }
    }

    // MARK: Accepting

    private func acceptConnections() {
        let configuration = context.configuration
        for _ in 0..<64 {
            let fd = csyscalls_accept(listenFD)
            if fd < 0 {
                let error = -fd
                if error == EMFILE || error == ENFILE || error == ENOBUFS || error == ENOMEM {
                    // Level-triggered: without a pause the loop would spin on the listener.
                    context.logger.log(.error, "accept failed; pausing accepts for 100 ms", [("errno", .int(Int(error)))])
                    _ = csyscalls_epoll_ctl(epollFD, 2, listenFD, 0, 0)  // EPOLLEXCLUSIVE cannot be modified
                    acceptPausedUntil = now + 100_000_000
                }
                return
            }
            let open = context.openConnections.count.add(1, ordering: .relaxed).newValue
            if open > configuration.maxConnections {
                refuseOverloaded(fd)
                continue
            }
            register(fd)
        }
    }

    /// `503` at once, before reading anything, then close (http.md limits table).
    private func refuseOverloaded(_ fd: Int32) {
        var response = ProblemDetails(status: 503, detail: "the server has \(context.configuration.maxConnections) open connections; retry later").response
        response.headers.append(("Retry-After", "1"))
        var answer = OutputQueue()
        ResponseSerializer.append(response, to: &answer, date: dateField, omitBody: false, connection: .close)
        var progress = false
        let unsent = answer.count
        _ = answer.send(to: fd, progress: &progress)
        metricsRecorder.bytesSent(unsent - answer.count)
        _ = csyscalls_shutdown_write(fd)
        Glibc.close(fd)
        context.openConnections.count.subtract(1, ordering: .relaxed)
        if answerRecording != .nothing {
            recordAnswer(AccessLineFields(status: 503, startedAt: now, overload: .connections), bytes: response.body.count)
        }
    }

    private func register(_ fd: Int32) {
        let index = Int(fd)
        if index >= connections.count {
            connections.append(contentsOf: repeatElement(nil, count: max(index + 1 - connections.count, connections.count / 2 + 16)))
        }
        nextGeneration &+= 1
        let connection = HTTPConnection(fd: fd, generation: nextGeneration, loop: self)
        connections[index] = connection
        liveCount += 1
        let token = UInt64(nextGeneration) << 32 | UInt64(UInt32(bitPattern: fd))
        _ = csyscalls_epoll_ctl(epollFD, 0, fd, UInt32(CSYSCALLS_EPOLLIN), token)
        connection.interest = UInt32(CSYSCALLS_EPOLLIN)
        if let (kind, deadline) = connection.initialTimer { arm(connection, kind, deadline: deadline) }
    }

    // MARK: Services for connections

    func setInterest(_ connection: HTTPConnection, _ interest: UInt32) {
        assertOnLoop()
        guard connection.interest != interest else { return }
        connection.interest = interest
        let token = UInt64(connection.generation) << 32 | UInt64(UInt32(bitPattern: connection.fd))
        _ = csyscalls_epoll_ctl(epollFD, 1, connection.fd, interest, token)
    }

    func close(_ connection: HTTPConnection) {
        assertOnLoop()
        disarm(connection)
        let index = Int(connection.fd)
        if index < connections.count, connections[index] === connection {
            connections[index] = nil
            liveCount -= 1
        }
        _ = csyscalls_epoll_ctl(epollFD, 2, connection.fd, 0, 0)
        Glibc.close(connection.fd)
        context.openConnections.count.subtract(1, ordering: .relaxed)
        if draining && liveCount == 0 { running = false }
    }

    /// Each kind has one fixed duration, so `deadline` (now + that duration) is never
    /// earlier than those already in the kind's list.
    func arm(_ connection: HTTPConnection, _ kind: TimerKind, deadline: Int64) {
        assertOnLoop()
        disarm(connection)
        connection.timerKind = kind
        connection.deadline = deadline
        timers[kind.rawValue].append(connection)
    }

    func disarm(_ connection: HTTPConnection) {
        assertOnLoop()
        guard let kind = connection.timerKind else { return }
        timers[kind.rawValue].remove(connection)
        connection.timerKind = nil
    }

    /// Runs a handler on the worker pool; its response comes back on this loop.
    func offload(_ connection: HTTPConnection, routeIndex: Int, request: HTTPRequest) {
        assertOnLoop()
        let fd = connection.fd, generation = connection.generation, reservation = connection.offloadedReservation
        let handler = context.router.handlers[routeIndex]
        workers.submit {
            var answer = handler(request)
            if request.version == .http1_0, let stream = answer.bodyStream { answer.streamLength = stream.byteCount() }
            let response = answer
            self.execute {
                self.largeWorkEnded()
                let index = Int(fd)
                guard index < self.connections.count, let connection = self.connections[index],
                      connection.generation == generation else {
                    self.context.memoryBudget.adjust(by: -reservation)  // closed meanwhile
                    return
                }
                connection.handlerFinished(response)
            }
        }
    }

    /// Counts an answer for `/metrics` and writes its access line, as configured. Callers
    /// check `answerRecording` first, so no line's `String`s are made for nothing.
    func recordAnswer(_ line: AccessLineFields, bytes: Int) {
        assertOnLoop()
        let elapsed = max(0, csyscalls_monotonic_ns() - line.startedAt)
        if context.configuration.metrics {
            metricsRecorder.answered(route: line.routeIndex, status: line.status, nanoseconds: elapsed,
                                     logFields: line.fields, overload: line.overload)
        }
        guard answerRecording == .lines else { return }
        let id = context.nextRequestID()
        AccessLine.append(line, bytes: bytes, elapsedNanoseconds: elapsed, id: id,
                          timestampPrefix: timestampPrefix, milliseconds: wallMilliseconds % 1000, to: &accessLog)
        accessLogLines += 1
    }

    /// Work that used large blocks has ended on this loop: its heap timer restarts.
    func largeWorkEnded() {
        assertOnLoop()
        heapTrimmer.largeWorkEnded(now: now)
    }

    // MARK: Time

    /// A Date field is 37 bytes (IMF-fixdate is fixed-length until the year 10000).
    private static let dateFieldCapacity = 64

    private func refreshClock() {
        now = csyscalls_monotonic_ns()
        wallMilliseconds = Int(csyscalls_wall_ms())
        let second = wallMilliseconds / 1000
        if second != wallSecond {
            wallSecond = second
            let field = Array("Date: ".utf8) + Timestamps.imfFixdate(unixSeconds: second) + [0x0D, 0x0A]
            let count = min(field.count, Self.dateFieldCapacity)
            UnsafeMutableRawBufferPointer(rebasing: dateStorage[0..<count]).copyBytes(from: field[0..<count])
            dateField = UnsafeRawBufferPointer(rebasing: dateStorage[0..<count])
            let stamp = Timestamps.rfc3339(unixMilliseconds: second * 1000)
            timestampPrefix = Array(stamp[0..<20])  // through the "." before milliseconds
        }
    }

    private func nextTimeoutMilliseconds() -> Int32 {
        var earliest: Int64?
        for list in timers {
            if let first = list.first { earliest = min(earliest ?? first.deadline, first.deadline) }
        }
        if let acceptPausedUntil { earliest = min(earliest ?? acceptPausedUntil, acceptPausedUntil) }
        if let trimAt = heapTrimmer.deadline { earliest = min(earliest ?? trimAt, trimAt) }
        if metricsRecorder.isDirty {
            let due = metricsPublishedAt + Self.metricsInterval
            earliest = min(earliest ?? due, due)
        }
        guard let earliest else { return -1 }
        let remaining = earliest - csyscalls_monotonic_ns()
        if remaining <= 0 { return 0 }
        // Round up so a timer never fires a little early and spins.
        return Int32(min((remaining + 999_999) / 1_000_000, 60_000))
    }

    /// Counts reach `/metrics` at most this long after they happened: publishing adds
    /// every counter of the loop into its shard, so once per iteration cost more than
    /// the counting (a few µs against a request's ten).
    static let metricsInterval: Int64 = 100_000_000

    /// Publishes the loop's counts when they are due (or the loop is stopping).
    private func publishMetrics() {
        guard metricsRecorder.isDirty, now - metricsPublishedAt >= Self.metricsInterval || !running else { return }
        context.metrics.publish(&metricsRecorder, loop: index)
        metricsPublishedAt = now
    }

    private func expireTimers() {
        for kind in TimerKind.allCases {
            while let connection = timers[kind.rawValue].first, connection.deadline <= now {
                disarm(connection)
                connection.timerExpired()
            }
        }
        // The trim itself runs on a worker: malloc_trim of tens of MiB takes
        // milliseconds this loop's connections would wait.
        if heapTrimmer.expire(now: now) { workers.submit(context.heapTrimming.trim) }
        if let pausedUntil = acceptPausedUntil, pausedUntil <= now {
            acceptPausedUntil = nil
            if listening { watchListener() }
        }
    }

    private func watchListener() {
        _ = csyscalls_epoll_ctl(epollFD, 0, listenFD, UInt32(CSYSCALLS_EPOLLIN | CSYSCALLS_EPOLLEXCLUSIVE), Self.listenerToken)
    }

    private func flushAccessLog() {
        guard accessLog.byteCount > 0 else { return }
        accessBatch.removeAll(keepingCapacity: true)
        accessLog.move(into: &accessBatch)
        context.logger.enqueue(accessBatch, lineCount: accessLogLines)
        accessLogLines = 0
    }

    // MARK: Shutdown

    /// Stops accepting and closes idle connections; requests in flight go on.
    func beginDrain() {
        assertOnLoop()
        guard !draining else { return }
        draining = true
        listening = false
        acceptPausedUntil = nil
        _ = csyscalls_epoll_ctl(epollFD, 2, listenFD, 0, 0)
        stoppedAccepting.signal()
        for case let connection? in connections {
            connection.drainBegan()  // an idle one closes
        }
        if liveCount == 0 { running = false }
    }

    /// The grace period is over: close everything, noting cut requests.
    func forceClose() {
        assertOnLoop()
        for case let connection? in connections {
            if connection.hasRequestInFlight { cutRequests = true }
            connection.closeNow()
        }
        running = false
    }
}
