import XCTest
import DeviceOracleJSON
@testable import DeviceOracleWire

/// The NDJSON form of a ruleset endpoint (streaming.md), one test per rule.
final class NDJSONCheckTests: XCTestCase {
    /// What a body answered: its lines, and how it ended (`rejected` carries the problem).
    private struct Answered {
        var lines: [String]
        var verdict: String?
        var rejection: RequestRejection?
        /// How many calls the answer had begun by (0: it never began).
        var begunAfterCall: Int?
    }

    private func answer(_ body: String, ruleset: String = "playback", detail: StepDetail = .all, maxLineBytes: Int = 1 << 20,
                        piece: Int = .max) -> Answered {
        let check = NDJSONCheck(endpoint: Rulesets.named(ruleset)!, detail: detail, maxLineBytes: maxLineBytes) {
            Array("{\"status\":\($0.status),\"line\":\($0.line ?? 0),\"pointer\":\"\($0.problems.first?.pointer ?? "")\"}".utf8)
        }
        var output: [UInt8] = []
        var answered = Answered(lines: [])
        var calls = 0
        func note(_ progress: NDJSONCheck.Progress) -> Bool {
            calls += 1
            switch progress {
            case .more: return false
            case .begin:
                answered.begunAfterCall = answered.begunAfterCall ?? calls
                return false
            case .rejected(let rejection): answered.rejection = rejection
            case .end(let verdict): answered.verdict = verdict
            }
            return true
        }
        let bytes = Array(body.utf8)
        var offset = 0
        var ended = false
        while offset < bytes.count, !ended {
            let end = min(offset + piece, bytes.count)
            ended = note(bytes[offset..<end].withUnsafeBytes { check.receive($0, output: &output) })
            if !ended, answered.begunAfterCall == calls {
                ended = note(check.receive(UnsafeRawBufferPointer(start: nil, count: 0), output: &output))
            }
            offset = end
        }
        while !ended { ended = note(check.finish(output: &output)) }
        answered.lines = output.split(separator: UInt8(ascii: "\n")).map { String(decoding: $0, as: UTF8.self) }
        return answered
    }

    private func summary(_ answered: Answered) throws -> JSONDocument {
        try JSONReader.parse(Array(answered.lines.last!.utf8))
    }

    private func count(_ name: StaticString, in summary: JSONDocument) -> Double? {
        summary.member(summary.root, name).flatMap(summary.number)
    }

    private let played = #"{"type":"userPlayed","observed":{"isPlaying":true}}"#
    private let pausedWrongly = #"{"type":"userPaused","observed":{"isPlaying":true}}"#

    // MARK: Request

