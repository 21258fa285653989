import Foundation
import XCTest

/// `device-oracle check` with file names that are not UTF-8: Linux allows any bytes
/// but `/` and NUL, and the command opens and writes exactly the names it was given.
final class CheckPathTests: OracleProcessTestCase {
    /// `…-\xFF\xFE<suffix>` in the temporary directory; created with `contents` when given.
    /// Removed when the test ends.
    private func nonUTF8Path(suffix: String, contents: String? = nil) throws -> [UInt8] {
        let path = Array((NSTemporaryDirectory() + "device-oracle-path-\(UUID().uuidString)-").utf8) + [0xFF, 0xFE] + Array(suffix.utf8)
        addTeardownBlock { _ = (path + [0]).withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { unlink($0.baseAddress!) } } }
        if let contents {
            let fd = (path + [0]).withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_WRONLY | O_CREAT | O_EXCL, 0o600) } }
            XCTAssertGreaterThanOrEqual(fd, 0, String(cString: strerror(errno)))
            XCTAssertEqual(Array(contents.utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }, contents.utf8.count)
            close(fd)
        }
        return path
    }

    private func contents(of path: [UInt8]) -> Data? {
        let fd = (path + [0]).withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_RDONLY) } }
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return FileHandle(fileDescriptor: fd).readDataToEndOfFile()
    }

    private func run(_ arguments: [[UInt8]]) throws -> ServerProcess {
        let process = try ServerProcess(arguments: arguments)
        _ = process.waitForExit()
        return process
    }

    func testCheckReadsAFileWhoseNameIsNotUTF8() throws {
        let log = try nonUTF8Path(suffix: ".json", contents: #"{"events":[{"type":"userPlayed","observed":{"isPlaying":true}}]}"#)

        let checked = try run([Array("check".utf8), Array("playback".utf8), log])

        XCTAssertEqual(checked.waitForExit(), 0, checked.stderrText)
        XCTAssertEqual(try json(checked.stdoutBytes)["verdict"] as? String, "pass")
    }

    func testCheckJUnitReadsAndWritesFilesWhoseNamesAreNotUTF8() throws {
        let log = try nonUTF8Path(suffix: ".json", contents: #"{"ruleset":"playback/1","events":[{"type":"userPlayed","observed":{"isPlaying":true}}]}"#)
        let report = try nonUTF8Path(suffix: ".xml")

        let checked = try run([Array("check".utf8), Array("--junit".utf8), report, log])
        let equalsForm = try run([Array("check".utf8), Array("--junit=".utf8) + report, log])

        XCTAssertEqual(checked.waitForExit(), 0, checked.stderrText)
        XCTAssertEqual(equalsForm.waitForExit(), 0, equalsForm.stderrText)
        let xml = String(decoding: try XCTUnwrap(contents(of: report), "no report at the given name"), as: UTF8.self)
        XCTAssertTrue(xml.contains(#"tests="1" failures="0" errors="0""#), xml)
        // The testcase names the file; XML is UTF-8, so the two bytes show as U+FFFD.
        XCTAssertTrue(xml.contains(String(decoding: log, as: UTF8.self)), xml)
        // The summary names the report by its own bytes.
        XCTAssertEqual(Array(checked.stdoutBytes.suffix(report.count + 1)), report + [UInt8(ascii: "\n")])
    }

    func testCheckNamesAnUnreadableNonUTF8FileByItsOwnBytes() throws {
        let missing = try nonUTF8Path(suffix: ".json")

        let checked = try run([Array("check".utf8), Array("playback".utf8), missing])

        XCTAssertEqual(checked.waitForExit(), 2)
        let stderr = Array(checked.stderrBytes)
        XCTAssertNotNil(stderr.firstRange(of: Array("cannot read ".utf8) + missing + Array(": No such file".utf8)),
                        String(decoding: stderr, as: UTF8.self))
    }
}
