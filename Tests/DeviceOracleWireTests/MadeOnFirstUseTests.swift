import XCTest
import Synchronization
@testable import DeviceOracleWire

/// A model's graphs are explored when a model route first needs them, once.
final class MadeOnFirstUseTests: XCTestCase {
    func testNothingIsMadeBeforeTheFirstUse() {
        let makes = Atomic(0)
        let value = MadeOnFirstUse { makes.add(1, ordering: .relaxed); return 42 }
        XCTAssertEqual(makes.load(ordering: .relaxed), 0)
        XCTAssertEqual(value.value, 42)
        XCTAssertEqual(value.value, 42)
        XCTAssertEqual(makes.load(ordering: .relaxed), 1)
    }

    func testThreadsAskingTogetherGetOneMaking() {
        let makes = Atomic(0)
        let value = MadeOnFirstUse { makes.add(1, ordering: .relaxed); return [1, 2, 3] }
        DispatchQueue.concurrentPerform(iterations: 16) { _ in XCTAssertEqual(value.value, [1, 2, 3]) }
        XCTAssertEqual(makes.load(ordering: .relaxed), 1)
    }
}
