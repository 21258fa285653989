import DeviceOracleJSON
import XCTest
@testable import DeviceOracleWire

/// oslog.md, rule by rule: a unified-log capture read as an input stage in front of the
/// NDJSON form.
final class UnifiedLogFormTests: XCTestCase {
    private func record(_ message: String, time: String = "2026-12-06 10:23:01.442117-0700", eventType: String = "logEvent",
                        category: String = "DeviceOracle", process: Int = 412) -> String {
        #"{"timestamp":"\#(time)","traceID":18446744073709551615,"eventType":"\#(eventType)","category":"\#(category)","# +
            #""subsystem":"com.example.player","processID":\#(process),"eventMessage":\#(quoted(message))}"#
    }

    private func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    private func answer(_ lines: [String], _ ruleset: RulesetEndpoint = PlaybackRuleset.endpoint) -> Result<NDJSONAnswer, RequestRejection> {
        ruleset.answerNDJSON(Array(lines.joined(separator: "\n").utf8), detail: .all, oslog: OSLogSelection())
    }

    private func text(_ lines: [String]) throws -> String {
        String(decoding: try answer(lines).get().text, as: UTF8.self)
    }

    func testACaptureAttachedAfterLaunchKeepsTheStartsItsMessagesDoNotRuleOut() throws {
        // late-start.md in the unified-log form: the head message says "unknown".
        let output = try text([
            record(#"{"initial":"unknown"}"#),
            record(#"{"type":"interruptionEnded","shouldResume":true,"observed":{"isPlaying":true}}"#),
        ])

        XCTAssertEqual(output.split(separator: "\n").count, 1, "no step lines, the summary alone: \(output)")
        XCTAssertTrue(output.contains(#""initialCandidates":[{"isPlaying":false,"resumeAfterInterruption":true}],"determinedAt":0"#),
                      output)
        XCTAssertTrue(output.contains(#""verdict":"pass""#), output)
    }

    func testSelectedMessagesAreTheNDJSONFormsLinesWithIdAndAtFilledIn() throws {
        let output = try text([
            #"Filtering the log data using "category == \"DeviceOracle\"""#,
            record(#"{"initial":{"isPlaying":true}}"#),
            record("GET /feed", category: "Network"),
            record(#"{"type":"interruptionBegan","observed":{"isPlaying":false}}"#, time: "2026-12-06 10:23:02.5-0700"),
            "",
            record(#"{"type":"userPaused","id":null}"#, time: "2026-12-06 10:23:03-0700"),
        ])
        XCTAssertTrue(output.contains(#"{"index":0,"id":"line-4","event":{"type":"interruptionBegan"}"#), output)
        XCTAssertTrue(output.contains(#""index":1,"id":"line-6""#), output)
        XCTAssertTrue(output.contains(#""verdict":"pass""#), output)
        XCTAssertTrue(output.contains(#""diagnosticCount":0,"log":{"lines":5,"records":4,"selected":3,"elements":2,"skipped":{"notRecord":1,"notLogEvent":0,"notSelected":1,"otherProcess":0},"redacted":0,"malformed":0,"lost":0}}"#), output)
    }

    func testRedactedLostAndMalformedMakeAPassInconclusiveWithLogDiagnosticsAtTheirLines() throws {
        let output = try text([
            record(#"{"type":"interruptionBegan","observed":{"isPlaying":false}}"#),
            record("<private>"),
            #"{"eventType":"lossEvent","timestamp":"2026-12-06 10:23:01.442117-0700"}"#,
            record(#"{"type":"userPa"#),
            record("<mask.hash: 'abc'>"),
            record(#"{"type":"userPaused"}"#, process: 977),
            record(#"{"type":"userPaused"}"#, eventType: "stateEvent"),
        ])
        XCTAssertTrue(output.contains(#""verdict":"inconclusive""#), output)
        for (code, line) in [("redactedMessage", 2), ("logLoss", 3), ("malformedMessage", 4), ("redactedMessage", 5), ("otherProcess", 6)] {
            XCTAssertTrue(output.contains(#""code":"\#(code)""#) && output.contains(#""line":\#(line)}"#), "\(code) \(output)")
        }
        XCTAssertTrue(output.contains(#""skipped":{"notRecord":0,"notLogEvent":1,"notSelected":0,"otherProcess":1},"redacted":2,"malformed":1,"lost":1}"#), output)
    }

    func testAFailStaysAFail() throws {
        let output = try text([record(#"{"type":"userPlayed","observed":{"isPlaying":false}}"#), record("<private>")])
        XCTAssertTrue(output.contains(#""verdict":"fail""#), output)
    }

    func testNoElementCheckedIsInconclusive() throws {
        XCTAssertEqual(try answer([record(#"{"initial":{"isPlaying":true}}"#)]).get().verdict, .inconclusive)
    }

    func testWhatIsNotACaptureIsInconclusiveWithEveryLineNotARecord() throws {
        for body in [[#"[{"eventType":"logEvent","eventMessage":"{}"}]"#],
                     ["2026-12-06 10:23:01.442117-0700 0x1a2b Default 0x0 412 0 App: (DeviceOracle) {\"type\":\"userPaused\"}"]] {
            let output = try text(body)
            XCTAssertTrue(output.contains(#""verdict":"inconclusive""#), output)
            XCTAssertTrue(output.contains(#""code":"notACapture""#), output)
            XCTAssertTrue(output.contains(#""records":0"#) && output.contains(#""notRecord":1"#), output)
        }
    }

    func testAHeadLineAndAHeadShapedFirstMessageAreTwoHeads() {
        guard case .failure(let rejection) = answer([#"{"initial":{"isPlaying":true}}"#, record(#"{"initial":{"isPlaying":false}}"#),
                                                     record(#"{"type":"userPaused"}"#)]) else { return XCTFail("two heads answered") }
        XCTAssertEqual(rejection.line, 2)
    }

    func testAnOnlyMessageOfObservedFinalIsTheTail() throws {
        let output = try text([#"{"initial":{"isPlaying":true}}"#, record(#"{"observedFinal":{"isPlaying":false}}"#)])
        XCTAssertTrue(output.contains(#""verdict":"fail""#), output)
    }

    func testRefreshAtIsSecondsAsACanonicalNumber() {
        let fill = OSLogInput.Fill(line: 3, milliseconds: 1_796_540_400_250)
        guard let message = try? JSONReader.parse(Array(#"{"type":"x"}"#.utf8)) else { return XCTFail() }
        func text(_ document: JSONDocument) -> String {
            var writer = JSONWriter()
            writer.value(document.root, of: document)
            return String(decoding: writer.finish(), as: UTF8.self)
        }
        XCTAssertEqual(text(OSLogInput.filled(message, fill, atInSeconds: true)), #"{"id":"line-3","at":1796540400.25,"type":"x"}"#)
        XCTAssertEqual(text(OSLogInput.filled(message, fill, atInSeconds: false)), #"{"id":"line-3","at":1796540400250,"type":"x"}"#)
    }

    func testAMessagesNullIdAndAtAreFilledInWhereTheyStoodNotWrittenTwice() throws {
        let fill = OSLogInput.Fill(line: 7, milliseconds: 1_000)
        let message = try JSONReader.parse(Array(#"{"type":"x","id":null,"observed":{"a":[1,{"b":2}]},"at":null}"#.utf8))

        let filled = OSLogInput.filled(message, fill, atInSeconds: false)

        var writer = JSONWriter()
        writer.value(filled.root, of: filled)
        let text = String(decoding: writer.finish(), as: UTF8.self)
        XCTAssertEqual(text, #"{"id":"line-7","at":1000,"type":"x","observed":{"a":[1,{"b":2}]}}"#)
        XCTAssertEqual(filled.pointer(to: filled.member(filled.member(filled.root, "observed")!, "a")!, from: filled.root), "/observed/a")
    }

    func testTimestampsInTheLogToolsFormOnly() {
        func ms(_ text: String) -> Int? { Array(text.utf8).withUnsafeBufferPointer { OSLogTimestamp.milliseconds($0) } }
        XCTAssertEqual(ms("2026-12-06 00:00:00-0700"), 1_796_540_400_000 - 7 * 3_600_000 + 7 * 3_600_000)
        XCTAssertEqual(ms("1970-01-01 00:00:00.0019+0000"), 1)
        XCTAssertEqual(ms("1970-01-01 01:00:00.123456789+0100"), 123)
        for bad in ["2026-12-06T00:00:00-0700", "2026-12-06 00:00:00", "2026-02-30 00:00:00+0000",
                    "2026-12-06 00:00:00.+0000", "2026-12-06 00:00:00.1234567890+0000", "2026-12-06 24:00:00+0000"] {
            XCTAssertNil(ms(bad), bad)
        }
    }
}
