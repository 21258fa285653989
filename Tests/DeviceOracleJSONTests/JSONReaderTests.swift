import XCTest
@testable import DeviceOracleJSON

final class JSONReaderTests: XCTestCase {
    private func parse(_ text: String) throws -> JSONDocument {
        try JSONReader.parse(Array(text.utf8))
    }

    private func syntaxError(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> JSONSyntaxError? {
        do {
            _ = try JSONReader.parse(Array(text.utf8))
            XCTFail("expected a syntax error for \(text)", file: file, line: line)
            return nil
        } catch {
            return error
        }
    }

    func testAnObjectOfOneMemberIsToldByThatMembersName() throws {
        func only(_ text: String) throws -> Bool {
            let document = try parse(text)
            return document.isObject(document.root, withOnlyMember: "observedFinal")
        }
        XCTAssertTrue(try only(#"{"observedFinal":{"isPlaying":true}}"#))
        XCTAssertTrue(try only(#"{"observed\u0046inal":null}"#))
        XCTAssertFalse(try only(#"{"observedFinal":{},"type":"userPaused"}"#))
        XCTAssertFalse(try only(#"{"observed":{}}"#))
        XCTAssertFalse(try only(#"{}"#))
        XCTAssertFalse(try only(#"["observedFinal"]"#))
        XCTAssertFalse(try only(#""observedFinal""#))
    }

    func testObjectMembersKeepDocumentOrderAndKinds() throws {
        let document = try parse(#"{"b": true, "a": [1, 2.5, "x", null, {}], "c": false}"#)
        let members = Array(document.members(document.root))
        XCTAssertEqual(members.map { document.string($0.key) }, ["b", "a", "c"])
        XCTAssertEqual(document.bool(members[0].value), true)
        XCTAssertEqual(document.bool(members[2].value), false)
        let elements = Array(document.elements(members[1].value))
        XCTAssertEqual(elements.map { document.kind($0) }, [.number, .number, .string, .null, .object])
        XCTAssertEqual(document.number(elements[1]), 2.5)
        XCTAssertEqual(document.integer(elements[0]), 1)
        XCTAssertNil(document.integer(elements[1]))
    }

    func testALiteralIsReadWholeOrRefusedAtItsFirstByte() throws {
        let document = try parse(#"[true,false,null]"#)
        XCTAssertEqual(document.elements(document.root).map { document.kind($0) }, [.bool, .bool, .null])
        XCTAssertEqual(document.elements(document.root).map { document.bool($0) }, [true, false, nil])
        // Wrong in any byte, the fifth of `false` among them, or cut short by the text's end.
        for (text, offset, word) in [("[truE]", 1, "true"), ("[falsE]", 1, "false"), ("[fals]", 1, "false"),
                                     ("[nuLl]", 1, "null"), ("fals", 0, "false"), ("[1,nul", 3, "null"), ("t", 0, "true")] {
            let error = syntaxError(text)
            XCTAssertEqual(error?.offset, offset, text)
            XCTAssertEqual(error?.reason, "invalid literal; expected '\(word)'", text)
        }
    }

    func testTrueIsNotANumberAndQuotedNumberIsAString() throws {
        let document = try parse(#"[true, "1", 1]"#)
        let elements = Array(document.elements(document.root))
        XCTAssertNil(document.number(elements[0]))
        XCTAssertNil(document.number(elements[1]))
        XCTAssertEqual(document.number(elements[2]), 1)
    }

    func testEscapesAreDecoded() throws {
        let document = try parse(#"["a\"b\\c\/d\n\t\u00e9\ud83d\ude00"]"#)
        let element = try XCTUnwrap(document.elements(document.root).first { _ in true })
        XCTAssertEqual(document.string(element), "a\"b\\c/d\n\té😀")
    }

    func testLeadingByteOrderMarkIsSkipped() throws {
        let document = try JSONReader.parse([0xEF, 0xBB, 0xBF] + Array("{}".utf8))
        XCTAssertEqual(document.kind(document.root), .object)
    }

    func testNumbersAreCorrectlyRounded() throws {
        let texts = ["0.1", "0.65", "-0.35", "1e-5", "123456789012345678901234567890", "1.7976931348623157e308",
                     "5e-324", "0.30000000000000004", "9007199254740993", "1E2", "-0"]
        for text in texts {
            let document = try parse(text)
            XCTAssertEqual(document.number(document.root), Double(text), text)
        }
    }

    func testErrorNamesOffsetLineAndColumn() {
        let error = syntaxError("{\n  \"a\": 1,\n  \"b\" 2\n}")
        XCTAssertEqual(error?.offset, 18)
        XCTAssertEqual(error?.line, 3)
        XCTAssertEqual(error?.column, 7)
        XCTAssertEqual(error?.reason, "expected ':' after a member name, found '2'")
    }

    func testMalformedTextsAreRejected() {
        let texts = ["", " ", "{", "[1,]", "{\"a\":1,}", "01", "1.", "-", "1e", "+1", ".5", "tru", "nul",
                     "\"abc", "\"\u{01}\"", "[1] 2", "{'a':1}", "\"\\x\"", "\"\\u12\"", "\"\\ud800\"",
                     "\"\\udc00\"", "\"\\ud800\\u0041\"", "1e400", "-1e400", "NaN", "[Infinity]"]
        for text in texts { XCTAssertNotNil(syntaxError(text), text) }
    }

    func testInvalidUTF8IsRejected() {
        let inputs: [[UInt8]] = [[0x22, 0xFF, 0x22], [0x22, 0xC0, 0xAF, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22],
                                 [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], [0x22, 0xE2, 0x82, 0x22]]
        for input in inputs {
            XCTAssertThrowsError(try JSONReader.parse(input), "\(input)")
        }
        XCTAssertNoThrow(try JSONReader.parse([0x22, 0xE2, 0x82, 0xAC, 0xF0, 0x9F, 0x98, 0x80, 0x22]))
    }

    func testDepthSixtyFourIsAcceptedAndSixtyFiveIsNot() throws {
        let accepted = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        XCTAssertNoThrow(try parse(accepted))
        let rejected = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        let error = syntaxError(rejected)
        XCTAssertEqual(error?.isDepthLimit, true)
    }

    func testDuplicateKeysAreReportedAtTheRepeatedKey() throws {
        let document = try parse(#"{"a": 1, "b": {"x": 1, "x": 2}, "a": 3}"#)
        XCTAssertEqual(document.duplicateKeys.count, 2)
        XCTAssertEqual(document.duplicateKeys.map { document.string($0) }, ["x", "a"])
    }

    func testDuplicateKeysInLargeObjectsAreFound() throws {
        let members = (0..<100).map { "\"k\($0)\": \($0)" } + ["\"k42\": 0"]
        let document = try parse("{" + members.joined(separator: ",") + "}")
        XCTAssertEqual(document.duplicateKeys.map { document.string($0) }, ["k42"])
    }

    func testObjectsAroundThePairwiseLimitCountTheirMembersAndFindRepeats() throws {
        // Up to 32 members keys are compared pairwise; from the 33rd, through a table.
        for size in 30...35 {
            let members = (0..<size).map { "\"k\($0)\": \($0)" }
            let document = try parse("{" + members.joined(separator: ",") + "}")
            XCTAssertEqual(document.count(document.root), size)
            XCTAssertEqual(document.duplicateKeys, [])
            for repeated in [0, size - 1] {
                let withRepeat = try parse("{" + (members + ["\"k\(repeated)\": 0"]).joined(separator: ",") + "}")
                XCTAssertEqual(withRepeat.count(withRepeat.root), size + 1)
                XCTAssertEqual(withRepeat.duplicateKeys.map { withRepeat.string($0) }, ["k\(repeated)"], "\(size)")
            }
        }
    }

    func testDuplicateKeysOfALargeObjectInDescendingOrderAreFound() throws {
        let members = (0..<1000).reversed().map { "\"k\($0)\": 0" } + ["\"k999\": 1", "\"k0\": 2", "\"k\\u0030\": 3"]
        let document = try parse("{" + members.joined(separator: ",") + "}")
        XCTAssertEqual(document.duplicateKeys.map { document.string($0) }, ["k999", "k0", "k0"])
    }

    func testPointerFromAnAncestorStartsAtTheAncestor() throws {
        let document = try parse(#"{"cases": [{"a": 1}, {"b": [true, {"c/d": null}]}]}"#)
        let second = Array(document.elements(document.member(document.root, "cases")!))[1]
        let target = Array(document.elements(document.member(second, "b")!))[1]

        XCTAssertEqual(document.pointer(to: target, from: second), "/b/1")
        XCTAssertEqual(document.pointer(to: target), "/cases/1/b/1")
        XCTAssertEqual(document.pointer(to: second, from: second), "")
    }

    func testEscapedAndPlainSpellingsOfOneKeyAreDuplicates() throws {
        let document = try parse(#"{"ab": 1, "a\u0062": 2}"#)
        XCTAssertEqual(document.duplicateKeys.count, 1)
    }

    /// The string scan reads eight bytes at a time: a quote, backslash, control or
    /// non-ASCII byte must be found at every offset of every word.
    func testEveryByteClassIsFoundAtEveryOffsetOfTheWordScan() throws {
        let specials: [(insert: String, decoded: String)] = [("\\\"", "\""), ("\\n", "\n"), ("é", "é"), ("\\u0041", "A")]
        for length in 0..<20 {
            for position in 0...length {
                let prefix = String(repeating: "a", count: position), suffix = String(repeating: "b", count: length - position)
                for special in specials {
                    let document = try parse("\"" + prefix + special.insert + suffix + "\"")
                    XCTAssertEqual(document.string(document.root), prefix + special.decoded + suffix, "\(length) \(position)")
                }
                XCTAssertNotNil(syntaxError("\"" + prefix + "\u{01}" + suffix + "\""), "control at \(position) of \(length)")
                let plain = try parse("\"" + prefix + suffix + "\"")
                XCTAssertEqual(plain.string(plain.root), prefix + suffix)
            }
        }
    }
}
