import DeviceOracleHTTP
import Foundation
import XCTest

/// Request bodies handled as they arrive, over real loopback sockets: the `/lines` route
/// of `TestServer` answers each line uppercased and ends with the trailer `X-Lines`.
/// The rules themselves are `ConnectionStateMachineTests`; these show the loop performs them.
final class StreamedRequestTests: XCTestCase {
    private func head(_ framing: String, version: String = "1.1") -> String {
        "POST /lines HTTP/\(version)\r\nHost: t\r\nContent-Type: application/x-ndjson\r\n\(framing)\r\n\r\n"
    }

    private func chunk(_ text: String) -> String {
        String(text.utf8.count, radix: 16) + "\r\n" + text + "\r\n"
    }

    func testAChunkedBodyIsAnsweredLineByLineWithItsTrailer() throws {
        let server = try TestServer()
        let connection = try server.connect()

        connection.send(head("Transfer-Encoding: chunked") + chunk("one\ntw") + chunk("o\nthree") + "0\r\n\r\n")
        let response = try XCTUnwrap(connection.readResponse())

        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.header("Content-Type"), "application/x-ndjson")
        XCTAssertEqual(response.header("Transfer-Encoding"), "chunked")
        XCTAssertEqual(response.header("Trailer"), "X-Lines")
        XCTAssertEqual(response.text, "ONE\nTWO\nTHREE\n")
        XCTAssertEqual(response.trailers.first { $0.0 == "X-Lines" }?.1, "3")
    }

    func testAContentLengthBodyIsAnsweredTheSameWay() throws {
        let server = try TestServer()
        let connection = try server.connect()
        let body = "a\nb\n"

        connection.send(head("Content-Length: \(body.utf8.count)") + body)
        let response = try XCTUnwrap(connection.readResponse())

        XCTAssertEqual(response.text, "A\nB\n")
        XCTAssertEqual(response.trailers.first { $0.0 == "X-Lines" }?.1, "2")
    }

    func testARequestPipelinedAfterAStreamIsAnsweredOnTheSameConnection() throws {
        let server = try TestServer()
        let connection = try server.connect()

        connection.send(head("Transfer-Encoding: chunked") + chunk("x\n") + "0\r\n\r\n" + "GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")

        XCTAssertEqual(connection.readResponse()?.text, "X\n")
        XCTAssertEqual(connection.readResponse()?.text, "hello")
    }

    func testAnHTTP10ClientGetsTheAnswerCloseDelimited() throws {
        let server = try TestServer()
        let connection = try server.connect()

        connection.send(head("Content-Length: 2", version: "1.0") + "q\n")

        XCTAssertTrue(connection.waitForClose())
        let text = String(decoding: connection.received, as: UTF8.self)
        XCTAssertTrue(text.hasPrefix("HTTP/1.1 200 OK\r\n"), text)
        XCTAssertTrue(text.contains("Connection: close\r\n"))
        XCTAssertFalse(text.contains("Content-Length"))
        XCTAssertFalse(text.contains("Transfer-Encoding"))
        XCTAssertTrue(text.hasSuffix("\r\n\r\nQ\n"), text)
    }

    func testAJSONBodyOnAStreamedRouteIsStillReadWhole() throws {
        let server = try TestServer()
        let connection = try server.connect()

        connection.send("POST /lines HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 3\r\n\r\n[1]")

        XCTAssertEqual(connection.readResponse()?.text, "[1]")
    }

    func testTwentyMegabytesStreamThroughWhileTheClientReads() throws {
        let server = try TestServer()
        let connection = try server.connect()
        let line = Array(String(repeating: "abcdefghij", count: 10).utf8) + [10]  // 101 bytes
        let linesPerChunk = 1000, chunks = 200  // 20.2 MB
        let piece = Array((String(line.count * linesPerChunk, radix: 16) + "\r\n").utf8)
            + Array(repeating: line, count: linesPerChunk).flatMap { $0 } + [13, 10]

        let head = head("Transfer-Encoding: chunked")
        let writer = Thread {
            connection.send(head)
            for _ in 0..<chunks { connection.send(piece) }
            connection.send("0\r\n\r\n")
        }
        writer.start()
        let response = try XCTUnwrap(connection.readResponse(timeout: 120))

        XCTAssertEqual(response.body.count, line.count * linesPerChunk * chunks)
        XCTAssertEqual(Array(response.body.prefix(line.count)), Array(String(repeating: "ABCDEFGHIJ", count: 10).utf8) + [10])
        XCTAssertEqual(response.trailers.first { $0.0 == "X-Lines" }?.1, "\(linesPerChunk * chunks)")
    }
}

