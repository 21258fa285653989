import DeviceOracleJSON
import Foundation
import XCTest
@testable import DeviceOracleWire

/// Generated Swift (`?format=xctest|swift-testing`) holds text from the log: its ids and
/// members in a raw string literal, the value the device showed in a comment. Whatever
/// that text is, the file parses, the literal reads back as the request, and no scalar
/// that could hide or reorder source (controls, bidi controls, U+2028, U+2029) is
/// written as it is. The literals are read here scalar by scalar, as swiftc reads
/// them; `.ci/generated-tests` runs `swiftc -parse` on such files.
final class GeneratedSwiftEscapingTests: XCTestCase {
    /// Strings that broke, or could break, a literal or a comment.
    static let adversarial: [String] = [
        "\"", "\\", "#", "\\#", "\"#", "\"\"\"#", "\"\"\"##", "#\"\"\"", "\\##\"\"\"##", "\\(x)", "\\#(x)", "\\u{41}",
        "\\#\u{200D}", "\\#\u{20E3}", "\\#\u{FE0F}", "\"#\u{FE0F}", "\"\"\"#\u{200D}", "#\u{FE0F}\u{20E3}",
        "\\##\u{200D}#", "\\\u{301}#", "\"\u{301}", "\u{301}", "e\u{301}", "#\u{301}\u{302}",
        "\u{0}", "\u{7}", "\t", "\n", "\r", "\r\n", "\u{7F}", "\u{85}", "\u{9F}", "\u{FEFF}", "\u{200B}",
        "\u{061C}", "\u{200E}", "\u{200F}", "\u{202A}", "\u{202B}", "\u{202C}", "\u{202D}", "\u{202E}",
        "\u{2066}", "\u{2067}", "\u{2068}", "\u{2069}", "\u{2028}", "\u{2029}",
        "/*", "*/", "// \u{202E} \"#", "access\u{202E} \u{2066}// check\u{2069} \u{2066}",
        "👨‍👩‍👧", "café", "\u{10FFFF}", "\u{FFFD}",
    ]

