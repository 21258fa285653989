import XCTest
@testable import DeviceOracleJSON

/// The hash table behind duplicate keys of large objects and playback's sessions.
/// Work is counted in probes, never timed.
final class ByteStringTableTests: XCTestCase {
    private func probes(insertingDistinct count: Int) -> Int {
        var table = ByteStringTable()
        // Descending: each new string sorts before every earlier one, the worst order
        // for a sorted array's inserts.
        for number in (0..<count).reversed() {
            let key = Array("k\(number)".utf8)
            XCTAssertTrue(key.withUnsafeBufferPointer { table.insert($0) }.inserted)
        }
        return table.probes
    }

    func testInsertingDistinctStringsTakesLinearWork() {
        let small = probes(insertingDistinct: 20_000), large = probes(insertingDistinct: 40_000)

        // Linear doubles (growth included); a scan over earlier strings would quadruple.
        XCTAssertLessThan(Double(large) / Double(small), 2.5)
        XCTAssertLessThan(large, 40_000 * 8)
    }

    func testStringsAreNumberedInTheOrderFirstInserted() {
        var table = ByteStringTable()
        let insert = { (text: String) in Array(text.utf8).withUnsafeBufferPointer { table.insert($0) } }

        let results = ["b", "a", "", "b", "é", "a"].map(insert)

        XCTAssertEqual(results.map(\.id), [0, 1, 2, 0, 3, 1])
        XCTAssertEqual(results.map(\.inserted), [true, true, true, false, true, false])
        XCTAssertEqual(table.count, 4)
        XCTAssertEqual(Array(table[3]), Array("é".utf8))
    }
}
