import DeviceOracleJSON

/// What `?format=` asks a plan or a repro for: its JSON, or a Swift source file of
/// tests against the library products (`DeviceOracle`, `DeviceOracleTesting`).
public enum AnswerFormat: String, CaseIterable, Sendable {
    case json
    /// An `XCTestCase`, one `test…` method per sequence.
    case xctest
    /// A Swift Testing `@Suite`, one `@Test` per sequence.
    case swiftTesting = "swift-testing"

    public var contentType: String {
        self == .json ? "application/json" : "text/x-swift; charset=utf-8"
    }

    /// The format a name spells, or a sentence saying which names there are.
    public static func named(_ name: String) -> Result<AnswerFormat, UnknownName> {
        formats.named(name, listing: "formats")
    }

    private static let formats = ClosedNames<AnswerFormat>("format")
}

/// A Swift file of tests, one per event sequence: each checks the sequence's request
/// with every step's `observed` set to the canonical values the ruleset answered, so
/// it asserts the canonical decision and state after every step, and fails, naming
/// each mismatch, when the rules decide otherwise. Each test is named after the event
/// classes its path takes.
struct GeneratedTests {
    struct Sequence {
        /// The model's event class of each step (`nil` for one no machine reached).
        let eventClasses: [String?]
        /// The answer the ruleset endpoint gave a request, with every step: it holds
        /// the request as the endpoint read it, and the values of its steps.
        let answer: RulesetAnswer
        /// Comment lines written before the assertion (what the device did, for a repro).
        var note: [String] = []
    }

    let format: AnswerFormat
    let endpoint: RulesetEndpoint
    /// The test type's name: `PlaybackPlanTests`.
    let suite: String
    /// The file's opening comment, one line each.
    let header: [String]

    func file(_ sequences: [Sequence]) -> [UInt8] {
        var text = header.map { "// " + Self.commentText($0) + "\n" }.joined()
        let ruleset = "." + Self.identifier(words: String(endpoint.shortName).split(separator: "-").map(String.init))
        switch format {
        case .json, .xctest:
            text += "import DeviceOracle\nimport DeviceOracleTesting\nimport XCTest\n\nfinal class \(suite): XCTestCase {\n"
        case .swiftTesting:
            text += "import DeviceOracle\nimport DeviceOracleTesting\nimport Testing\n\n@Suite struct \(suite) {\n"
        }
        var names = Set<String>()
        for (number, sequence) in sequences.enumerated() {
            var name = Self.testName(sequence.eventClasses, number: number + 1, count: sequences.count)
            while !names.insert(name).inserted { name += "_" }
            let classes = sequence.eventClasses.map { $0 ?? "(no machine)" }
            text += number == 0 ? "" : "\n"
            text += Self.wrapped(classes.isEmpty ? ["no events"] : classes, separator: " → ", prefix: "    /// ")
            let request = Self.rawString(requestText(sequence), indent: "            ")
            let note = sequence.note.map { "        // " + Self.commentText($0) + "\n" }.joined()
            switch format {
            case .json, .xctest:
                text += "    func test\(Self.capitalized(name))() {\n\(note)        XCTAssertOracle(\(ruleset), json: \(request))\n    }\n"
            case .swiftTesting:
                text += "    @Test func \(name)() {\n\(note)        expectOracle(\(ruleset), json: \(request))\n    }\n"
            }
        }
        text += "}\n"
        return Array(text.utf8)
    }

    /// The request, one element of its sequence per line, each with `observed` set to
    /// the canonical values of its step.
    private func requestText(_ sequence: Sequence) -> String {
        let request = sequence.answer.text.document, stepped = sequence.answer.text.stepped
        var head = JSONWriter(capacity: 256)
        head.beginObject()
        var elements: [String] = []
        for member in request.members(request.root) {
            // `observedFinal` is left out: the last step's `observed` asserts the final state.
            guard let name = request.string(member.key), name != "observedFinal" else { continue }
            guard name == endpoint.sequence else {
                head.key(escaping: name)
                head.value(member.value, of: request)
                continue
            }
            for (index, element) in request.elements(member.value).enumerated() {
                var writer = JSONWriter(capacity: 256)
                writer.beginObject()
                for field in request.members(element) where !request.string(field.key, equals: "observed") {
                    guard let fieldName = request.string(field.key) else { continue }
                    writer.key(escaping: fieldName)
                    writer.value(field.value, of: request)
                }
                if index < stepped.stepCount {
                    writeCanonicalObserved(stepped.values(ofStep: index), to: &writer, document: request)
                }
                writer.endObject()
                elements.append(String(decoding: writer.finish(), as: UTF8.self))
            }
        }
        head.key(escaping: endpoint.sequence)
        // The head's members, then the sequence by hand, one element per line.
        return String(decoding: head.finish(), as: UTF8.self) + "[\n" + elements.joined(separator: ",\n") + "\n]}"
    }

    /// `"observed": {…}`: the step's canonical value of every field `observed` may name
    /// that the step shows as a plain value.
    private func writeCanonicalObserved(_ step: StepValues, to writer: inout JSONWriter, document: JSONDocument) {
        writer.key("observed")
        writer.beginObject()
        for (name, value) in step.canonicalObserved {
            writer.key(escaping: name)
            value.write(to: &writer, document: document)
        }
        writer.endObject()
    }