    func testEachElementLineIsOneStepThenTheSummary() throws {
        let answered = answer(played + "\n" + pausedWrongly + "\n")

        XCTAssertEqual(answered.lines.count, 3)
        XCTAssertTrue(answered.lines[0].hasPrefix(#"{"index":0,"event":{"type":"userPlayed"}"#))
        XCTAssertTrue(answered.lines[1].hasPrefix(#"{"index":1,"event":{"type":"userPaused"}"#))
        XCTAssertEqual(answered.verdict, "fail")
        XCTAssertEqual(count("stepCount", in: try summary(answered)), 2)
        XCTAssertEqual(count("mismatchCount", in: try summary(answered)), 1)
    }

    func testAFirstLineOfHeadMembersIsTheHeadAndDoesNotCountAsAStep() throws {
        let answered = answer(#"{"ruleset":"playback/1","initial":{"isPlaying":true}}"# + "\n" + #"{"type":"userPaused"}"#)

        XCTAssertEqual(answered.lines.count, 2)
        XCTAssertTrue(answered.lines[0].contains(#""index":0"#))
        XCTAssertTrue(answered.lines[0].contains(#""before":{"isPlaying":true"#), "the head's initial state is used")
    }

    func testAnEmptyFirstObjectIsAnEmptyHead() throws {
        let answered = answer("{}\n" + played)

        XCTAssertEqual(answered.lines.count, 2)
        XCTAssertEqual(count("stepCount", in: try summary(answered)), 1)
    }

    func testOnlyTheFirstLineCanBeAHead() {
        let answered = answer(played + "\n" + #"{"initial":{"isPlaying":true}}"#)

        XCTAssertNotNil(answered.lines.last?.contains(#""problem""#))
        XCTAssertEqual(answered.verdict, NDJSONCheck.invalidVerdict, "a head line in second place is a bad event")
    }

    func testALastLineOfOnlyObservedFinalIsTheTail() throws {
        let answered = answer(played + "\n" + #"{"observedFinal":{"isPlaying":false}}"# + "\n")

        XCTAssertEqual(answered.lines.count, 2, "the tail is not a step")
        let summary = try summary(answered)
        XCTAssertEqual(count("mismatchCount", in: summary), 1)
        XCTAssertTrue(answered.lines[1].contains(#""field":"final.isPlaying""#))
    }

    func testALineHeldBackAsAPossibleTailIsReadAsItsOwnBytesAfterTheNextLineArrives() {
        // Still held while the next line is parsed into reused memory: had that taken the
        // held line's memory, line 2 would read as line 3, a valid element.
        let answered = answer(played + "\n" + #"{"observedFinal":{"isPlaying":true}}"# + "\n"
                              + #"{"type":"userPaused","observed":{"isPlaying":false}}"# + "\n")

        XCTAssertEqual(answered.verdict, NDJSONCheck.invalidVerdict)
        XCTAssertEqual(answered.lines.last, #"{"problem":{"status":422,"line":2,"pointer":"/type"}}"#)
    }

    func testObservedFinalInBothHeadAndTailIsAProblemOfTheTailLine() {
        let answered = answer(#"{"observedFinal":{"isPlaying":true}}"# + "\n" + played + "\n"
                              + #"{"observedFinal":{"isPlaying":true}}"#)

        XCTAssertEqual(answered.verdict, NDJSONCheck.invalidVerdict)
        XCTAssertEqual(answered.lines.last, #"{"problem":{"status":422,"line":3,"pointer":""}}"#)
    }

    func testBlankLinesAreSkippedButCountedAndCRLFIsAllowed() {
        let answered = answer("\r\n \t\n" + played + "\r\n\n" + #"{"type":"bogus"}"# + "\r\n")

        XCTAssertEqual(answered.lines.first.map { $0.hasPrefix(#"{"index":0,"#) }, true)
        XCTAssertEqual(answered.lines.last, #"{"problem":{"status":422,"line":5,"pointer":"/type"}}"#)
    }

    func testTheLastLineMayLackItsLineFeed() throws {
        let answered = answer(played + "\n" + played)

        XCTAssertEqual(count("stepCount", in: try summary(answered)), 2)
    }

    func testAnswersAreTheSameWhateverPiecesTheBodyArrivesIn() {
        let body = "{}\n" + played + "\r\n\n" + pausedWrongly + "\n" + #"{"observedFinal":{"isPlaying":true}}"#

        let whole = answer(body)
        for piece in [1, 2, 3, 7, 64] {
            XCTAssertEqual(answer(body, piece: piece).lines, whole.lines, "in pieces of \(piece)")
        }
    }

    // MARK: Detail

    func testStepsFailingWritesOnlyTheStepsWithAMismatchOrDiagnostic() throws {
        let answered = answer(played + "\n" + pausedWrongly + "\n" + played, detail: .failing)

        XCTAssertEqual(answered.lines.count, 2)
        XCTAssertTrue(answered.lines[0].hasPrefix(#"{"index":1,"#))
        XCTAssertEqual(count("stepCount", in: try summary(answered)), 3)
    }

    func testStepsNoneWritesOnlyTheSummary() throws {
        let answered = answer(played + "\n" + pausedWrongly, detail: .none)

        XCTAssertEqual(answered.lines.count, 1)
        XCTAssertEqual(count("stepCount", in: try summary(answered)), 2)
        XCTAssertEqual(answered.verdict, "fail")
    }

    // MARK: Answer

    func testTheAnswerBeginsWithTheFirstElementLineNotAtTheEnd() {
        let answered = answer("{}\n" + played + "\n" + played + "\n" + played + "\n", piece: 10)

        XCTAssertNotNil(answered.begunAfterCall)
        XCTAssertLessThan(answered.begunAfterCall!, 8, "begun once the first element line was read")
    }

    func testAProblemInTheHeadIsARejectionOfLineOne() {
        let answered = answer(#"{"initial":{"isPlayin":true}}"# + "\n" + played)

        XCTAssertEqual(answered.rejection?.status, 422)
        XCTAssertEqual(answered.rejection?.line, 1)
        XCTAssertEqual(answered.rejection?.problems.map(\.pointer), ["/initial/isPlayin"])
        XCTAssertEqual(answered.lines, [])
    }

    func testAFirstLineThatIsNotAnObjectIsARejection() {
        XCTAssertEqual(answer("[1,2]\n" + played).rejection?.status, 422)
        XCTAssertEqual(answer("{\"initial\":\n" + played).rejection?.status, 400)
        XCTAssertEqual(answer("{\"initial\":\n" + played).rejection?.line, 1)
    }

    func testAMalformedLineEndsTheStreamWithItsLineNumber() {
        let answered = answer(played + "\n" + played + "\n" + #"{"type":"userPaused""#)

        XCTAssertEqual(answered.lines.count, 3, "the steps before stay written")
        XCTAssertEqual(answered.lines.last, #"{"problem":{"status":400,"line":3,"pointer":""}}"#)
        XCTAssertEqual(answered.verdict, NDJSONCheck.invalidVerdict)
    }

    func testAnUnknownEventTypeEndsTheStreamWithAPointerIntoItsLine() {
        let answered = answer(played + "\n" + #"{"at":1,"type":"userJumped"}"#)

        XCTAssertEqual(answered.lines.last, #"{"problem":{"status":422,"line":2,"pointer":"/type"}}"#)
    }

    func testALineOverTheLimitEndsTheStream() {
        let long = #"{"type":"userPlayed","id":""# + String(repeating: "x", count: 200) + #""}"#
        let answered = answer(played + "\n" + long + "\n" + played, maxLineBytes: 100)

        XCTAssertEqual(answered.lines.count, 2)
        XCTAssertEqual(answered.lines.last, #"{"problem":{"status":422,"line":2,"pointer":""}}"#)
    }

    func testAnInvalidUTF8ByteEndsTheStreamAtItsLine() {
        var body = Array((played + "\n").utf8)
        body += Array(#"{"type":"userPlayed","id":""#.utf8) + [0xFF] + Array("\"}\n".utf8)
        let check = NDJSONCheck(endpoint: Rulesets.named("playback")!, detail: .all, maxLineBytes: 1 << 20) {
            Array("{\"line\":\($0.line ?? 0)}".utf8)
        }
        var output: [UInt8] = []
        _ = body.withUnsafeBytes { check.receive($0, output: &output) }
        let progress = check.receive(UnsafeRawBufferPointer(start: nil, count: 0), output: &output)

        guard case .end(let verdict) = progress else { return XCTFail("not ended: \(progress)") }
        XCTAssertEqual(verdict, NDJSONCheck.invalidVerdict)
        XCTAssertTrue(String(decoding: output, as: UTF8.self).hasSuffix("{\"problem\":{\"line\":2}}\n"))
    }

    func testTheSummaryListsTheFirstTenThousandMismatchesAndCountsThemAll() throws {
        let body = String(repeating: #"{"type":"userPaused","observed":{"isPlaying":true}}"# + "\n", count: 10_050)
        let answered = answer(body, detail: .none)

        let summary = try summary(answered)
        XCTAssertEqual(count("mismatchCount", in: summary), 10_050)
        XCTAssertEqual(summary.member(summary.root, "mismatches").map(summary.count), StreamedFindings.listed)
    }

    func testStoreItemsFromEarlierLinesAreComparedAndWrittenFromTheirOwnLine() throws {
        let runs = [#"{"at":0,"pages":[{"items":[{"id":"42","title":"a"},{"id":"43","title":"b"}],"nextCursor":"c1"}]}"#,
                    #"{"at":1000,"outcome":"expired","observed":{"items":[{"id":"42","title":"changed"},"43"]}}"#]
        let whole = try XCTUnwrap(try? Rulesets.named("refresh")!.answer(Array(("{\"runs\":[" + runs.joined(separator: ",") + "]}").utf8)).get())
        let json = try JSONReader.parse(whole.json)
        var expected = JSONWriter()
        expected.value(json.member(json.root, "mismatches")!, of: json)

        let answered = answer(runs.joined(separator: "\n"), ruleset: "refresh", detail: .none)

        let summary = try summary(answered)
        var streamed = JSONWriter()
        streamed.value(summary.member(summary.root, "mismatches")!, of: summary)
        let streamedText = String(decoding: streamed.finish(), as: UTF8.self)
        let expectedText = String(decoding: expected.finish(), as: UTF8.self)
        XCTAssertEqual(streamedText, expectedText)
        XCTAssertEqual(count("mismatchCount", in: summary), 1)
    }

    func testEveryRulesetTakesTheForm() {
        XCTAssertEqual(answer(#"{"type":"saveTapped"}"#, ruleset: "haptics").verdict, "unchecked")
        XCTAssertEqual(answer(#"{"at":0,"outcome":"success","observed":{"outcome":"succeeded"}}"#, ruleset: "refresh").verdict,
                       "pass")
        XCTAssertEqual(answer(#"{"type":"launched"}"#, ruleset: "audio-session").verdict, "unchecked")
    }

    func testEachLineEchoesItsOwnSoundsNameThoughItsDocumentIsGoneAfterIt() {
        let lines = [#"{"type":"launched"}"#, #"{"type":"playSound","name":"coin"}"#,
                     #"{"type":"playSound","name":"\"boss\"\u0001","id":"b"}"#]
        let answered = answer(lines.joined(separator: "\n"), ruleset: "audio-session")

        XCTAssertTrue(answered.lines[1].hasPrefix(#"{"index":1,"event":{"type":"playSound","name":"coin"},"before":"#))
        XCTAssertTrue(answered.lines[2].hasPrefix(#"{"index":2,"id":"b","event":{"type":"playSound","name":"\"boss\"\u0001"},"#))
        XCTAssertTrue(answered.lines[2].contains(#""actions":["playNewPlayer"],"soundPlayed":true}"#))
    }

    // MARK: Bounds (issue 42)

    /// What `body` answered when each call may stop once its output passes `mark`, and
    /// the rest is given again, as the HTTP route does: the calls' unread rests too.
    private func pausedAnswer(_ body: String, ruleset: String = "playback", mark: Int) -> (lines: [String], unread: [Int]) {
        let check = NDJSONCheck(endpoint: Rulesets.named(ruleset)!, detail: .all, maxLineBytes: 1 << 20) { _ in Array("{}".utf8) }
        check.pausesAtOutputBytes = mark
        var output: [UInt8] = []
        var unread: [Int] = []
        var rest = Array(body.utf8)[...]
        var ended = false
        while !rest.isEmpty, !ended {
            var progress = rest.withUnsafeBytes { check.receive($0, output: &output) }
            if case .begin = progress { progress = check.receive(UnsafeRawBufferPointer(start: nil, count: 0), output: &output) }
            if case .end = progress { ended = true }
            unread.append(check.unread)
            rest = rest.suffix(check.unread)
        }
        while !ended { if case .end = check.finish(output: &output) { ended = true } }
        return (output.split(separator: UInt8(ascii: "\n")).map { String(decoding: $0, as: UTF8.self) }, unread)
    }

    func testACallStopsBetweenLinesOnceItsOutputPassesTheMarkAndTheRestGivenAgainGoesOn() {
        let body = (0..<5).map { _ in played }.joined(separator: "\n") + "\n"

        let paused = pausedAnswer(body, mark: 1)
        let whole = answer(body)

        XCTAssertEqual(paused.lines, whole.lines, "the same answer, line for line")
        let lineBytes = played.utf8.count + 1
        XCTAssertEqual(paused.unread, [4 * lineBytes, 3 * lineBytes, 2 * lineBytes, lineBytes, 0],
                       "one line per call: each call stops after the line that passed the mark")
    }

    func testWithoutAMarkACallTakesEveryLineOfItsBytes() {
        let body = (0..<5).map { _ in played }.joined(separator: "\n") + "\n"

        XCTAssertEqual(pausedAnswer(body, mark: .max).unread, [0])
    }

    func testALinesPartAfterTheLineThatPassedTheMarkIsUnreadTooAndIsReadWholeWhenGivenAgain() {
        let paused = pausedAnswer(played + "\n" + played, mark: 1)

        XCTAssertEqual(paused.unread, [played.utf8.count, 0])
        XCTAssertEqual(paused.lines, answer(played + "\n" + played).lines, "the last line (no LF) read whole at the end")
    }

    func testTheServerCanEndABegunStreamWithAProblemLine() {
        let check = NDJSONCheck(endpoint: Rulesets.named("playback")!, detail: .all, maxLineBytes: 1 << 20) { _ in [] }
        var output: [UInt8] = []
        _ = Array((played + "\n").utf8).withUnsafeBytes { check.receive($0, output: &output) }
        output = []

        let progress = check.cut(problemJSON: Array(#"{"status":408}"#.utf8), output: &output)

        guard case .end(let verdict) = progress else { return XCTFail("\(String(describing: progress))") }
        XCTAssertEqual(verdict, "invalid")
        XCTAssertEqual(String(decoding: output, as: UTF8.self), #"{"problem":{"status":408}}"# + "\n")
    }

    func testTheServerCannotCutAStreamWhoseAnswerHasNotBegun() {
        let check = NDJSONCheck(endpoint: Rulesets.named("playback")!, detail: .all, maxLineBytes: 1 << 20) { _ in [] }
        var output: [UInt8] = []
        _ = Array(#"{"initial":{"isPlaying":true}}"#.utf8).withUnsafeBytes { check.receive($0, output: &output) }

        XCTAssertNil(check.cut(problemJSON: [], output: &output), "the server answers its own status")
    }

    /// A refresh head whose store holds `items` items of long ids (about 110 bytes each).
    private func refreshStoreHead(items: Int) -> String {
        let list = (0..<items).map { #"{"id":"\#(String(repeating: "x", count: 100))-\#($0)"}"# }.joined(separator: ",")
        return #"{"store":{"items":["# + list + "]}}"
    }

    func testTheSummarysMismatchListStopsAtItsByteBoundAndTheCountSaysHowManyThereWere() throws {
        // Each run's `items` mismatch lists every id the store holds: about 100 KB.
        let head = refreshStoreHead(items: 900)
        let runs = (0..<60).map { #"{"at":\#($0),"observed":{"items":[]}}"# }

        let answered = answer(([head] + runs).joined(separator: "\n"), ruleset: "refresh", detail: .none)

        let summary = try summary(answered)
        XCTAssertEqual(count("mismatchCount", in: summary), 60)
        let listed = summary.member(summary.root, "mismatches").map { summary.count($0) } ?? -1
        XCTAssertGreaterThan(listed, 0)
        XCTAssertLessThan(listed, 60, "cut at the byte bound, not the count")
        XCTAssertLessThanOrEqual(answered.lines.last!.utf8.count, ListedFindings.listedBytes + 256 * 1024)
    }

    func testTheSummarysDiagnosticListStopsAtItsByteBoundToo() throws {
        // Each run's page repeats 1,000 ids of 100 bytes: its diagnostic names them all (~100 KB).
        let items = (0..<1_000).map { #"{"id":"\#(String(repeating: "i", count: 96))\#(1_000 + $0)"}"# }.joined(separator: ",")
        let run = { (index: Int) in #"{"at":\#(index * 1_000),"pages":[{"items":[\#(items),\#(items)]}]}"# }

        let answered = answer((0..<60).map(run).joined(separator: "\n"), ruleset: "refresh", detail: .none)

        let summary = try summary(answered)
        XCTAssertEqual(count("diagnosticCount", in: summary), 60)
        let listed = summary.member(summary.root, "diagnostics").map { summary.count($0) } ?? -1
        XCTAssertGreaterThan(listed, 0)
        XCTAssertLessThan(listed, 60, "cut at the byte bound, not the count")
    }

    func testTheNDJSONRefreshAnswerHasTheJSONFormsCapAndEndsWithAProblemLineWhereItPassesIt() throws {
        // Every step repeats the store (about 300 KB) before and after: over 64 MiB by run ~110.
        let head = refreshStoreHead(items: 2_700)
        let runs = (0..<200).map { #"{"at":\#($0)}"# }

        let answered = answer(([head] + runs).joined(separator: "\n"), ruleset: "refresh", detail: .none)

        XCTAssertEqual(answered.verdict, "invalid")
        XCTAssertTrue(answered.lines.last!.hasPrefix(#"{"problem":{"status":422,"line":"#), answered.lines.last!)
        let json = Rulesets.named("refresh")!.answer(Array((#"{"store":"# + head.dropFirst(9).dropLast() + #","runs":["#
            + runs.joined(separator: ",") + "]}").utf8))
        guard case .failure(let rejection) = json else { return XCTFail("the JSON form is refused too") }
        XCTAssertTrue(rejection.problems.first!.detail.hasPrefix("the answer would exceed 64 MiB"))
        let line = Int(answered.lines.last!.split(separator: ":")[3].prefix { $0.isNumber })!
        XCTAssertEqual("/runs/\(line - 2)", rejection.problems.first!.pointer, "the same run in both forms")
    }
}
