import Foundation

/// Whether `condition` holds within `seconds`, checked every 10 ms. For state that a
/// real server changes on its own threads (or in its own process) and that gives a test
/// nothing to block on: a listener that closes, a log line in a child's file, the
/// memory budget, a heap trim, a child's exit. A wait for bytes is a read with a
/// timeout instead (`TestConnection.receivesBytes(within:)`), and timeout rules are
/// tested on the connection's machine with a manual clock.
public func eventually(within seconds: Double = 10, _ condition: () -> Bool) -> Bool {
    let deadline = Date(timeIntervalSinceNow: seconds)
    while !condition() {
        guard Date() < deadline else { return false }
        // Needs a real server: nothing here can be waited on, so it is polled.
        usleep(10_000)
    }
    return true
}
