import DeviceOracleHTTP
import DeviceOracleJSON
import Foundation
import HTTPTestSupport
import Glibc

/// One response as read off the wire.
struct TestResponse {
    let status: Int
    let headers: [(String, String)]
    let body: [UInt8]
    /// A chunked answer's trailer fields.
    var trailers: [(String, String)] = []

    func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    var text: String { String(decoding: body, as: UTF8.self) }
}

/// A blocking loopback TCP client that speaks raw bytes, so tests can send anything.
final class TestConnection: @unchecked Sendable {
    // @unchecked: a test hands a connection to at most one other thread at a time.
    let fd: Int32
    private var buffer: [UInt8] = []
    private(set) var sawEndOfStream = false

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if result != 0 {
            let code = errno
            close(fd)
            throw NSError(domain: "connect", code: Int(code))
        }
    }

    deinit { close(fd) }

    @discardableResult
    func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { return false }
            offset += sent
        }
        return true
    }

    /// Reads more bytes, waiting until `deadline`; false on timeout or end of stream.
    private func fill(until deadline: Date) -> Bool {
        let remaining = deadline.timeIntervalSinceNow
        guard remaining > 0 else { return false }
        return fill(waitingMilliseconds: Int32(remaining * 1000) + 1)
    }

    /// Reads what has already arrived, without waiting.
    private func takeArrived() {
        while fill(waitingMilliseconds: 0) {}
    }

    /// Whether the server has sent anything (or closed) by now, without waiting.
    var hasReceivedBytes: Bool {
        takeArrived()
        return !buffer.isEmpty || sawEndOfStream
    }

    /// Whether the server sends anything (or closes) within `seconds`: a read that waits
    /// at most that long, so a client pacing its sends still hears the answer at once.
    func receivesBytes(within seconds: Double) -> Bool {
        if hasReceivedBytes { return true }
        _ = fill(until: Date(timeIntervalSinceNow: seconds))
        return hasReceivedBytes
    }

    private func fill(waitingMilliseconds: Int32) -> Bool {
        guard !sawEndOfStream else { return false }
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&poller, 1, waitingMilliseconds)
        if ready < 0 && errno == EINTR { return fill(waitingMilliseconds: waitingMilliseconds) }
        guard ready > 0 else { return false }
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count < 0 && errno == EINTR { return fill(waitingMilliseconds: waitingMilliseconds) }
        if count <= 0 {
            sawEndOfStream = true
            return false
        }
        buffer += chunk[0..<count]
        return true
    }

    /// The next response (a `100 Continue` is returned as a response of its own).
    /// `bodyless` for answers to HEAD.
    func readResponse(timeout: Double = 5, bodyless: Bool = false) -> TestResponse? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        let separator: [UInt8] = [13, 10, 13, 10]
        var headEnd: Int?
        while headEnd == nil {
            if let range = firstRange(of: separator) {
                headEnd = range
            } else if !fill(until: deadline) {
                return nil
            }
        }
        guard let headEnd else { return nil }
        let headText = String(decoding: buffer[0..<headEnd], as: UTF8.self)
        var lines = headText.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { return nil }
        let headers = lines.compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        buffer.removeFirst(headEnd + 4)
        if !bodyless, headers.contains(where: { $0.0.lowercased() == "transfer-encoding" && $0.1 == "chunked" }) {
            guard let (body, trailers) = readChunkedBody(until: deadline) else { return nil }
            return TestResponse(status: status, headers: headers, body: body, trailers: trailers)
        }
        var length = 0
        if !bodyless, status >= 200, status != 204, status != 304,
           let value = headers.first(where: { $0.0.lowercased() == "content-length" })?.1 {
            length = Int(value) ?? 0
        }
        while buffer.count < length {
            guard fill(until: deadline) else { return nil }
        }
        let body = Array(buffer[0..<length])
        buffer.removeFirst(length)
        return TestResponse(status: status, headers: headers, body: body)
    }

    /// A chunked body, read until its last chunk has arrived.
    private func readChunkedBody(until deadline: Date) -> ([UInt8], [(String, String)])? {
        var reader = ChunkedBody.Reader()
        while true {
            let (decoded, trailers) = reader.read(buffer)
            switch decoded {
            case .complete(let body, let consumed):
                buffer.removeFirst(consumed)
                return (body, trailers)
            case .malformed:
                return nil
            case .incomplete:
                // Everything that has arrived before reading on: one 64 KiB read at a
                // time made a long body thousands of reads.
                guard fill(until: deadline) else { return nil }
                takeArrived()
            }
        }
    }

    /// True when the server closes the connection within `timeout`; bytes received
    /// meanwhile are collected in `received`.
    func waitForClose(timeout: Double = 5) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while !sawEndOfStream {
            if !fill(until: deadline) && !sawEndOfStream { return false }
        }
        return true
    }

    /// Everything received and not consumed by `readResponse`.
    var received: [UInt8] { buffer }

    private func firstRange(of pattern: [UInt8]) -> Int? {
        guard buffer.count >= pattern.count else { return nil }
        for i in 0...(buffer.count - pattern.count) where buffer[i] == pattern[0] && Array(buffer[i..<i + pattern.count]) == pattern {
            return i
        }
        return nil
    }
}

