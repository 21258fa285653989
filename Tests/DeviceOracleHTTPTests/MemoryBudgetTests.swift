@testable import DeviceOracleHTTP
import Foundation
import XCTest

/// The budget's arithmetic and where its default comes from.
final class MemoryBudgetTests: XCTestCase {
    func testAReservationThatFitsIsTakenAndOneThatDoesNotIsRefused() {
        let budget = MemoryBudget(limit: 100)
        XCTAssertTrue(budget.reserve(60))
        XCTAssertFalse(budget.reserve(41))
        XCTAssertTrue(budget.reserve(40))
        budget.adjust(by: -100)
        XCTAssertEqual(budget.usedBytes, 0)
    }

    func testARequestLargerThanTheWholeBudgetRunsWhenNothingElseHoldsAny() {
        let budget = MemoryBudget(limit: 100)
        XCTAssertTrue(budget.reserve(500), "alone, it runs rather than never")
        XCTAssertFalse(budget.reserve(1))
    }

    func testAnswersAlreadyMadeAreCountedEvenOverTheLimit() {
        let budget = MemoryBudget(limit: 100)
        budget.adjust(by: 150)
        XCTAssertEqual(budget.usedBytes, 150)
        XCTAssertFalse(budget.reserve(1))
    }

    private func cgroupRoot(_ files: [String: String]) throws -> String {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("cgroup-\(UUID().uuidString)")
        for (path, text) in files {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        addTeardownBlock { try? FileManager.default.removeItem(at: root) }
        return root.path
    }

    func testTheCgroupV2LimitOfTheProcesssOwnCgroupIsRead() throws {
        let root = try cgroupRoot(["app/memory.max": "268435456\n", "self-cgroup": "0::/app\n"])
        XCTAssertEqual(MemoryBudget.cgroupMemoryLimit(root: root, membership: root + "/self-cgroup"), 268_435_456)
    }

    func testTheCgroupV1LimitIsReadAndItsUnlimitedValueIsNone() throws {
        let limited = try cgroupRoot(["memory/job/memory.limit_in_bytes": "536870912\n",
                                      "self-cgroup": "4:memory:/job\n0::/\n"])
        XCTAssertEqual(MemoryBudget.cgroupMemoryLimit(root: limited, membership: limited + "/self-cgroup"), 536_870_912)
        let unlimited = try cgroupRoot(["memory/memory.limit_in_bytes": "9223372036854771712\n",
                                        "self-cgroup": "4:memory:/\n"])
        XCTAssertNil(MemoryBudget.cgroupMemoryLimit(root: unlimited, membership: unlimited + "/self-cgroup"))
    }

    func testAContainersOwnRootIsReadAndMaxMeansNoLimit() throws {
        let container = try cgroupRoot(["memory.max": "134217728\n", "self-cgroup": "0::/\n"])
        XCTAssertEqual(MemoryBudget.cgroupMemoryLimit(root: container, membership: container + "/self-cgroup"), 134_217_728)
        let unlimited = try cgroupRoot(["memory.max": "max\n", "self-cgroup": "0::/\n"])
        XCTAssertNil(MemoryBudget.cgroupMemoryLimit(root: unlimited, membership: unlimited + "/self-cgroup"))
    }
}
