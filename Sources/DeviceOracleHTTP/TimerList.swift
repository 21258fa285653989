/// The timeouts a connection can be waiting on; each has one fixed duration, so
/// deadlines in one list are in arming order and the earliest is always at the head.
enum TimerKind: Int, CaseIterable {
    case header, body, send, idle, linger
}

/// An intrusive FIFO of connections ordered by deadline: arming, re-arming and
/// disarming are O(1), and expiry only looks at the head — no per-connection timers,
/// no scan of idle connections.
struct TimerList {
    private(set) var first: HTTPConnection?
    private var last: HTTPConnection?

    mutating func append(_ connection: HTTPConnection) {
        connection.timerPrevious = last
        connection.timerNext = nil
        if let last { last.timerNext = connection } else { first = connection }
        last = connection
    }

    mutating func remove(_ connection: HTTPConnection) {
        let previous = connection.timerPrevious, next = connection.timerNext
        if let previous { previous.timerNext = next } else { first = next }
        if let next { next.timerPrevious = previous } else { last = previous }
        connection.timerPrevious = nil
        connection.timerNext = nil
    }
}
