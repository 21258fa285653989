import Foundation
import XCTest

/// What the end-to-end tests of the endpoints share: the real binary as a server
/// or a command, and temporary files, all gone when the test ends.
class OracleProcessTestCase: XCTestCase {
    private var processes: [ServerProcess] = []
    private var temporaryFiles: [String] = []

    override func tearDown() {
        processes = []
        for file in temporaryFiles { try? FileManager.default.removeItem(atPath: file) }
        temporaryFiles = []
        super.tearDown()
    }

    /// A file holding `text`, removed when the test ends.
    func temporaryFile(_ text: String, suffix: String = ".json") throws -> String {
        let path = NSTemporaryDirectory() + "device-oracle-check-\(UUID().uuidString)\(suffix)"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        temporaryFiles.append(path)
        return path
    }

    /// A path for a file the binary writes, removed when the test ends.
    func temporaryPath(suffix: String) -> String {
        let path = NSTemporaryDirectory() + "device-oracle-output-\(UUID().uuidString)\(suffix)"
        temporaryFiles.append(path)
        return path
    }

    func startServer(_ flags: [String] = []) throws -> (ServerProcess, Int) {
        let server = try ServerProcess(["--host", "127.0.0.1", "--port", "0"] + flags)
        processes.append(server)
        return (server, try XCTUnwrap(server.port, "no startup line; stderr: \(server.stderrText)"))
    }

    func post(_ path: String, _ body: String, port: Int, contentType: String? = "application/json",
              headers: String = "") -> RawExchange? {
        let type = contentType.map { "Content-Type: \($0)\r\n" } ?? ""
        return RawExchange.send("POST \(path) HTTP/1.1\r\nHost: localhost\r\n\(type)\(headers)Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)",
                                port: port)
    }

    func get(_ path: String, port: Int, method: String = "GET") -> RawExchange? {
        RawExchange.send("\(method) \(path) HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n", port: port)
    }

    /// `device-oracle ARGUMENTS`, reading `stdin` (a file holding it) or /dev/null.
    func command(_ arguments: [String], stdin: String? = nil) throws -> ServerProcess {
        var input = "/dev/null"
        if let stdin {
            input = try temporaryFile(stdin)
        }
        let process = try ServerProcess(arguments, stdin: input)
        processes.append(process)
        return process
    }

    func check(_ arguments: [String], stdin: String? = nil) throws -> ServerProcess {
        try command(["check"] + arguments, stdin: stdin)
    }

    func json(_ data: Data) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
    }
}
