import XCTest
@testable import DeviceOracleRules

/// The shared edit distance: exact without a limit, and the band never changes
/// an answer within the limit.
final class EditDistanceTests: XCTestCase {
    func testEachKindOfEditCostsOne() {
        XCTAssertEqual(EditDistance.optimalStringAlignment(Array("refresh"), Array("refresh")), 0)
        XCTAssertEqual(EditDistance.optimalStringAlignment(Array("refresh"), Array("refreshh")), 1)
        XCTAssertEqual(EditDistance.optimalStringAlignment(Array("refresh"), Array("refrsh")), 1)
        XCTAssertEqual(EditDistance.optimalStringAlignment(Array("refresh"), Array("refrash")), 1)
        XCTAssertEqual(EditDistance.optimalStringAlignment(Array("refresh"), Array("rferesh")), 1)
        XCTAssertEqual(EditDistance.optimalStringAlignment(Array(""), Array("abc")), 3)
    }

    func testDistanceOverTheLimitIsReportedAsLimitPlusOne() {
        XCTAssertEqual(EditDistance.optimalStringAlignment(Array("abcdef"), Array("uvwxyz"), limit: 2), 3)
        XCTAssertEqual(EditDistance.optimalStringAlignment(Array("a"), Array("abcd"), limit: 2), 3)
    }

    func testBandedDistanceAgreesWithTheFullMatrixOnEveryShortString() {
        let words = Self.allWords(over: "abc", upTo: 4)
        for a in words {
            for b in words {
                let full = Self.referenceDistance(a, b)
                for limit in 0...3 {
                    XCTAssertEqual(EditDistance.optimalStringAlignment(a, b, limit: limit), min(full, limit + 1),
                                   "\(String(a)) → \(String(b)), limit \(limit)")
                }
                XCTAssertEqual(EditDistance.optimalStringAlignment(a, b), full)
            }
        }
    }

    func testLongInputsWithASmallLimitStayFast() {
        let long = Array(repeating: Character("x"), count: 200_000)
        var other = long
        other[100_000] = "y"

        XCTAssertEqual(EditDistance.optimalStringAlignment(long, other, limit: 2), 1)
    }

    /// The textbook full matrix, as the reference.
    private static func referenceDistance(_ a: [Character], _ b: [Character]) -> Int {
        var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in stride(from: 1, through: a.count, by: 1) {
            for j in stride(from: 1, through: b.count, by: 1) {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
                }
            }
        }
        return d[a.count][b.count]
    }

    private static func allWords(over alphabet: String, upTo length: Int) -> [[Character]] {
        var words: [[Character]] = [[]]
        var frontier: [[Character]] = [[]]
        for _ in 0..<length {
            frontier = frontier.flatMap { word in alphabet.map { word + [$0] } }
            words += frontier
        }
        return words
    }
}
