import XCTest
@testable import DeviceOracleWire

/// The NDJSON body's lines (streaming.md, "Request"), whatever the reads' sizes.
final class NDJSONLinesTests: XCTestCase {
    private func lines(_ body: String, maxLineBytes: Int = 64, pieces: [Int]? = nil) -> [NDJSONLines.Element] {
        var splitter = NDJSONLines(maxLineBytes: maxLineBytes)
        let bytes = Array(body.utf8)
        var elements: [NDJSONLines.Element] = []
        var start = 0
        for size in pieces ?? [bytes.count] {
            let end = min(start + size, bytes.count)
            elements += splitter.feed(Array(bytes[start..<end]))
            start = end
        }
        elements += splitter.feed(Array(bytes[start...]))
        return elements + splitter.finish()
    }

    private func line(_ number: Int, _ text: String) -> NDJSONLines.Element {
        .line(number: number, bytes: Array(text.utf8))
    }

    func testLinesEndAtLFAndACRBeforeItIsDropped() {
        let elements = lines("{\"a\":1}\n{\"b\":2}\r\n")

        XCTAssertEqual(elements, [line(1, #"{"a":1}"#), line(2, #"{"b":2}"#)])
    }

    func testBlankLinesAreSkippedButCounted() {
        let elements = lines("\n  \t\r\n{}\n\r\n{\"x\":0}\n")

        XCTAssertEqual(elements, [line(3, "{}"), line(5, #"{"x":0}"#)])
    }

    func testTheLastLineMayLackItsLF() {
        let elements = lines("{}\n{\"last\":true}")

        XCTAssertEqual(elements, [line(1, "{}"), line(2, #"{"last":true}"#)])
    }

    func testALineOfExactlyTheBoundIsALine() {
        let exact = String(repeating: "x", count: 8)

        let elements = lines(exact + "\r\n" + exact, maxLineBytes: 8)

        XCTAssertEqual(elements, [line(1, exact), line(2, exact)])
    }

    func testALongerLineIsReportedOnceAndTheNextLinesGoOn() {
        let long = String(repeating: "x", count: 9)

        let elements = lines("{}\n" + long + "\n" + long + long + long + "\n{}\n" + long, maxLineBytes: 8, pieces: [1, 2, 3, 5])

        XCTAssertEqual(elements, [line(1, "{}"), .tooLong(number: 2), .tooLong(number: 3), line(4, "{}"),
                                  .tooLong(number: 5)])
    }

    func testEverySplitOfABodyGivesTheSameLines() {
        let body = "{\"h\":1}\r\n\n  \n{\"type\":\"userPlayed\"}\n" + String(repeating: "y", count: 20) + "\n{\"t\":2}"
        let whole = lines(body, maxLineBytes: 16)

        for first in 0...body.utf8.count {
            XCTAssertEqual(lines(body, maxLineBytes: 16, pieces: [first]), whole, "split at \(first)")
        }
        XCTAssertEqual(lines(body, maxLineBytes: 16, pieces: Array(repeating: 1, count: body.utf8.count)), whole)
        XCTAssertEqual(whole.count, 4)
    }
}

/// The LF search reads eight bytes at a time: an LF at any offset of a word, and at the
/// end of a read shorter than a word, ends its line there.
final class NDJSONNewlineTests: XCTestCase {
    func testAnLFAtEveryOffsetIsFound() {
        for length in 0..<40 {
            for start in 0...length {
                var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                let found = bytes.withUnsafeBytes { NDJSONLines.firstNewline(in: $0, from: start) }
                XCTAssertNil(found, "no LF in \(length) bytes from \(start)")
                for position in start..<length {
                    bytes[position] = UInt8(ascii: "\n")
                    XCTAssertEqual(bytes.withUnsafeBytes { NDJSONLines.firstNewline(in: $0, from: start) }, position)
                    bytes[position] = 0x8A  // a byte with the LF's low bits and the high bit set is no LF
                    XCTAssertNil(bytes.withUnsafeBytes { NDJSONLines.firstNewline(in: $0, from: start) })
                    bytes[position] = UInt8(ascii: "a")
                }
            }
        }
    }
}
