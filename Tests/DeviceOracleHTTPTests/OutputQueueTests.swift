@testable import DeviceOracleHTTP
import DeviceOracleJSON
import Glibc
import XCTest

/// The output queue delivers exactly the bytes written, in order, however the socket
/// splits them and wherever a blocked send hands the rest over to a queue of its own.
final class OutputQueueTests: XCTestCase {
    private func pattern(_ count: Int, seed: UInt8) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31) &+ seed }
    }

    /// Arrays and written pieces in turn: both kinds of body sent by reference.
    private func body(_ bytes: [UInt8], number: Int) -> OutputQueue.Body {
        guard number % 2 == 1 else { return .array(bytes) }
        let piece = WrittenBytes()
        piece.append(contentsOf: bytes)
        return .written(piece)
    }

    func testBytesAndBodiesByReferenceArriveInOrderAcrossPartialSends() throws {
        let large = OutputQueue.bodyByReferenceBytes
        let pieces: [(text: [UInt8], body: [UInt8])] = [
            (Array("head one\r\n\r\n".utf8), pattern(large + 5, seed: 1)),
            (Array("head two\r\n\r\n".utf8), pattern(100, seed: 2)),  // small: copied
            (Array("head three\r\n\r\n".utf8), pattern(3 * large, seed: 3)),
            (Array("head four\r\n\r\n".utf8), pattern(large, seed: 4)),
        ]
        var expected: [UInt8] = []
        for piece in pieces { expected += piece.text + piece.body }
        expected += Array("tail".utf8)

        for sendBuffer in [1024, 4096, 10_000] {
            var queue = OutputQueue()
            for (number, piece) in pieces.enumerated() {
                piece.text.withUnsafeBytes { queue.append($0) }
                queue.append(body: body(piece.body, number: number))
            }
            queue.append("tail")
            XCTAssertEqual(queue.count, expected.count)

            var fds: [Int32] = [0, 0]
            XCTAssertEqual(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds), 0)
            defer { close(fds[0]); close(fds[1]) }
            var size = Int32(sendBuffer)
            setsockopt(fds[0], SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
            _ = fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK)
            _ = fcntl(fds[1], F_SETFL, fcntl(fds[1], F_GETFL) | O_NONBLOCK)

            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 8192)
            var rounds = 0
            while !queue.isEmpty {
                rounds += 1
                var progress = false
                XCTAssertTrue(queue.send(to: fds[0], progress: &progress))
                // What a blocked connection does: its unsent rest moves to a queue of its own.
                queue = queue.takeUnsent()
                while true {
                    let count = buffer.withUnsafeMutableBytes { read(fds[1], $0.baseAddress, $0.count) }
                    if count <= 0 { break }
                    received += buffer[0..<count]
                }
                XCTAssertEqual(queue.count, expected.count - received.count, "buffer \(sendBuffer)")
                if rounds > 10_000 { return XCTFail("no progress with a \(sendBuffer)-byte buffer") }
            }
            XCTAssertEqual(received, expected, "buffer \(sendBuffer)")
            XCTAssertGreaterThan(rounds, 1, "the sends were partial")
        }
    }
}
