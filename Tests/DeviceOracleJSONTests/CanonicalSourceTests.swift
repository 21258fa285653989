import XCTest
import DeviceOracleJSON

/// `canonicalSource(of:)` may answer only where the writer would write the very
/// same bytes: a copy of the request must never differ from a rendering of it.
final class CanonicalSourceTests: XCTestCase {
    /// The root's source text if the document says it is canonical, checked against
    /// what the writer writes for it.
    private func source(_ text: String, file: StaticString = #filePath, line: UInt = #line) throws -> String? {
        let document = try JSONReader.parse(Array(text.utf8))
        var writer = JSONWriter()
        writer.value(document.root, of: document)
        let written = String(decoding: writer.bytes, as: UTF8.self)
        guard let range = document.canonicalSource(of: document.root) else { return nil }
        let copied = document.withSource(range) { String(decoding: $0, as: UTF8.self) }
        XCTAssertEqual(copied, written, "a canonical source must be what the writer writes", file: file, line: line)
        return copied
    }

    func testACompactObjectIsItsOwnCanonicalText() throws {
        let compact = #"{"id":"7","title":"t4","n":-12,"z":0,"ok":true,"no":false,"x":null,"a":[1,{"b":[]}],"é":"ü"}"#
        XCTAssertEqual(try source(compact), compact)
        XCTAssertEqual(try source(#"{"big":999999999999999}"#), #"{"big":999999999999999}"#)
    }

    func testAnObjectOfStringsIsReadFromTheTapeAlone() throws {
        for text in [#"{"id":"7","title":"t4"}"#, #"{"":""}"#, #"{"id":"7","id":""}"#, #"{"a":"b","c":{"d":"e"}}"#] {
            XCTAssertEqual(try source(text), text)
        }
        for text in [#"{"id" :"7"}"#, #"{"id":"7" ,"t":"x"}"#, #"{"a":"b","c":"d" }"#, #"{"a":"b","c":"\u0064"}"#] {
            XCTAssertNil(try source(text), text)
        }
    }

    func testAnObjectInsideALargerTextIsFoundAtItsOwnBytes() throws {
        let document = try JSONReader.parse(Array(#"{"items":[{"id":"1"}, {"id":"2","n":3}]}"#.utf8))
        let items = try XCTUnwrap(document.member(document.root, "items"))
        let second = Array(document.elements(items))[1]
        let range = try XCTUnwrap(document.canonicalSource(of: second))
        XCTAssertEqual(document.withSource(range) { String(decoding: $0, as: UTF8.self) }, #"{"id":"2","n":3}"#)
    }

    func testWhitespaceAnywhereLeavesTheWritingToTheWriter() throws {
        for text in [#"{ "id":"7"}"#, #"{"id": "7"}"#, #"{"id":"7" }"#, "{\"id\":\n\"7\"}", #"{"a":[1, 2]}"#] {
            XCTAssertNil(try source(text), text)
        }
    }

    func testEscapesFractionsExponentsNegativeZeroAndLongIntegersAreRewritten() throws {
        for text in [#"{"id":"a\"b"}"#, #"{"id":"\u0041"}"#, #"{"a\/":1}"#, #"{"x":1.0}"#, #"{"x":1.5}"#, #"{"x":1e2}"#,
                     #"{"x":1E2}"#, #"{"x":-0}"#, #"{"x":1234567890123456}"#] {
            XCTAssertNil(try source(text), text)
        }
    }

    func testOnlyNonEmptyObjectsAreCopied() throws {
        for text in ["{}", "[1]", #""s""#, "1", "true"] {
            XCTAssertNil(try source(text), text)
        }
    }
}

extension CanonicalSourceTests {
    func testACopiedSourceIsAlwaysWhatTheWriterWrites() throws {
        // Objects built from pieces that are canonical and pieces that are not, in a
        // fixed pseudo-random order: whatever `canonicalSource` accepts, `source`
        // checks against the writer.
        let values = [#""t4""#, #""a\nb""#, #""\u00e9""#, "7", "-3", "-0", "0", "1.0", "2.5", "1e3", "123456789012345",
                      "1234567890123456", "true", "false", "null", "[]", "[1,2]", "[ 1]", #"{"k":1}"#, "{}", #"{"k" :1}"#]
        let keys = [#""id""#, #""title""#, #""\u0069d""#, #""ü""#]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        var copied = 0
        for _ in 0..<2_000 {
            let colon = next(8) == 0 ? " :" : ":"
            let members = (0...next(3)).map { index in "\(keys[(index + next(2)) % keys.count])\(colon)\(values[next(values.count)])" }
            let separator = next(8) == 0 ? ", " : ","
            let text = "{" + Set(members).sorted().joined(separator: separator) + "}"
            if try source(text) != nil { copied += 1 }
        }
        XCTAssertGreaterThan(copied, 100, "the generator must also make canonical objects")
    }
}
