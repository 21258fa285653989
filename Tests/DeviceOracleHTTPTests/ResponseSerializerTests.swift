@testable import DeviceOracleHTTP
import Glibc
import XCTest

/// A response head says the status, the date, nosniff, the body's type and length (or
/// its chunked coding), the handler's fields in order, and the Connection field when
/// one is due, each line once, in that order.
final class ResponseSerializerTests: XCTestCase {
    private let date = Array("Date: Sun, 06 Dec 2026 17:00:00 GMT\r\n".utf8)

    /// What `append` writes, as text (read back through a socket pair: the queue's bytes are its own).
    private func written(_ response: HTTPResponse, omitBody: Bool = false,
                         connection: ResponseSerializer.ConnectionField = .none,
                         framing: ResponseSerializer.BodyFraming = .whole) throws -> String {
        var queue = OutputQueue()
        date.withUnsafeBytes {
            ResponseSerializer.append(response, to: &queue, date: $0, omitBody: omitBody, connection: connection,
                                      framing: framing)
        }
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds), 0)
        defer { close(fds[0]); close(fds[1]) }
        var progress = false
        XCTAssertTrue(queue.send(to: fds[0], progress: &progress))
        XCTAssertTrue(queue.isEmpty)
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { read(fds[1], $0.baseAddress, $0.count) }
        return String(decoding: buffer[..<max(count, 0)], as: UTF8.self)
    }

    private let nosniff = "X-Content-Type-Options: nosniff\r\n"

    func testAJSONAnswerStatesItsTypeAndLengthThenTheHandlersFields() throws {
        let body = Array(#"{"verdict":"pass"}"#.utf8)
        let response = HTTPResponse.json(200, body, headers: [("Oracle-Verdict", "pass"), ("X-Longer-Name-Than-Small", "a value past fifteen bytes")])
        XCTAssertEqual(try written(response),
                       "HTTP/1.1 200 OK\r\n" + String(decoding: date, as: UTF8.self) + nosniff
                       + "Content-Type: application/json\r\nContent-Length: 18\r\nOracle-Verdict: pass\r\n"
                       + "X-Longer-Name-Than-Small: a value past fifteen bytes\r\n\r\n" + #"{"verdict":"pass"}"#)
    }

    func testAHeadAnswerKeepsTheLengthWithoutTheBody() throws {
        let response = HTTPResponse.json(200, Array(repeating: UInt8(ascii: " "), count: 1234))
        XCTAssertEqual(try written(response, omitBody: true, connection: .keepAlive),
                       "HTTP/1.1 200 OK\r\n" + String(decoding: date, as: UTF8.self) + nosniff
                       + "Content-Type: application/json\r\nContent-Length: 1234\r\nConnection: keep-alive\r\n\r\n")
    }

    func testAStatusWithoutAFixedLineAndAnotherTypeAreWrittenPieceByPiece() throws {
        let response = HTTPResponse(status: 201, contentType: "text/plain", body: Array("made".utf8))
        XCTAssertEqual(try written(response, connection: .close),
                       "HTTP/1.1 201 Created\r\n" + String(decoding: date, as: UTF8.self) + nosniff
                       + "Content-Type: text/plain\r\nContent-Length: 4\r\nConnection: close\r\n\r\nmade")
    }

    func testAStreamStatesItsCodingOrItsCountedLength() throws {
        let response = HTTPResponse.json(200, [])
        let head = "HTTP/1.1 200 OK\r\n" + String(decoding: date, as: UTF8.self) + nosniff + "Content-Type: application/json\r\n"
        XCTAssertEqual(try written(response, framing: .chunked), head + "Transfer-Encoding: chunked\r\n\r\n")
        XCTAssertEqual(try written(response, framing: .length(Int.max)), head + "Content-Length: \(Int.max)\r\n\r\n")
        XCTAssertEqual(try written(response, connection: .close, framing: .closeDelimited), head + "Connection: close\r\n\r\n")
    }

    func testNoContentHasNoLength() throws {
        XCTAssertEqual(try written(HTTPResponse(status: 204), connection: .close),
                       "HTTP/1.1 204 No Content\r\n" + String(decoding: date, as: UTF8.self) + nosniff
                       + "Connection: close\r\n\r\n")
    }

    func testLengthsOfEveryDigitCount() throws {
        for length in [0, 9, 10, 99, 100, 65_535, 1_000_000, 999_999_999_999] {
            XCTAssertTrue(try written(HTTPResponse.json(200, []), omitBody: true, framing: .length(length))
                .contains("Content-Length: \(length)\r\n\r\n"), "\(length)")
        }
    }
}