/// An in-process server on an ephemeral loopback port with test routes.
final class TestServer: Sendable {
    let server: HTTPServer
    let port: Int

    static let routes: [Route] = [
        Route(path: "/hello", methods: [.GET]) { _ in
            HTTPResponse(status: 200, contentType: "text/plain", body: Array("hello".utf8))
        },
        Route(path: "/echo", methods: [.POST], body: .json) { request in
            .json(200, request.body, logFields: [LogField("verdict", "pass")])
        },
        Route(path: "/gate", methods: [.POST], body: .json) { request in  // ?name=N
            HandlerGate.named(String(request.query.dropFirst(5))).pass()
            return .json(200, Array("\(request.body.count)".utf8))
        },
        Route(path: "/megabyte", methods: [.GET]) { _ in
            HTTPResponse(status: 200, contentType: "application/octet-stream", body: [UInt8](repeating: 0x61, count: 1 << 20))
        },
        Route(path: "/stream", methods: [.GET]) { request in  // ?bytes=N
            HTTPResponse(status: 200, contentType: "application/octet-stream",
                         bodyStream: CountingStream(byteCount: Int(request.query.dropFirst(6)) ?? 0))
        },
        Route(path: "/lines", methods: [.POST], body: .json,
              streamed: StreamedBody(mediaTypes: ["application/x-ndjson"]) { _ in UppercaseLines() }) { request in
            .json(200, request.body)
        },
        Route(path: "/count", methods: [.POST],
              streamed: StreamedBody(mediaTypes: ["application/x-ndjson"]) { _ in UppercaseLines(echoes: false) }) { _ in
            HTTPResponse(status: 200)
        },
        Route(path: "/big", methods: [.GET]) { _ in
            HTTPResponse(status: 200, contentType: "application/octet-stream", body: [UInt8](repeating: 0x62, count: 32 << 20))
        },
    ]

    init(_ configure: (inout ServerConfiguration) -> Void = { _ in }) throws {
        var configuration = ServerConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.eventLoops = 2
        configure(&configuration)
        let devNull = open("/dev/null", O_WRONLY)
        server = HTTPServer(configuration: configuration, routes: Self.routes, logger: Logger(level: .warn, fileDescriptor: devNull))
        port = try server.start().port
    }

    func connect() throws -> TestConnection { try TestConnection(port: port) }

    deinit { server.shutdown() }
}

/// A slow handler without a clock: `/gate?name=N` says it has begun, then waits until its
/// test opens gate N (or 30 s pass, so a failed test cannot hang a worker for ever).
final class HandlerGate: Sendable {
    private static let all = Locked<[String: HandlerGate]>([:])
    private let entered = DispatchSemaphore(value: 0)
    private let opened = DispatchSemaphore(value: 0)

