/// The timeouts a connection can be waiting on; each has one fixed duration, so
/// deadlines in one list are in arming order and the earliest is always at the head.
enum TimerKind: Int, CaseIterable {
    case header, body, send, idle, linger
    /// The next try of a body waiting for the memory budget.
    case memoryRetry
}

/// An intrusive FIFO of connections ordered by deadline: arming, re-arming and
/// disarming are O(1), and expiry only looks at the head — no per-connection timers,
/// no scan of idle connections.
///
/// The links are not counted references: the loop's connection table owns the
/// connections, and one leaves its list (disarm) before the table lets it go, so
/// re-arming after every answer moves a few pointers and retains nothing.
/// (`Unmanaged`, not unowned(unsafe): Swift 6.3 at -Onone never ends a loop over an
/// array of structs holding an unowned(unsafe) optional, and loads of one are retained.)
struct TimerList {
    typealias Link = Unmanaged<HTTPConnection>

    private var head: Link?
    private var tail: Link?

    var first: HTTPConnection? { head?.takeUnretainedValue() }

    mutating func append(_ connection: HTTPConnection) {
        let link = Link.passUnretained(connection)
        connection.timerPrevious = tail
        connection.timerNext = nil
        if let tail { tail._withUnsafeGuaranteedRef { $0.timerNext = link } } else { head = link }
        tail = link
    }

    mutating func remove(_ connection: HTTPConnection) {
        let previous = connection.timerPrevious, next = connection.timerNext
        if let previous { previous._withUnsafeGuaranteedRef { $0.timerNext = next } } else { head = next }
        if let next { next._withUnsafeGuaranteedRef { $0.timerPrevious = previous } } else { tail = previous }
        connection.timerPrevious = nil
        connection.timerNext = nil
    }
}
