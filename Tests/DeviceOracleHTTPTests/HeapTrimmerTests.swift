@testable import DeviceOracleHTTP
import CSyscalls
import Dispatch
import Synchronization
import XCTest

/// The heap is given back once, a quiet period after the last large piece of work;
/// more large work in the meantime puts it off. Only lower bounds on time are
/// asserted (a timer never fires early); upper bounds are generous waits.
final class HeapTrimmerTests: XCTestCase {
    private final class Counter: Sendable {
        let trims = Atomic<Int>(0)
        let lastAt = Atomic<UInt64>(0)

        func trim() {
            lastAt.store(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed)
            trims.add(1, ordering: .relaxed)
        }

        func waitForTrims(_ expected: Int) {
            let deadline = DispatchTime.now() + .seconds(10)
            while trims.load(ordering: .relaxed) < expected, DispatchTime.now() < deadline { usleep(10_000) }
        }
    }

    func testTrimsOnceAQuietPeriodAfterLargeWork() {
        let counter = Counter()
        let trimmer = HeapTrimmer(quietPeriod: .milliseconds(300), trim: counter.trim)
        let ended = DispatchTime.now().uptimeNanoseconds
        trimmer.largeWorkEnded()
        counter.waitForTrims(1)
        XCTAssertEqual(counter.trims.load(ordering: .relaxed), 1)
        XCTAssertGreaterThanOrEqual(counter.lastAt.load(ordering: .relaxed) - ended, 300_000_000)
        usleep(600_000)
        XCTAssertEqual(counter.trims.load(ordering: .relaxed), 1, "one trim per quiet period, not a repeating timer")
    }

    func testMoreLargeWorkPutsTheTrimOff() {
        let counter = Counter()
        let trimmer = HeapTrimmer(quietPeriod: .milliseconds(500), trim: counter.trim)
        trimmer.largeWorkEnded()
        usleep(200_000)
        let lastEnded = DispatchTime.now().uptimeNanoseconds
        trimmer.largeWorkEnded()
        counter.waitForTrims(1)
        XCTAssertEqual(counter.trims.load(ordering: .relaxed), 1)
        XCTAssertGreaterThanOrEqual(counter.lastAt.load(ordering: .relaxed) - lastEnded, 500_000_000)
    }

    func testWithoutLargeWorkOnlyTheStartIsTrimmed() {
        let counter = Counter()
        let trimmer = HeapTrimmer(quietPeriod: .milliseconds(50), trim: counter.trim)
        usleep(300_000)
        XCTAssertEqual(counter.trims.load(ordering: .relaxed), 1, "once a quiet period after start, then never")
        withExtendedLifetime(trimmer) {}
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