    /// A failing log of each ruleset whose diverging event carries `text` as its id and
    /// shows `text` as a string where the rules expect another value.
    private static func logs(_ text: String) -> [(RulesetEndpoint, String)] {
        let s = jsonString(text)
        return [
            (PlaybackRuleset.endpoint,
             #"{"events":[{"type":"userPlayed"},{"type":"userPaused","id":\#(s),"session":\#(s),"observed":{"action":\#(s)}}]}"#),
            (HapticsRuleset.endpoint, #"{"events":[{"type":"saveTapped","id":\#(s),"observed":{"phase":\#(s)}}]}"#),
            (RefreshRuleset.endpoint, #"{"runs":[{"at":0,"pages":[],"id":\#(s),"observed":{"cursor":\#(s)}}]}"#),
            (AudioSessionRuleset.endpoint,
             #"{"events":[{"type":"enteredForeground","id":\#(s),"observed":{"actions":[\#(s)]}}]}"#),
            // A divergence of the final state: the note names `observedFinal`'s value.
            (PlaybackRuleset.endpoint, #"{"events":[{"type":"userPlayed","id":\#(s)}],"observedFinal":{"isPlaying":\#(s)}}"#),
        ]
    }

    func testEveryGeneratedFileReadsBackAsItsRequestWhateverTheLogsStrings() throws {
        var files = 0
        for text in Self.adversarial {
            for (endpoint, log) in Self.logs(text) {
                for format in [AnswerFormat.xctest, .swiftTesting] {
                    let bytes = try endpoint.repro(Array(log.utf8), format: format).get()
                    let file = String(decoding: bytes, as: UTF8.self)
                    let context = "\(endpoint.name) \(format) \(text.unicodeScalars.map { String($0.value, radix: 16) })"
                    XCTAssertEqual(Self.rawlyWritten(in: file), [], context)
                    let literals = try XCTUnwrap(SwiftRawLiterals.values(in: file), "a literal does not read: \(context)\n\(file)")
                    XCTAssertEqual(literals.count, 1, context)
                    // The literal is the repro's request, which keeps the id as the log gave it.
                    // (Foundation's JSON reader drops a U+FEFF inside a string: the service's is used.)
                    let request = try JSONReader.parse(Array(try XCTUnwrap(literals.first).utf8))
                    let events = try XCTUnwrap(request.member(request.root, "events") ?? request.member(request.root, "runs"))
                    let last = try XCTUnwrap(Array(request.elements(events)).last)
                    XCTAssertEqual(request.member(last, "id").flatMap(request.string), text, context)
                    files += 1
                }
            }
        }
        XCTAssertEqual(files, Self.adversarial.count * 10)
    }

    func testARawStringCountsHashesOverScalarsNotCharacters() {
        // `\#` then U+200D is one Character, `#` and the joiner: the old count missed it.
        let literal = GeneratedTests.rawString("{\"id\":\"\\\\#\u{200D}\"}", indent: "")
        XCTAssert(literal.hasPrefix("##\"\"\"\n"), literal)
        XCTAssertEqual(SwiftRawLiterals.value(of: literal), "{\"id\":\"\\\\#\u{200D}\"}")
    }

    func testBidiControlsAndLineSeparatorsAreEscapedInLiteralsAndComments() {
        XCTAssertEqual(GeneratedTests.rawString("a\u{202E}b\u{2028}c\u{7F}", indent: "  "),
                       "#\"\"\"\n  a\\#u{202E}b\\#u{2028}c\\#u{7F}\n  \"\"\"#")
        XCTAssertEqual(GeneratedTests.commentText("x = \"\u{2066}\u{2029}\r\""), "x = \"\\u{2066}\\u{2029}\\u{D}\"")
        // Ordinary text, non-ASCII included, is written as it is.
        XCTAssertEqual(GeneratedTests.commentText("x = \"café 👨‍👩‍👧 #\\\""), "x = \"café 👨‍👩‍👧 #\\\"")
        XCTAssertEqual(GeneratedTests.rawString("{\"a\":\"é\"}\n[1]", indent: ""), "#\"\"\"\n{\"a\":\"é\"}\n[1]\n\"\"\"#")
    }

    /// The scalars of `file` that generated Swift must escape, but for the LFs between lines.
    private static func rawlyWritten(in file: String) -> [UInt32] {
        file.unicodeScalars.filter { $0 != "\n" && GeneratedTests.escapes($0) }.map(\.value)
    }

    /// `text` as a JSON string, escaped the least RFC 8259 allows: U+2028 and the bidi
    /// controls stay as they are, so the request carries them raw.
    private static func jsonString(_ text: String) -> String {
        JSON.string(text).description
    }
}

/// The raw multi-line string literals of a Swift file, read as the compiler reads them:
/// scalar by scalar, `#"""` … `"""#` with any number of `#`, the only escapes the
/// `\#u{…}` ones (a generated request interpolates nothing), each content line after
/// the closing delimiter's indentation. `nil` when one does not read so.
enum SwiftRawLiterals {
    static func values(in file: String) -> [String]? {
        let scalars = Array(file.unicodeScalars)
        var values: [String] = [], index = 0
        while let open = opening(in: scalars, from: index) {
            guard let (value, end) = literal(scalars, hashes: open.hashes, contentStart: open.contentStart) else { return nil }
            values.append(value)
            index = end
        }
        return values
    }

    /// The value of `literal`, a whole raw multi-line string literal.
    static func value(of literal: String) -> String? {
        guard let values = values(in: literal), values.count == 1 else { return nil }
        return values[0]
    }

    /// The next `#…#"""` followed by LF at or after `start`.
    private static func opening(in scalars: [Unicode.Scalar], from start: Int) -> (hashes: Int, contentStart: Int)? {
        var index = start
        while index < scalars.count {
            guard scalars[index] == "#", index == 0 || scalars[index - 1] != "#" else {
                index += 1
                continue
            }
            var hashes = 0
            while index + hashes < scalars.count, scalars[index + hashes] == "#" { hashes += 1 }
            let quotes = index + hashes
            if quotes + 3 < scalars.count, scalars[quotes..<quotes + 3].allSatisfy({ $0 == "\"" }), scalars[quotes + 3] == "\n" {
                return (hashes, quotes + 4)
            }
            index = quotes
        }
        return nil
    }

    private static func literal(_ scalars: [Unicode.Scalar], hashes: Int, contentStart: Int) -> (String, Int)? {
        // The literal ends at the first `"""` followed by `hashes` `#`, wherever it is.
        var end = contentStart
        func isClosing(_ at: Int) -> Bool {
            at + 3 + hashes <= scalars.count && scalars[at..<at + 3].allSatisfy { $0 == "\"" }
                && scalars[(at + 3)..<(at + 3 + hashes)].allSatisfy { $0 == "#" }
        }
        while end < scalars.count, !isClosing(end) { end += 1 }
        guard end < scalars.count else { return nil }
        // The closing delimiter stands alone on its line, after the indentation.
        var lineStart = end
        while lineStart > contentStart, scalars[lineStart - 1] != "\n" { lineStart -= 1 }
        let indent = scalars[lineStart..<end]
        guard lineStart > contentStart, indent.allSatisfy({ $0 == " " }) else { return nil }
        var lines: [String] = []
        for line in scalars[contentStart..<(lineStart - 1)].split(separator: "\n", omittingEmptySubsequences: false) {
            guard line.starts(with: indent), let text = unescaped(line.dropFirst(indent.count), hashes: hashes) else { return nil }
            lines.append(text)
        }
        return (lines.joined(separator: "\n"), end + 3 + hashes)
    }

    /// A content line's text: `\` and `hashes` `#` start an escape, which must be `u{hex}`.
    private static func unescaped(_ line: ArraySlice<Unicode.Scalar>, hashes: Int) -> String? {
        var text = "", index = line.startIndex
        while index < line.endIndex {
            let scalar = line[index]
            let escapeEnd = index + 1 + hashes
            guard scalar == "\\", escapeEnd <= line.endIndex, line[(index + 1)..<escapeEnd].allSatisfy({ $0 == "#" }) else {
                text.unicodeScalars.append(scalar)
                index += 1
                continue
            }
            guard escapeEnd + 2 < line.endIndex, line[escapeEnd] == "u", line[escapeEnd + 1] == "{",
                  let close = line[escapeEnd...].firstIndex(of: "}"),
                  let value = UInt32(String(String.UnicodeScalarView(line[(escapeEnd + 2)..<close])), radix: 16),
                  let escaped = Unicode.Scalar(value) else { return nil }
            text.unicodeScalars.append(escaped)
            index = close + 1
        }
        return text
    }
}
