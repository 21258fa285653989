import HTTPTestSupport
import XCTest

/// The tests read streamed answers with `ChunkedBody`; a reader that accepted bad
/// framing would let a framing bug in the server pass.
final class ChunkedBodyTests: XCTestCase {
    private func decode(_ text: String) -> ChunkedBody.Decoded { ChunkedBody.decode(Array(text.utf8)) }

    func testChunksAreJoinedAndTheLastChunkEndsTheBody() {
        XCTAssertEqual(decode("5\r\nhello\r\n1\r\n!\r\n0\r\n\r\nnext"), .complete(body: Array("hello!".utf8), consumed: 21))
        XCTAssertEqual(decode("a\r\n0123456789\r\n0\r\n\r\n"), .complete(body: Array("0123456789".utf8), consumed: 20))
    }

    func testACutShortBodyNeedsMoreBytes() {
        for text in ["", "5", "5\r\nhel", "5\r\nhello\r", "5\r\nhello\r\n0\r\n", "5\r\nhello\r\n0\r\n\r"] {
            XCTAssertEqual(decode(text), .incomplete, text.debugDescription)
        }
    }

    func testBadFramingIsMalformed() {
        for text in ["x\r\n", "-1\r\n", "5\r\nhelloXY0\r\n\r\n", "0\r\nno colon\r\n\r\n"] {
            XCTAssertEqual(decode(text), .malformed, text.debugDescription)
        }
    }

    /// A streamed request's answer ends with trailer fields (`Oracle-Verdict`).
    func testTrailerFieldsAfterTheLastChunkAreReadInOrder() {
        let text = "1\r\n!\r\n0\r\nX-Lines: 1\r\nOracle-Verdict: pass\r\n\r\nnext"

        XCTAssertEqual(decode(text), .complete(body: Array("!".utf8), consumed: 45))
        XCTAssertEqual(ChunkedBody.trailerFields(Array(text.utf8)).map { "\($0.0)=\($0.1)" }, ["X-Lines=1", "Oracle-Verdict=pass"])
        XCTAssertEqual(decode("0\r\nX-Lines: 1\r\n"), .incomplete)
    }

    /// The test client reads a long answer as it arrives, going on where it stopped.
    func testABodyReadAsItArrivesIsTheBodyReadWhole() {
        let whole = Array("5\r\nhello\r\n1\r\n!\r\n0\r\nX-Lines: 1\r\n\r\nnext".utf8)
        let complete = ChunkedBody.Decoded.complete(body: Array("hello!".utf8), consumed: 33)
        for cut in 0..<whole.count {
            var reader = ChunkedBody.Reader()
            let early = reader.read(Array(whole[..<cut]))
            let late = reader.read(whole)

            XCTAssertEqual(early.decoded, cut < 33 ? .incomplete : complete, "cut at \(cut)")
            XCTAssertEqual(late.decoded, complete, "cut at \(cut)")
            XCTAssertEqual(late.trailers.map { "\($0.0)=\($0.1)" }, ["X-Lines=1"], "cut at \(cut)")
        }
    }
}
