import XCTest
import DeviceOracleRules

/// The set the refresh rules keep ids and identifiers in: compared by bytes, and
/// the same answers whether it is still searched in order or hashed.
final class LiteralKeySetTests: XCTestCase {
    func testInsertIsTrueOnlyForAKeyNotInTheSetYet() {
        var set = LiteralKeySet()

        XCTAssertTrue(set.insert(LiteralKey("a")))
        XCTAssertFalse(set.insert(LiteralKey("a")))
        XCTAssertTrue(set.insert(LiteralKey("b")))
    }

    func testKeysAreEqualOnlyByTheirBytes() {
        let set = LiteralKeySet(["caf\u{E9}"])

        XCTAssertTrue(set.contains(LiteralKey("caf\u{E9}")))
        XCTAssertFalse(set.contains(LiteralKey("cafe\u{301}")))
    }

    func testASetGrownPastTheLinearLimitAnswersAsBefore() {
        let count = LiteralKey.linearSearchLimit * 3
        let strings = (0..<count).map { "id-\($0)" }
        var set = LiteralKeySet()

        for (position, string) in strings.enumerated() {
            XCTAssertTrue(set.insert(LiteralKey(string)), string)
            XCTAssertFalse(set.insert(LiteralKey(strings[position / 2])), string)
        }

        XCTAssertTrue(strings.allSatisfy { set.contains(LiteralKey($0)) })
        XCTAssertFalse(set.contains(LiteralKey("id-\(count)")))
        XCTAssertFalse(set.contains(LiteralKey("id-0\u{301}")))
        XCTAssertEqual(LiteralKeySet(strings + strings).contains(LiteralKey("id-\(count - 1)")), true)
    }
}
