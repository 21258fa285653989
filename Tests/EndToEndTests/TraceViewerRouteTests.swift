import Foundation
import XCTest

/// `GET /`: the trace viewer is one self-contained page, served from the binary.
/// What it does in a browser is `Tests/browser/viewer_e2e.py`'s business.
final class TraceViewerRouteTests: OracleProcessTestCase {
    func testTheViewerIsTheRepositoryPageAsHTMLLockedToThisOrigin() throws {
        let (_, port) = try startServer()
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/device-oracle/viewer.html")

        let response = try XCTUnwrap(get("/", port: port))

        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.header("Content-Type"), "text/html; charset=utf-8")
        XCTAssertEqual(response.body, try Data(contentsOf: source))
        let policy = try XCTUnwrap(response.header("Content-Security-Policy"))
        XCTAssertTrue(policy.hasPrefix("default-src 'none';"), policy)
        XCTAssertTrue(policy.contains("connect-src 'self'"), policy)
        XCTAssertEqual(response.header("Cache-Control"), "no-cache")
        XCTAssertEqual(response.header("X-Content-Type-Options"), "nosniff")
    }

    func testThePolicyRunsThePagesOwnScriptByItsHashAndNoOtherInlineScript() throws {
        let (_, port) = try startServer()

        let response = try XCTUnwrap(get("/", port: port))

        let page = String(decoding: response.body, as: UTF8.self)
        XCTAssertEqual(page.components(separatedBy: "<script").count, 2, "one script element")
        let script = try XCTUnwrap(page.components(separatedBy: "<script>").dropFirst().first?.components(separatedBy: "</script>").first)
        // The digest from coreutils, not from the binary's own SHA-256.
        let digest = try sha256sum(Data(script.utf8))
        let policy = try XCTUnwrap(response.header("Content-Security-Policy"))
        let scriptSources = policy.components(separatedBy: "; ").filter { $0.hasPrefix("script-src ") }
        XCTAssertEqual(scriptSources, ["script-src 'sha256-\(digest.base64EncodedString())'"], policy)
    }

    func testThePageHasNoInlineEventHandlerOrJavaScriptURL() throws {
        let (_, port) = try startServer()

        let page = String(decoding: try XCTUnwrap(get("/", port: port)).body, as: UTF8.self)

        // A hash-only policy blocks `onclick="…"` and `javascript:` URLs: handlers are
        // added with addEventListener, in markup and in the HTML the script writes.
        let handler = try NSRegularExpression(pattern: #"<[^>]*\son[a-z]+\s*="#, options: .caseInsensitive)
        XCTAssertEqual(handler.numberOfMatches(in: page, range: NSRange(page.startIndex..., in: page)), 0)
        XCTAssertFalse(page.lowercased().contains("javascript:"))
    }

    private func sha256sum(_ data: Data) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(data)
        try input.fileHandleForWriting.close()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let hex = Array(text.prefix(64).utf8)
        XCTAssertEqual(hex.count, 64, text)
        return Data(stride(from: 0, to: hex.count, by: 2).compactMap { UInt8(String(decoding: hex[$0..<$0 + 2], as: UTF8.self), radix: 16) })
    }

    func testThePageLoadsNothingFromAnywhere() throws {
        let (_, port) = try startServer()

        let page = String(decoding: try XCTUnwrap(get("/", port: port)).body, as: UTF8.self)

        XCTAssertTrue(page.hasPrefix("<!doctype html>"))
        // No CDN, no web fonts, no analytics: not one absolute URL, even in a comment.
        for reference in ["http://", "https://", "@import", "@font-face"] {
            XCTAssertFalse(page.lowercased().contains(reference), "the page holds \(reference)")
        }
        // CSS and SVG `url(…)` only to the page's own fragments (`url(#arrow-taken)`).
        let foreignURL = try NSRegularExpression(pattern: #"(?<![0-9A-Za-z])url\((?!#)"#)
        XCTAssertEqual(foreignURL.numberOfMatches(in: page, range: NSRange(page.startIndex..., in: page)), 0)
        // Every script and style is inline; the only links are to the page itself.
        XCTAssertFalse(page.contains("<script src"))
        XCTAssertFalse(page.contains("<link"))
        let hrefs = page.components(separatedBy: "href=\"").dropFirst().map { $0.prefix { $0 != "\"" } }
        XCTAssertTrue(hrefs.allSatisfy { $0.hasPrefix("#") }, "\(hrefs)")
    }

    func testHeadAnswersTheHeadersAndPostIs405() throws {
        let (_, port) = try startServer()

        let page = try XCTUnwrap(get("/", port: port))
        let head = try XCTUnwrap(get("/", port: port, method: "HEAD"))
        let posted = try XCTUnwrap(post("/", "{}", port: port))

        XCTAssertEqual(head.status, 200)
        XCTAssertEqual(head.header("Content-Length"), "\(page.body.count)")
        XCTAssertTrue(head.body.isEmpty)
        XCTAssertEqual(posted.status, 405)
        XCTAssertEqual(posted.header("Allow"), "GET, HEAD")
    }
}
