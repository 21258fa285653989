@testable import DeviceOracleHTTP
import Dispatch
import Synchronization
import XCTest

/// Offloaded handlers run on a fixed number of threads; more work waits its turn.
final class WorkerPoolTests: XCTestCase {
    func testNoMoreThanItsThreadsRunAtOnceAndTheRestWaitsInOrder() {
        let pool = WorkerPool(threads: 2)
        defer { pool.stop() }
        let release = DispatchSemaphore(value: 0), started = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        let running = Atomic<Int>(0), most = Atomic<Int>(0)
        let order = DeviceOracleHTTP.Locked<[Int]>([])  // a pthread mutex: ThreadSanitizer sees its order
        for item in 0..<6 {
            pool.submit {
                let now = running.add(1, ordering: .relaxed).newValue
                _ = most.max(now, ordering: .relaxed)
                order.withLock { $0.append(item) }
                started.signal()
                release.wait()
                running.subtract(1, ordering: .relaxed)
                done.signal()
            }
        }
        started.wait()
        started.wait()
        XCTAssertEqual(pool.waiting, 4, "two run, four wait in the queue")
        // One at a time: a finished item's thread takes the next queued one, which records
        // itself before the next is let go, so the record is the order items were taken
        // (let go together, two threads would record 4 and 5 in either order).
        for _ in 0..<4 {
            release.signal()
            started.wait()
        }
        for _ in 0..<2 { release.signal() }
        for _ in 0..<6 { done.wait() }
        XCTAssertEqual(most.load(ordering: .relaxed), 2)
        XCTAssertEqual(order.withLock { $0 }.sorted(), Array(0..<6))
        XCTAssertEqual(Array(order.withLock { $0 }[2...]), [2, 3, 4, 5], "queued work runs first come first served")
    }

    func testStopLetsQueuedWorkFinish() {
        let pool = WorkerPool(threads: 1)
        let done = DispatchSemaphore(value: 0)
        for _ in 0..<3 { pool.submit { done.signal() } }
        pool.stop()
        for _ in 0..<3 { XCTAssertEqual(done.wait(timeout: .now() + 10), .success) }
    }
}
