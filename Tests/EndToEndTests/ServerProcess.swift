import Foundation
import HTTPTestSupport
import XCTest

/// The built `device-oracle` binary, run as a child process with stdout and stderr in
/// files (nothing to drain while it runs). Spawned with posix_spawn and reaped with
/// waitpid, so the test alone decides when descriptors close and the child dies; the
/// child is killed when this object goes away, so keep it while the test needs the server.
final class ServerProcess {
    static var binary: String {
        // On Linux the test bundle is an executable in .build/<config>/, beside device-oracle.
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = bundle.deletingLastPathComponent()
        while directory.path != "/" {
            let candidate = directory.appendingPathComponent("device-oracle").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return bundle.deletingLastPathComponent().appendingPathComponent("device-oracle").path
    }

    private(set) var pid: pid_t = 0
    private var exitStatus: Int32?
    private let directory: String
    private var stdoutPath: String { directory + "/stdout" }
    private var stderrPath: String { directory + "/stderr" }

    /// `stdin` is a file the child reads as standard input (default: /dev/null).
    convenience init(_ arguments: [String], environment: [String: String] = [:], stdin: String = "/dev/null") throws {
        try self.init(arguments: arguments.map { Array($0.utf8) }, environment: environment, stdin: stdin)
    }

    /// Arguments as raw bytes, which need not be UTF-8 (a Linux file name need not be).
    init(arguments: [[UInt8]], environment: [String: String] = [:], stdin: String = "/dev/null") throws {
        directory = NSTemporaryDirectory() + "device-oracle-e2e-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var merged = ProcessInfo.processInfo.environment
        for name in ["HOST", "PORT", "MAX_BODY_BYTES", "MAX_CONNECTIONS", "HEADER_TIMEOUT", "BODY_TIMEOUT",
                     "SEND_TIMEOUT", "IDLE_TIMEOUT", "LOG_LEVEL"] {
            merged.removeValue(forKey: name)
        }
        merged.merge(environment) { $1 }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, stdin, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let argv = ([Array(Self.binary.utf8)] + arguments).map { bytes in
            (bytes + [0]).withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { strdup($0.baseAddress!) } }
        } + [nil]
        let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        let result = posix_spawn(&pid, Self.binary, &actions, nil, argv, envp)
        guard result == 0 else { throw NSError(domain: "posix_spawn", code: Int(result)) }
    }

    deinit {
        if isRunning {
            kill(pid, SIGKILL)
            _ = waitForExit()
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    var isRunning: Bool {
        guard exitStatus == nil else { return false }
        var status: Int32 = 0
        guard waitpid(pid, &status, WNOHANG) == pid else { return true }
        // WIFEXITED / WEXITSTATUS by hand: Swift cannot call the macros.
        exitStatus = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return false
    }

    var stdoutText: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
    var stdoutBytes: Data { FileManager.default.contents(atPath: stdoutPath) ?? Data() }
    var stderrText: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }
    var stderrBytes: Data { FileManager.default.contents(atPath: stderrPath) ?? Data() }

    /// Complete stdout lines parsed as JSON objects.
    var logLines: [[String: Any]] {
        stdoutText.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// The startup line, waiting for it up to `timeout` seconds.
    func startupLine(timeout: Double = 20) -> [String: Any]? {
        var line: [String: Any]?
        _ = eventually(within: timeout) {
            line = logLines.first { $0["msg"] as? String == "listening" }
            return line != nil || !isRunning
        }
        return line
    }

    var port: Int? { startupLine()?["port"] as? Int }

    /// Waits for the process to exit; its exit status (128 + signal if killed), or nil on timeout.
    func waitForExit(timeout: Double = 20) -> Int32? {
        _ = eventually(within: timeout) { !isRunning }
        return exitStatus
    }

    func terminate() { kill(pid, SIGTERM) }
}

/// One raw HTTP/1.1 exchange on loopback: sends `request` as is, reads until the server
/// closes (send `Connection: close`) or `timeout`, and splits the answer.
struct RawExchange {
    var status = 0
    var head = ""
    var body = Data()

    func header(_ name: String) -> String? {
        for line in head.components(separatedBy: "\r\n").dropFirst() {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == name.lowercased() {
                return parts[1].trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }

    /// The body with a chunked transfer coding removed, if it has one; nil when the
    /// chunks are malformed, cut short, or followed by anything.
    var payload: Data? {
        guard header("Transfer-Encoding") == "chunked" else { return body }
        guard case .complete(let payload, let consumed) = ChunkedBody.decode(body), consumed == body.count else { return nil }
        return Data(payload)
    }

    static func send(_ request: String, port: Int, timeout: Double = 10) -> RawExchange? {
        guard let socket = RawSocket(port: port) else { return nil }
        socket.send(request)
        let data = socket.readUntilClosed(timeout: timeout)
        guard let separator = data.range(of: Data("\r\n\r\n".utf8)) else { return nil }
        var exchange = RawExchange()
        exchange.head = String(decoding: data[..<separator.lowerBound], as: UTF8.self)
        exchange.body = data[separator.upperBound...]
        exchange.status = Int(exchange.head.split(separator: " ").dropFirst().first ?? "") ?? 0
        return exchange
    }
}

final class RawSocket {
    let fd: Int32

    init?(port: Int) {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if result != 0 {
            close(fd)
            return nil
        }
    }

    deinit { close(fd) }

    func send(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Reads whatever arrives within `timeout` seconds, stopping early once `stop` says so.
    func read(timeout: Double, stop: (Data) -> Bool = { _ in false }) -> (Data, closed: Bool) {
        let deadline = Date(timeIntervalSinceNow: timeout)
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 65536)
        while !stop(data) {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { return (data, false) }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(remaining * 1000) + 1)
            if ready < 0 && errno == EINTR { continue }  // child processes' signals interrupt waits
            guard ready > 0 else { return (data, false) }
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return (data, true) }
            data.append(contentsOf: chunk[0..<count])
        }
        return (data, false)
    }

    func readUntilClosed(timeout: Double) -> Data { read(timeout: timeout).0 }
}