    static func named(_ name: String) -> HandlerGate {
        all.withLock { gates in
            if let gate = gates[name] { return gate }
            let gate = HandlerGate()
            gates[name] = gate
            return gate
        }
    }

    fileprivate func pass() {
        entered.signal()
        _ = opened.wait(timeout: .now() + 30)
    }

    /// Whether a handler has reached the gate within `seconds`.
    func handlerWaits(within seconds: Double = 20) -> Bool {
        entered.wait(timeout: .now() + seconds) == .success
    }

    func open() { opened.signal() }
}

/// A body of `byteCount` bytes counting 0, 1, 2… modulo 251, written in pieces of
/// whatever size is asked for, so a test can check every byte arrived in order.
final class CountingStream: HTTPBodyStream, @unchecked Sendable {
    // @unchecked: the server calls it from one thread at a time.
    let length: Int
    private var written = 0

    init(byteCount: Int) {
        length = byteCount
    }

    func byteCount() -> Int { length }

    static func expected(_ byteCount: Int) -> [UInt8] { counted(0..<byteCount) }

    func next(into piece: WrittenBytes, minimum: Int) -> Bool {
        let end = min(length, written + max(minimum, 1))
        piece.append(contentsOf: Self.counted(written..<end))
        written = end
        return written < length
    }

    private static let cycle = (0..<251).map(UInt8.init)

    /// The bytes at `positions`, copied a cycle at a time: byte by byte, a debug build
    /// (and the sanitizers') spent seconds on an 8 MB body.
    private static func counted(_ positions: Range<Int>) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(positions.count)
        var position = positions.lowerBound
        while position < positions.upperBound {
            let offset = position % cycle.count
            let count = min(cycle.count - offset, positions.upperBound - position)
            bytes += cycle[offset..<(offset + count)]
            position += count
        }
        return bytes
    }
}

/// A streamed body's handler that answers each line (LF-terminated; the last may lack
/// it) with the line uppercased, once the first line is complete, and ends with the
/// trailer `X-Lines`: what the NDJSON form does, without JSON. Unless it `echoes`, it
/// only counts the lines.
final class UppercaseLines: StreamedRequestHandler {
    private let echoes: Bool
    private var partial: [UInt8] = []
    private var lines = 0
    private var begun = false

    init(echoes: Bool = true) {
        self.echoes = echoes
    }

    func receive(_ bytes: UnsafeRawBufferPointer, output: inout [UInt8]) -> StreamedProgress {
        // Lines found with memchr and copied whole: a debug build (and the sanitizers')
        // takes a 20 MB body through here, and slices' generic searches took most of the
        // minute that test ran.
        var start = 0
        var completed = false
        while start < bytes.count, let base = bytes.baseAddress,
              let found = memchr(base + start, 10, bytes.count - start) {
            let newline = base.distance(to: UnsafeRawPointer(found))
            partial.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start..<newline]))
            emitLine(to: &output)
            start = newline + 1
            completed = true
        }
        partial.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start...]))
        guard completed else { return .more }
        guard begun else { return begin() }
        return .completedUnit
    }

    func bodyEnded(output: inout [UInt8]) -> StreamedProgress {
        if !partial.isEmpty { emitLine(to: &output) }
        guard begun else { return begin() }
        return .end(trailers: [("X-Lines", "\(lines)")], readsRest: true, logFields: [LogField("verdict", "pass")])
    }

    private func begin() -> StreamedProgress {
        begun = true
        return .begin(HTTPResponse(status: 200, contentType: "application/x-ndjson"), trailers: ["X-Lines"])
    }

    private func emitLine(to output: inout [UInt8]) {
        if echoes {
            let lineStart = output.count
            output += partial
            output.withUnsafeMutableBufferPointer { output in
                for index in lineStart..<output.count where output[index] >= 97 && output[index] <= 122 {
                    output[index] -= 32
                }
            }
            output.append(10)
        }
        partial.removeAll(keepingCapacity: true)
        lines += 1
    }
}
