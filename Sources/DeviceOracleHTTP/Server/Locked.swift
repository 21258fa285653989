import Glibc

/// A value behind a pthread mutex, for the few values threads share (a loop's task
/// list, the log queue, the server's state).
///
/// Not `Synchronization.Mutex`: on Linux its contended path waits in a futex call
/// ThreadSanitizer cannot see into, so a lock taken there orders nothing in TSan's
/// eyes and it reports races that are none. TSan intercepts pthread mutexes.
final class Locked<Value>: @unchecked Sendable {
    // @unchecked: `value` is only touched with `mutex` held.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
