import XCTest
@testable import DeviceOracleJSON

/// One text after another into the same memory (an NDJSON body's lines): each
/// document reads as `JSONReader.parse` would read its text, whatever came before,
/// and a document that is still held never changes.
final class JSONLineReaderTests: XCTestCase {
    private func parse(_ reader: inout JSONLineReader, _ text: String) throws -> JSONDocument {
        try Array(text.utf8).withUnsafeBytes { try reader.parse($0) }
    }

    private func lend(_ reader: inout JSONLineReader, _ text: String) throws -> JSONDocument {
        try Array(text.utf8).withUnsafeBytes { try reader.lend($0) }
    }

    private func memory(of document: JSONDocument) -> ObjectIdentifier { ObjectIdentifier(document.storage) }

    func testALineLetGoOfLendsItsMemoryToTheNext() throws {
        var reader = JSONLineReader()
        let first = try memory(of: parse(&reader, #"{"type":"userPlayed","observed":{"isPlaying":true}}"#))

        let second = try parse(&reader, #"{"type":"userPaused"}"#)

        XCTAssertEqual(memory(of: second), first)
        XCTAssertEqual(second.string(second.member(second.root, "type")!), "userPaused")
        XCTAssertEqual(second.nodeCount, 3)
        XCTAssertEqual(second.input, Array(#"{"type":"userPaused"}"#.utf8))
    }

    func testALentLineGivenBackLendsItsMemoryToTheNext() throws {
        var reader = JSONLineReader()
        let first = try lend(&reader, #"{"type":"userPlayed","observed":{"isPlaying":true}}"#)
        let firstMemory = memory(of: first)
        reader.giveBack(consume first)

        let second = try lend(&reader, #"{"type":"userPaused"}"#)

        XCTAssertEqual(memory(of: second), firstMemory)
        XCTAssertEqual(second.string(second.member(second.root, "type")!), "userPaused")
        XCTAssertEqual(second.input, Array(#"{"type":"userPaused"}"#.utf8))
    }

    func testALentLineStillHeldWhenGivenBackKeepsItsBytesAndTheNextGetsMemoryOfItsOwn() throws {
        var reader = JSONLineReader()
        let head = try lend(&reader, #"{"initial":{"isPlaying":true}}"#)
        reader.giveBack(head)

        let element = try lend(&reader, #"{"type":"userPaused"}"#)

        XCTAssertNotEqual(memory(of: element), memory(of: head))
        XCTAssertEqual(head.input, Array(#"{"initial":{"isPlaying":true}}"#.utf8))
        XCTAssertEqual(element.string(element.member(element.root, "type")!), "userPaused")
    }

    func testALineStillHeldKeepsItsBytesAndTheNextGetsMemoryOfItsOwn() throws {
        var reader = JSONLineReader()
        let head = try parse(&reader, #"{"initial":{"isPlaying":true}}"#)

        let element = try parse(&reader, #"{"type":"userPaused","id":"a\"b"}"#)

        XCTAssertNotEqual(memory(of: element), memory(of: head))
        XCTAssertEqual(head.input, Array(#"{"initial":{"isPlaying":true}}"#.utf8))
        XCTAssertEqual(head.bool(head.member(head.member(head.root, "initial")!, "isPlaying")!), true)
        XCTAssertEqual(element.string(element.member(element.root, "id")!), "a\"b")
    }

    func testEscapesAndRepeatedKeysOfOneLineDoNotReachTheNext() throws {
        var reader = JSONLineReader()
        let first = try parse(&reader, #"{"a":"x\u00e9y","a":1}"#)
        XCTAssertEqual(first.duplicateKeys.count, 1)
        XCTAssertEqual(first.string(first.members(first.root).first { _ in true }!.value), "xéy")

        let second = try parse(&reader, #"{"b":"\n"}"#)

        XCTAssertEqual(second.duplicateKeys, [])
        XCTAssertEqual(second.string(second.member(second.root, "b")!), "\n")
    }

    func testEachLineReadsAsTheOneShotReaderReadsIt() throws {
        var reader = JSONLineReader()
        let texts = [#"{"k":[1,2.5e3,-0.25,true,false,null]}"#, "[]", #""\ud83d\ude00""#, #"{"x":{"y":{"z":"w"}}}"#, "7"]
        for text in texts + texts.reversed() {
            let lineDocument = try parse(&reader, text)
            let oneShot = try JSONReader.parse(Array(text.utf8))
            XCTAssertTrue(lineDocument.isEqual(lineDocument.root, to: oneShot.root, in: oneShot), text)
            XCTAssertEqual(lineDocument.nodeCount, oneShot.nodeCount, text)
        }
    }

    func testABadLineIsTheSameErrorAndTheNextLineReadsWell() throws {
        var reader = JSONLineReader()
        let text = "{\"a\":\n tru}"
        var lineError: JSONSyntaxError?
        do { _ = try parse(&reader, text) } catch { lineError = error as? JSONSyntaxError }
        var oneShotError: JSONSyntaxError?
        do { _ = try JSONReader.parse(Array(text.utf8)) } catch { oneShotError = error }

        XCTAssertEqual(lineError, oneShotError)
        XCTAssertNotNil(lineError)
        let next = try parse(&reader, #"{"ok":true}"#)
        XCTAssertEqual(next.bool(next.member(next.root, "ok")!), true)
    }

    func testMemoryKeptBetweenLinesIsBoundedWhateverOneLineWas() throws {
        var reader = JSONLineReader()
        _ = try parse(&reader, "[" + Array(repeating: "0", count: 200_000).joined(separator: ",") + "]")

        XCTAssertEqual(reader.heldBytes, 0)
        _ = try parse(&reader, #"{"type":"userPlayed"}"#)
        XCTAssertGreaterThan(reader.heldBytes, 0)
        XCTAssertLessThanOrEqual(reader.heldBytes, JSONLineReader.keptBytes)
    }

    func testMemoryALineGrewIsCountedWhileItIsKeptForTheNext() throws {
        var reader = JSONLineReader()
        _ = try parse(&reader, #"{"id":""# + String(repeating: "a", count: 8_000) + #""}"#)
        let plain = reader.heldBytes
        // As long, but its escapes are decoded into memory of their own, kept for the next line.
        _ = try parse(&reader, #"{"id":""# + String(repeating: #"\n"#, count: 4_000) + #""}"#)
        let decoded = reader.heldBytes

        _ = try parse(&reader, #"{"type":"userPaused"}"#)

        XCTAssertGreaterThanOrEqual(decoded, plain + 4_000)
        XCTAssertEqual(reader.heldBytes, decoded)
    }
}
