import CSyscalls
import Dispatch
import Glibc

/// The HTTP/1.1 server: one listening socket and one `EpollEventLoop` thread per
/// configured loop, each accepting from that socket.
package final class HTTPServer: Sendable {
    package struct Address: Sendable, Equatable {
        package let host: String
        package let port: Int
    }

    private enum State {
        case idle
        case running([EpollEventLoop], WorkerPool, listenFD: Int32)
        case stopped
    }

    package let configuration: ServerConfiguration
    private let context: ServerContext
    private let state = Locked<State>(.idle)

    package convenience init(configuration: ServerConfiguration, routes: [Route], logger: Logger) {
        self.init(configuration: configuration, routes: routes, logger: logger, heapTrimming: HeapTrimming())
    }

    /// With a trim of the caller's: tests count when memory would be given back.
    init(configuration: ServerConfiguration, routes: [Route], logger: Logger, heapTrimming: HeapTrimming) {
        self.configuration = configuration
        context = ServerContext(configuration: configuration, routes: routes, logger: logger, heapTrimming: heapTrimming)
    }

    /// The process's memory policy for serving. Request bodies, parses and answers of
    /// megabytes live for one request: glibc keeps them in one heap for the next one,
    /// and the server's `HeapTrimmer` gives them back once it goes quiet.
    ///
    /// Call it first, before anything starts a thread (a logger, a Dispatch source):
    /// glibc binds a thread to an arena at its first allocation, and a thread bound
    /// before would keep a second heap, as large as the first, of its own.
    package static func prepareProcessMemory() {
        csyscalls_keep_freed_memory(HeapTrimmer.largestKeptBlock)
    }

    /// Bytes of the memory budget that requests in flight hold now (`MemoryBudget`).
    package var memoryBudgetInUse: Int { context.memoryBudget.usedBytes }

    /// Binds and starts the loops; returns the bound address (the real port for port 0).
    package func start() throws(HTTPServerError) -> Address {
        csyscalls_ignore_sigpipe()
        // Every connection is a descriptor: leave room for listeners, stdio and the eventfds.
        let wantedFiles = configuration.maxConnections + 64 + 4 * configuration.eventLoops
        let openFiles = csyscalls_raise_open_files(wantedFiles)
        if openFiles >= 0 && openFiles < wantedFiles {
            context.logger.log(.warn, "the open-file limit is below what max-connections needs",
                               [("limit", .int(openFiles)), ("needed", .int(wantedFiles))])
        }
        var bound: Int32 = 0
        let listenFD = csyscalls_listen(configuration.host, Int32(configuration.port), 4096, &bound)
        if listenFD <= -1000 {
            throw HTTPServerError(message: "cannot resolve host \(configuration.host)", code: 0)
        } else if listenFD < 0 {
            throw HTTPServerError(message: "cannot listen on \(configuration.host):\(configuration.port)", code: -listenFD)
        }
        var loops: [EpollEventLoop] = []
        let workers = WorkerPool(threads: configuration.workerThreads)
        do {
            for _ in 0..<max(1, configuration.eventLoops) {
                loops.append(try EpollEventLoop(context: context, listenFD: listenFD, index: loops.count, workers: workers))
            }
        } catch {
            workers.stop()
            Glibc.close(listenFD)
            throw error
        }
        for loop in loops { startThread { loop.run() } }
        state.withLock { $0 = .running(loops, workers, listenFD: listenFD) }
        return Address(host: configuration.host, port: Int(bound))
    }

    /// Graceful shutdown (http.md): the listeners close at once, idle connections are
    /// closed, requests whose head has arrived complete within the grace period.
    /// Returns true when none had to be cut. Blocks until every loop has stopped.
    @discardableResult
    package func shutdown() -> Bool {
        let (loops, workers, listenFD): ([EpollEventLoop], WorkerPool?, Int32) = state.withLock { state in
            guard case .running(let loops, let workers, let listenFD) = state else { return ([], nil, -1) }
            state = .stopped
            return (loops, workers, listenFD)
        }
        // Handlers still queued or running finish; their answers find their loop stopped.
        defer { workers?.stop() }
        guard !loops.isEmpty else { return true }
        for loop in loops { loop.execute { loop.beginDrain() } }
        // Closed only once no loop can be inside accept4 on it (the fd number could be reused).
        for loop in loops { loop.stoppedAccepting.wait() }
        Glibc.close(listenFD)
        let deadline = DispatchTime.now() + configuration.shutdownGrace
        var cut = false
        for loop in loops where loop.finished.wait(timeout: deadline) == .timedOut {
            loop.execute { loop.forceClose() }
            loop.finished.wait()
        }
        for loop in loops {
            // The loop thread has finished: reading its flag is ordered by the semaphore.
            if loop.cutRequests { cut = true }
        }
        return !cut
    }
}

/// Why the server could not start.
package struct HTTPServerError: Error, Sendable, CustomStringConvertible {
    package let message: String
    package let code: Int32

    package var description: String {
        code == 0 ? message : "\(message): \(String(cString: strerror(code)))"
    }
}

/// Starts a detached pthread running `body` (the loops need their own threads, not
/// Dispatch's pool, so a long-running loop never starves Dispatch work).
func startThread(_ body: @escaping @Sendable () -> Void) {
    final class Box {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    let box = Unmanaged.passRetained(Box(body)).toOpaque()
    var thread = pthread_t()
    let result = pthread_create(&thread, nil, { raw in
        guard let raw else { return nil }
        let box = Unmanaged<Box>.fromOpaque(raw).takeRetainedValue()
        box.body()
        return nil
    }, box)
    if result == 0 {
        pthread_detach(thread)
    } else {
        Unmanaged<Box>.fromOpaque(box).release()
    }
}
