import XCTest
@_spi(Engine) import DeviceOracleRules

/// The inline list the engine's decisions carry: it lists what the arrays of the
/// public decisions list, in the same order.
final class ShortListTests: XCTestCase {
    func testTheLeadingGivenElementsAreTheList() {
        XCTAssertEqual(ShortList<Int>().array, [])
        XCTAssertEqual(ShortList(1).array, [1])
        XCTAssertEqual(ShortList(1, 2, 3).array, [1, 2, 3])
        XCTAssertEqual(ShortList(1, nil, 3).array, [1])
        XCTAssertEqual(ShortList(1, 2, 3, 4).count, ShortList<Int>.capacity)
    }

    func testAppendingKeepsTheOrderUpToTheCapacity() {
        var list = ShortList<Int>()
        XCTAssertTrue(list.isEmpty)
        for element in [7, 5, 9, 1] { list.append(element) }
        XCTAssertEqual(list.array, [7, 5, 9, 1])
        XCTAssertEqual(list.map { $0 * 2 }, [14, 10, 18, 2])
        var visited: [Int] = []
        list.forEach { visited.append($0) }
        XCTAssertEqual(visited, [7, 5, 9, 1])
    }

    func testListsAreEqualWhenTheyListTheSameElementsInOrder() {
        var appended = ShortList<Int>()
        appended.append(1)
        appended.append(2)
        XCTAssertEqual(appended, ShortList(1, 2))
        XCTAssertNotEqual(ShortList(1, 2), ShortList(2, 1))
        XCTAssertNotEqual(ShortList(1, 2), ShortList(1, 2, 3))
        // What lies past the list is not part of it.
        XCTAssertEqual(ShortList(1, nil, 3), ShortList(1))
    }
}
