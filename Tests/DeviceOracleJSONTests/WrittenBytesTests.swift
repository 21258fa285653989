import DeviceOracleJSON
import XCTest

/// A long answer's pieces leave the writer without a copy: an empty piece takes the
/// writer's memory, and the writer goes on in the piece's former memory.
final class WrittenBytesTests: XCTestCase {
    private func written(_ piece: WrittenBytes) -> String { String(decoding: piece.bytes, as: UTF8.self) }

    func testAnEmptyPieceTakesTheTextAndTheWriterGoesOnWhereItStopped() {
        var writer = JSONWriter(capacity: 64)
        let first = WrittenBytes(), second = WrittenBytes()
        writer.beginArray()
        writer.integer(1)

        writer.move(into: first)
        writer.integer(2)
        writer.endArray()
        writer.move(into: second)

        XCTAssertEqual(written(first), "[1")
        XCTAssertEqual(written(second), ",2]", "the comma still follows the first value")
        XCTAssertEqual(writer.byteCount, 0)
    }

    func testAPieceThatHoldsBytesHasTheTextAppended() {
        var writer = JSONWriter(capacity: 64)
        let piece = WrittenBytes()
        piece.append(contentsOf: Array("[".utf8))
        writer.bool(true)

        writer.move(into: piece)

        XCTAssertEqual(written(piece), "[true")
    }

    func testRecycledPiecesCarryEveryTextIntact() {
        // What the server does: two pieces in turn, each emptied once sent, the writer
        // writing each new text in the memory the older piece brought back.
        var writer = JSONWriter(capacity: 64)
        var pieces = (older: WrittenBytes(), newer: WrittenBytes())
        var sent: [UInt8] = [], expected: [UInt8] = []
        for round in 0..<50 {
            let text = String(repeating: "x", count: 1 + round * 37 % 300)
            writer.string(escaping: text)
            writer.withBytes { expected += $0 }
            let piece = pieces.older
            piece.removeAll()
            writer.move(into: piece)
            sent += piece.bytes
            pieces = (pieces.newer, piece)
        }
        XCTAssertEqual(sent, expected)
    }

    func testAWriterWithoutMemoryHandsOverNothingAndStillWrites() {
        var writer = JSONWriter(capacity: 0)
        let piece = WrittenBytes()

        writer.move(into: piece)
        writer.null()
        writer.move(into: piece)

        XCTAssertEqual(written(piece), "null")
    }
}
