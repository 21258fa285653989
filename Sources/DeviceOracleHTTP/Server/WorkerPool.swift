import Dispatch

/// A fixed number of threads (`--worker-threads`) that run offloaded handlers, first
/// come first served. A handler of a large body takes seconds of CPU: on a loop it
/// would stall that loop's other connections, and on Dispatch's global queue nothing
/// bounds how many threads the runtime adds while handlers block or spin.
///
/// When every worker is busy, work waits in the queue. The queue is bounded by the
/// memory budget, not by a limit of its own: only a body over `offloadBodyBytes` (64 KiB)
/// is offloaded, and its share of the budget stays taken until its handler has run, even
/// when its connection closed meanwhile (`ConnectionStateMachine.closed`). So at most
/// `maxMemoryBytes / offloadBodyBytes` items wait (8,192 at the default 512 MiB), and no
/// more than one per open connection (its machine parses nothing more until the answer).
final class WorkerPool: Sendable {
    typealias Work = @Sendable () -> Void

    private struct Queue {
        var items: [Work?] = []
        /// The next item to run: items before it have been taken (compacted when empty).
        var head = 0
        var stopping = false
    }

    let threads: Int
    private let queue = Locked(Queue())
    /// One signal per item queued, and one per thread at `stop()`.
    private let available = DispatchSemaphore(value: 0)

    init(threads: Int) {
        self.threads = max(1, threads)
        for _ in 0..<self.threads { startThread { [self] in work() } }
    }

    /// Queues `work`; it runs on one of the pool's threads as soon as one is free.
    func submit(_ work: @escaping Work) {
        queue.withLock { $0.items.append(work) }
        available.signal()
    }

    /// Items waiting for a free thread (not those running).
    var waiting: Int { queue.withLock { $0.items.count - $0.head } }

    /// Lets the threads end once the queue is empty; queued work still runs.
    func stop() {
        queue.withLock { $0.stopping = true }
        for _ in 0..<threads { available.signal() }
    }

    private func work() {
        while true {
            available.wait()
            let next: Work?? = queue.withLock { queue in
                guard queue.head < queue.items.count else { return queue.stopping ? .some(nil) : .none }
                let item = queue.items[queue.head]
                queue.items[queue.head] = nil
                queue.head += 1
                if queue.head == queue.items.count {
                    queue.items.removeAll(keepingCapacity: true)
                    queue.head = 0
                }
                return .some(item)
            }
            switch next {
            case .some(.some(let item)): item()
            case .some(.none): return  // stopping, and nothing is left
            case .none: continue  // its item was taken by a thread woken by a stop signal
            }
        }
    }
}
