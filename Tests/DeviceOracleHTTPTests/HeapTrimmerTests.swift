@testable import DeviceOracleHTTP
import CSyscalls
import Dispatch
import XCTest

/// The heap is given back once, a quiet period after the last large piece of work;
/// more large work in the meantime puts it off. The trimmer is one of the loop's
/// timers, so time here is a number the test moves (nanoseconds).
final class HeapTrimmerTests: XCTestCase {
    private let second: Int64 = 1_000_000_000

    func testTrimsOnceAQuietPeriodAfterLargeWork() {
        var trimmer = HeapTrimmer(quietPeriod: second, now: 0, trimsAtStart: false)
        trimmer.largeWorkEnded(now: 10 * second)
        XCTAssertFalse(trimmer.expire(now: 11 * second - 1), "not before the quiet period has passed")
        XCTAssertTrue(trimmer.expire(now: 11 * second))
        XCTAssertFalse(trimmer.expire(now: 20 * second), "one trim per quiet period, not a repeating timer")
        XCTAssertNil(trimmer.deadline)
    }

    func testMoreLargeWorkPutsTheTrimOff() {
        var trimmer = HeapTrimmer(quietPeriod: second, now: 0, trimsAtStart: false)
        trimmer.largeWorkEnded(now: 10 * second)
        trimmer.largeWorkEnded(now: 10 * second + second / 2)
        XCTAssertFalse(trimmer.expire(now: 11 * second), "the later work restarted the quiet period")
        XCTAssertTrue(trimmer.expire(now: 11 * second + second / 2))
    }

    func testWithoutLargeWorkOnlyTheStartIsTrimmed() {
        var trimmer = HeapTrimmer(quietPeriod: second, now: 5 * second, trimsAtStart: true)
        XCTAssertEqual(trimmer.deadline, 6 * second, "the loop waits for it like any timer")
        XCTAssertTrue(trimmer.expire(now: 6 * second))
        XCTAssertFalse(trimmer.expire(now: 100 * second), "once a quiet period after start, then never")
    }

    func testOnlyOneLoopTrimsAtStart() {
        let other = HeapTrimmer(quietPeriod: second, now: 0, trimsAtStart: false)
        XCTAssertNil(other.deadline, "the heap is the process's: one start trim, not one per loop")
    }

    func testTrimmingTheRealHeapIsSafeWhileOtherThreadsAllocate() {
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            for round in 0..<50 {
                if worker == 0 {
                    _ = csyscalls_trim_heap()
                } else {
                    var block = [UInt8](repeating: UInt8(truncatingIfNeeded: round), count: 1 << 20)
                    block[block.count - 1] &+= 1
                    XCTAssertEqual(block[0], UInt8(truncatingIfNeeded: round))
                }
            }
        }
    }
}
