import CSyscalls

/// Everything the server needs to know to run; defaults are http.md's.
public struct ServerConfiguration: Sendable {
    public var host = "0.0.0.0"
    /// 0 binds an ephemeral port; `HTTPServer.start()` returns the bound one.
    public var port = 8080
    public var maxBodyBytes = 8 * 1024 * 1024
    public var maxConnections = 10_000
    /// Seconds (fractional allowed) to receive a request head from its first byte,
    /// or from accept on a new connection.
    public var headerTimeout = 10.0
    /// Seconds without progress while receiving a body.
    public var bodyTimeout = 30.0
    /// Seconds without progress while sending a response.
    public var sendTimeout = 30.0
    /// Seconds an idle keep-alive connection is kept.
    public var idleTimeout = 60.0
    /// Seconds in-flight requests get to finish at shutdown.
    public var shutdownGrace = 10.0
    public var headLimits = HeadLimits()
    /// Event loops, one thread each: by default one per CPU this process may run on.
    public var eventLoops = Int(csyscalls_available_cpus())
    /// Handlers of bodies larger than this run on a global Dispatch queue, so one large
    /// request does not stall the other connections of its loop.
    public var offloadBodyBytes = 64 * 1024

    public init() {}
}