    /// `PlaybackTransitionsPlanTests`, `AudioSessionReproStep7Tests`: a plan's and a
    /// repro's files each declare their own type, so several build in one target.
    static func suite(_ endpoint: RulesetEndpoint, _ kind: String) -> String {
        capitalized(identifier(words: String(endpoint.shortName).split(separator: "-").map(String.init))) + kind + "Tests"
    }

    /// Words joined by `separator` in lines of about 100 characters, each after `prefix`.
    private static func wrapped(_ words: [String], separator: String, prefix: String) -> String {
        var lines: [String] = [], line = ""
        for (index, word) in words.enumerated() {
            let piece = word + (index < words.count - 1 ? separator.trimmingSuffixSpace : "")
            if !line.isEmpty && prefix.count + line.count + 1 + piece.count > 100 {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + piece
        }
        lines.append(line)
        return lines.map { prefix + commentText($0) + "\n" }.joined()
    }

    /// `userPlayed_interruptionBegan_and40More`, after the sequence's number when there
    /// are several: a name says the path, and stays short enough to read.
    static func testName(_ classes: [String?], number: Int, count: Int) -> String {
        let shown = classes.prefix(5).map { $0.map { identifier(words: words(of: $0)) } ?? "noMachine" }
        var name = shown.isEmpty ? "noEvents" : shown.joined(separator: "_")
        if classes.count > shown.count { name += "_and\(classes.count - shown.count)More" }
        guard count > 1 else { return name }
        let digits = String(count).count
        return "sequence" + String(repeating: "0", count: max(0, digits - String(number).count)) + "\(number)_" + name
    }

    /// The words of an event class: `interruptionEnded(shouldResume=true)` is
    /// `interruptionEnded`, `shouldResume`, `true`.
    private static func words(of eventClass: String) -> [String] {
        eventClass.split { !($0.isLetter || $0.isNumber) }.map(String.init)
    }

    /// lowerCamelCase of words, each kept as written after its first letter.
    static func identifier(words: [String]) -> String {
        words.enumerated().map { $0.offset == 0 ? lowercasedFirst($0.element) : capitalized($0.element) }.joined()
    }

    static func capitalized(_ word: String) -> String { word.prefix(1).uppercased() + word.dropFirst() }
    private static func lowercasedFirst(_ word: String) -> String { word.prefix(1).lowercased() + word.dropFirst() }

    /// A multi-line raw string literal of `text`, with enough `#` that nothing in it
    /// ends the literal or interpolates, and every scalar `escapes` names written as an
    /// escape: lines break at LF alone. Read scalar by scalar, as the compiler reads
    /// it: `\#` then U+200D is one Character but still an escape to swiftc.
    static func rawString(_ text: String, indent: String) -> String {
        var longestRun = 0
        var run = 0, afterQuoteOrBackslash = false
        for scalar in text.unicodeScalars {
            if scalar == "#" {
                if afterQuoteOrBackslash { run += 1; longestRun = max(longestRun, run) }
            } else {
                afterQuoteOrBackslash = scalar == "\"" || scalar == "\\"
                run = 0
            }
        }
        let hashes = String(repeating: "#", count: longestRun + 1)
        guard text.unicodeScalars.contains(where: escapes) else {
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            return hashes + "\"\"\"\n" + lines.map { indent + $0 }.joined(separator: "\n") + "\n" + indent + "\"\"\"" + hashes
        }
        var literal = hashes + "\"\"\"\n" + indent
        for scalar in text.unicodeScalars {
            if scalar == "\n" {
                literal += "\n" + indent
            } else if escapes(scalar) {
                literal += "\\" + hashes + unicodeEscape(scalar)
            } else {
                literal.unicodeScalars.append(scalar)
            }
        }
        return literal + "\n" + indent + "\"\"\"" + hashes
    }

    /// Text for a `//` comment: every scalar `escapes` names written `\u{…}`, so a
    /// comment shows no control and cannot end its line or reorder what follows.
    static func commentText(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: escapes) else { return text }
        var written = ""
        for scalar in text.unicodeScalars {
            if escapes(scalar) {
                written += "\\" + unicodeEscape(scalar)
            } else {
                written.unicodeScalars.append(scalar)
            }
        }
        return written
    }

    /// The scalars generated Swift never writes as they are: controls (C0, DEL, C1:
    /// swiftc refuses some in a literal, and LF and CR end a comment), the bidirectional
    /// formatting controls (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069,
    /// which reorder how the source reads), and the line and paragraph separators
    /// (U+2028, U+2029), which an editor may show as line breaks.
    static func escapes(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0..<0x20, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x2028...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// `u{202E}`: the scalar's escape after its backslash (and a raw string's `#`).
    private static func unicodeEscape(_ scalar: Unicode.Scalar) -> String {
        "u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
    }
}

private extension String {
    /// `" → "` as it ends a word: `" →"`.
    var trimmingSuffixSpace: String { hasSuffix(" ") ? String(dropLast()) : self }
}
