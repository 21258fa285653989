import DeviceOracleJSON
@testable import DeviceOracleWire
import XCTest

/// `ClosedNames.match` tells names apart by a signature first; these are the names
/// a signature alone cannot tell apart or could confuse.
final class ClosedNamesTests: XCTestCase {
    private let spellings = [
        "", "a", "ab", "abc", "type", "typed", "reason", "session", "observed", "userPaused", "shouldResume",
        "interruptionBegan", "interruptionEnded", "mediaServicesWereLost", "mediaServicesWereReset",
        "abcdefgh", "abcdefgi", "bbcdefgh", "abcdefghabcdefgh", "abcdefghXbcdefgh",
    ]

    private func matched(_ names: ClosedNames<Int>, _ text: String) -> Int? {
        var writer = JSONWriter()
        writer.beginArray()
        writer.string(escaping: text)
        writer.endArray()
        let document = try! JSONReader.parse(writer.finish())
        let element = document.elements(document.root).first { _ in true }!
        return names.match(element, in: document)
    }

    func testEverySpellingMatchesItsOwnName() {
        let names = ClosedNames("name", spellings.enumerated().map { ($1, $0) })
        for (index, spelling) in spellings.enumerated() {
            XCTAssertEqual(matched(names, spelling), index, spelling)
        }
    }

    func testNearMissesMatchNothing() {
        let names = ClosedNames("name", spellings.enumerated().map { ($1, $0) })
        let nearMisses = ["A", "b", "ba", "abd", "bbc", "tipe", "typf", "typee", "types", "Type", "reasom", "sessiom",
                          "typ", "userPause", "userPausedX", "interruptionBeganX",
                          "interruptionEndeD", "interruptionBegam", "xnterruptionEnded", "abcdefgj", "abcdefghabcdefgi",
                          "abcdefghabcdefg", "mediaServicesWereLosT", String(repeating: "a", count: 264)]
        for text in nearMisses {
            XCTAssertNil(matched(names, text), text)
        }
    }

    func testAnEscapedSpellingMatchesTheNameItDecodesTo() {
        let names = ClosedNames("name", spellings.enumerated().map { ($1, $0) })
        let document = try! JSONReader.parse(Array(#"["user\u0050aused"]"#.utf8))
        let element = document.elements(document.root).first { _ in true }!
        XCTAssertEqual(names.match(element, in: document), spellings.firstIndex(of: "userPaused"))
    }

    func testLengthsThatShareTheLowByteAreToldApart() {
        let long = String(repeating: "a", count: 264)
        let names = ClosedNames("name", [(long, 0), ("bbbbbbbb", 1)])
        XCTAssertNil(matched(names, "aaaaaaaa"))
        XCTAssertEqual(matched(names, long), 0)
        XCTAssertNil(matched(names, String(repeating: "a", count: 8 + 512)))
    }

    func testASpellingListedTwiceMatchesItsFirstEntry() {
        // Documented order decides, as it did when names were looked up by a scan.
        let names = ClosedNames("name", [("type", 0), ("userPaused", 1), ("type", 2), ("userPaused", 3)])
        XCTAssertEqual(matched(names, "type"), 0)
        XCTAssertEqual(matched(names, "userPaused"), 1)
    }

    func testAnEmptySetMatchesNothing() {
        XCTAssertNil(matched(ClosedNames<Int>("name", []), "type"))
        XCTAssertNil(matched(ClosedNames<Int>("name", []), ""))
    }

    func testALargeSetFindsEveryNameAmongCollidingSlots() {
        let spellings = (0..<300).map { "name\($0)" } + (0..<100).map { "a much longer spelling number \($0)" }
        let names = ClosedNames("name", spellings.enumerated().map { ($1, $0) })
        for (index, spelling) in spellings.enumerated() {
            XCTAssertEqual(matched(names, spelling), index, spelling)
        }
        XCTAssertNil(matched(names, "name300"))
        XCTAssertNil(matched(names, "a much longer spelling number 100"))
    }
}
