import CSyscalls

/// Everything the server needs to know to run; defaults are http.md's.
package struct ServerConfiguration: Sendable {
    package var host = "0.0.0.0"
    /// 0 binds an ephemeral port; `HTTPServer.start()` returns the bound one.
    package var port = 8080
    package var maxBodyBytes = 8 * 1024 * 1024
    /// The limit of a body handled as it arrives (`StreamedBody`), instead of `maxBodyBytes`.
    package var maxStreamBytes = 64 * 1024 * 1024 * 1024
    package var maxConnections = 10_000
    /// Seconds (fractional allowed) to receive a request head from its first byte,
    /// or from accept on a new connection.
    package var headerTimeout = 10.0
    /// Seconds without progress while receiving a body.
    package var bodyTimeout = 30.0
    /// Bytes per second a request (head and body, from its first byte) must average
    /// once `minReceiveRateGrace` has passed; 0 turns the rule off. A trickle of a byte
    /// every few seconds never times out between bytes, so only a rate bounds it.
    package var minReceiveRate = 1024.0
    /// Seconds a request may take before `minReceiveRate` applies.
    package var minReceiveRateGrace = 5.0
    /// Bytes that request bodies, the work done on them and their answers in flight may
    /// hold at once (see `MemoryBudget` for how they are counted).
    package var maxMemoryBytes = MemoryBudget.defaultLimit.bytes
    /// Seconds a request whose body does not fit the budget waits, unread, for room
    /// before it is answered 503.
    package var memoryWait = 10.0
    /// What a request is counted at per byte of its body, from its head until its answer
    /// has gone: the body itself, and whatever its handler builds from it while the answer
    /// is sent. The server's user knows its handlers; the body alone is the floor.
    package var memoryPerBodyByte = 1
    /// Seconds without progress while sending a response.
    package var sendTimeout = 30.0
    /// Seconds an idle keep-alive connection is kept.
    package var idleTimeout = 60.0
    /// Seconds in-flight requests get to finish at shutdown.
    package var shutdownGrace = 10.0
    package var headLimits = HeadLimits()
    /// Event loops, one thread each: by default one per CPU this process may run on.
    package var eventLoops = Int(csyscalls_available_cpus())
    /// Handlers of bodies larger than this run on the worker pool, so one large
    /// request does not stall the other connections of its loop.
    package var offloadBodyBytes = 64 * 1024
    /// Threads of the worker pool (`WorkerPool`): by default one per CPU this process may
    /// run on. Offloaded work beyond them waits in its queue, which the memory budget
    /// bounds (`WorkerPool`).
    package var workerThreads = Int(csyscalls_available_cpus())
    /// Counts requests for `GET /metrics` (and serves that route).
    package var metrics = true
    /// Answers counted by a log field on `/metrics` besides the server's own families.
    package var answerCounters: [ServerMetrics.AnswerCounter] = []

    package init() {}
}