/// Memory stays flat however long a streamed body is: reading stops while the answer
/// waits for the peer, and nothing of the body is kept. Opt-in, since it moves a
/// gigabyte: `STREAM_RSS_BYTES=1073741824 swift test --filter StreamedMemoryTests`.
final class StreamedMemoryTests: XCTestCase {
    private static var residentBytes: Int {
        let statm = (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8)) ?? ""
        let pages = statm.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// Posts `bytes` of 101-byte lines chunked to `path` from one thread while another
    /// reads and throws away the answer; returns the peak growth of the process's RSS.
    private func peakGrowth(path: String, bytes: Int) throws -> Int {
        let server = try TestServer()
        let connection = try server.connect()
        let line = Array(String(repeating: "abcdefghij", count: 10).utf8) + [10]
        let linesPerChunk = 640
        let chunks = bytes / (line.count * linesPerChunk)
        let piece = Array((String(line.count * linesPerChunk, radix: 16) + "\r\n").utf8)
            + Array(repeating: line, count: linesPerChunk).flatMap { $0 } + [13, 10]
        let idle = Self.residentBytes
        var peak = idle
        // Sampled as each chunk goes and as the answer arrives: both sides of the stream.
        let sendingPeak = Locked(idle), sent = DispatchSemaphore(value: 0)
        Thread {
            connection.send("POST \(path) HTTP/1.1\r\nHost: t\r\nContent-Type: application/x-ndjson\r\nTransfer-Encoding: chunked\r\n\r\n")
            var peak = idle
            for _ in 0..<chunks {
                connection.send(piece)
                peak = max(peak, Self.residentBytes)
            }
            connection.send("0\r\n\r\n")
            sendingPeak.value = peak
            sent.signal()
        }.start()
        let end = Array("X-Lines: \(chunks * linesPerChunk)\r\n\r\n".utf8)
        var tail: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 256 * 1024)
        while !tail.elementsEqual(end) {
            let count = buffer.withUnsafeMutableBytes { recv(connection.fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            tail = Array((tail + buffer[0..<count]).suffix(end.count))
            peak = max(peak, Self.residentBytes)
        }
        _ = sent.wait(timeout: .now() + 60)
        peak = max(peak, sendingPeak.value)
        XCTAssertEqual(tail, end, "the answer ended with its trailer")
        print("\(path): idle RSS \(idle >> 10) KiB, peak \(peak >> 10) KiB")
        return peak - idle
    }

    func testAGigabyteStreamedThroughKeepsTheProcessFlat() throws {
        guard let bytes = ProcessInfo.processInfo.environment["STREAM_RSS_BYTES"].flatMap(Int.init) else {
            throw XCTSkip("set STREAM_RSS_BYTES to run")
        }
        let quiet = try peakGrowth(path: "/count", bytes: bytes)
        let echoing = try peakGrowth(path: "/lines", bytes: bytes)
        print("streamed \(bytes) bytes: peak RSS growth \(quiet >> 10) KiB writing little, \(echoing >> 10) KiB writing a line per line")
        XCTAssertLessThan(quiet, 32 << 20)
        XCTAssertLessThan(echoing, 64 << 20)
    }
}
