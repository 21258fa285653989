import XCTest
@testable import DeviceOracleJSON

/// `JSONDocument.isEqual`: JSON equality across documents, for small and large objects.
final class JSONEqualityTests: XCTestCase {
    private func equal(_ a: String, _ b: String) throws -> Bool {
        let first = try JSONReader.parse(Array(a.utf8)), second = try JSONReader.parse(Array(b.utf8))
        return first.isEqual(first.root, to: second.root, in: second)
    }

    func testObjectsAreEqualRegardlessOfMemberOrderAndNumberSpelling() throws {
        XCTAssertTrue(try equal(#"{"id":"42","n":1.0,"t":[true,null]}"#, #"{"t":[true,null],"n":1,"id":"42"}"#))
        XCTAssertFalse(try equal(#"{"id":"42","n":1}"#, #"{"id":"42","n":true}"#))
        XCTAssertFalse(try equal(#"{"id":"42"}"#, #"{"id":"42","x":null}"#))
    }

    func testLargeObjectsCompareByKeyWhateverTheirOrder() throws {
        let count = JSONDocument.linearScanMembers * 4
        let members = (0..<count).map { #""k\#($0)":\#($0)"# }
        let forward = "{" + members.joined(separator: ",") + "}"
        let backward = "{" + members.reversed().joined(separator: ",") + "}"
        var changed = members
        changed[count / 2] = #""k\#(count / 2)":"other""#
        var renamed = members
        renamed[count - 1] = #""z":\#(count - 1)"#

        XCTAssertTrue(try equal(forward, backward))
        XCTAssertFalse(try equal(forward, "{" + changed.joined(separator: ",") + "}"))
        XCTAssertFalse(try equal(forward, "{" + renamed.joined(separator: ",") + "}"))
    }
}
