import CSyscalls
import Dispatch
import Glibc
import Synchronization

/// The HTTP/1.1 server: one `EpollEventLoop` thread per configured loop, each with its
/// own SO_REUSEPORT listener on the same port.
public final class HTTPServer: Sendable {
    public struct Address: Sendable, Equatable {
        public let host: String
        public let port: Int
    }

    private enum State {
        case idle
        case running([EpollEventLoop], Address)
        case stopped
    }

    public let configuration: ServerConfiguration
    private let context: ServerContext
    private let state = Mutex<State>(.idle)

    public init(configuration: ServerConfiguration, routes: [Route], logger: Logger) {
        self.configuration = configuration
        context = ServerContext(configuration: configuration, router: Router(routes), logger: logger)
    }

    /// Binds and starts the loops; returns the bound address (the real port for port 0).
    public func start() throws(HTTPServerError) -> Address {
        csyscalls_ignore_sigpipe()
        // Every connection is a descriptor: leave room for listeners, stdio and the eventfds.
        let wantedFiles = configuration.maxConnections + 64 + 4 * configuration.eventLoops
        let openFiles = csyscalls_raise_open_files(wantedFiles)
        if openFiles >= 0 && openFiles < wantedFiles {
            context.logger.log(.warn, "the open-file limit is below what max-connections needs",
                               [("limit", .int(openFiles)), ("needed", .int(wantedFiles))])
        }
        var listeners: [Int32] = []
        var port = configuration.port
        for _ in 0..<max(1, configuration.eventLoops) {
            var bound: Int32 = 0
            let fd = csyscalls_listen(configuration.host, Int32(port), 1, 4096, &bound)
            if fd < 0 {
                listeners.forEach { _ = Glibc.close($0) }
                if fd <= -1000 {
                    throw HTTPServerError(message: "cannot resolve host \(configuration.host)", code: 0)
                }
                throw HTTPServerError(message: "cannot listen on \(configuration.host):\(port)", code: -fd)
            }
            listeners.append(fd)
            port = Int(bound)  // later loops join the port the first one got (also for port 0)
        }
        var loops: [EpollEventLoop] = []
        do {
            for fd in listeners { loops.append(try EpollEventLoop(context: context, listenFD: fd)) }
        } catch {
            listeners.forEach { _ = Glibc.close($0) }
            throw error
        }
        let address = Address(host: configuration.host, port: port)
        for loop in loops { startThread { loop.run() } }
        state.withLock { $0 = .running(loops, address) }
        return address
    }

    /// Graceful shutdown (http.md): the listeners close at once, idle connections are
    /// closed, requests whose head has arrived complete within the grace period.
    /// Returns true when none had to be cut. Blocks until every loop has stopped.
    @discardableResult
    public func shutdown() -> Bool {
        let loops: [EpollEventLoop] = state.withLock { state in
            guard case .running(let loops, _) = state else { return [] }
            state = .stopped
            return loops
        }
        for loop in loops { loop.execute { loop.beginDrain() } }
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
