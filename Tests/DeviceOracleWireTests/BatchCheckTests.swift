import XCTest
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import DeviceOracleJSON
@testable import DeviceOracleWire

/// `POST /check` and `check --junit`: many requests at once, as JSON or JUnit XML.
final class BatchCheckTests: XCTestCase {
    private let unplugged = #"{"initial":{"isPlaying":true},"events":[{"type":"routeChanged","reason":2,"observed":{"isPlaying":true,"action":"none"}}]}"#
    private let saved = #"{"events":[{"type":"saveTapped"},{"type":"saveSucceeded","observed":{"haptic":"play"}}]}"#

    private var mixedBatch: String {
        #"{"cases":[{"name":"unplugged","ruleset":"playback","request":\#(unplugged)},{"name":"saved","ruleset":"haptics/1","request":\#(saved)},{"name":"typo","ruleset":"audio-session","request":{"events":[{"type":"launch"}]}},{"name":"nothing observed","ruleset":"refresh/1","request":{"runs":[{"at":0}]}},{"name":"misnamed","ruleset":"playbak","request":{}}]}"#
    }

    private func report(_ body: String, file: StaticString = #filePath, line: UInt = #line) throws -> CheckReport {
        switch BatchCheck.answer(Array(body.utf8)) {
        case .success(let report): return report
        case .failure(let rejection):
            XCTFail("rejected: \(rejection.problems)", file: file, line: line)
            throw rejection
        }
    }

    private func batchProblems(_ body: String) -> [String] {
        guard case .failure(let rejection) = BatchCheck.answer(Array(body.utf8)) else {
            XCTFail("expected a rejection")
            return []
        }
        return rejection.problems.map { "\($0.pointer): \($0.detail)" }
    }

    func testEachCaseGetsItsRulesetsAnswerAndTheTotalsCountThem() throws {
        let report = try report(mixedBatch)
        let json = try parsed(report.json)

        XCTAssertEqual(report.verdict, .fail)
        XCTAssertEqual(json["/totals"], #"{"cases":5,"passed":1,"failed":1,"unchecked":1,"errors":2}"#)
        XCTAssertEqual(json["/cases/0/ruleset"], #""playback/1""#)
        XCTAssertEqual(json["/cases/0/verdict"], #""fail""#)
        let playbackAnswer = String(decoding: try PlaybackRuleset.endpoint.answer(Array(unplugged.utf8)).map(\.json).get(),
                                    as: UTF8.self)
        XCTAssertEqual(json["/cases/0/answer"], playbackAnswer)
        XCTAssertEqual(json["/cases/1/verdict"], #""pass""#)
        XCTAssertEqual(json["/cases/3/verdict"], #""unchecked""#)
    }

    func testAnInvalidCaseIsAnErrorPointingInsideTheBatchAndTheOthersStillRun() throws {
        let json = try parsed(try report(mixedBatch).json)

        XCTAssertEqual(json["/cases/2/verdict"], #""error""#)
        XCTAssertEqual(json["/cases/2/problem"], #"{"type":"/problems/invalid-request","title":"Invalid request","status":422,"detail":"1 problem in the request body","errors":[{"pointer":"/cases/2/request/events/0/type","detail":"unknown event type 'launch'; did you mean 'launched'?"}]}"#)
        XCTAssertEqual(json["/cases/4/ruleset"], #""playbak""#)
        XCTAssertEqual(json["/cases/4/problem/errors"], #"[{"pointer":"/cases/4/ruleset","detail":"unknown ruleset 'playbak'; did you mean 'playback'?"}]"#)
    }

    func testABatchThatBreaksItsOwnShapeIs422() {
        XCTAssertEqual(batchProblems(#"{"cases":[{"name":"a","rulset":"playback","request":[]},{"ruleset":3,"request":{}}],"extra":1}"#), [
            "/cases/0/rulset: unknown case member 'rulset'; did you mean 'ruleset'?",
            "/cases/0/request: expected an object, got an array",
            "/cases/0/ruleset: required string is missing",
            "/cases/1/ruleset: expected a string, got a number",
            "/extra: unknown member 'extra'",
            // Missing members are listed where their object ends, which is also where `extra` starts.
            "/cases/1/name: required string is missing",
        ])
        XCTAssertEqual(batchProblems("{}"), ["/cases: required array is missing"])
        XCTAssertEqual(batchProblems(#"{"cases":[{"name":"a","ruleset":"playback","request":{"events":[],"events":[]}}]}"#), [
            "/cases/0/request/events: duplicate key 'events'",
        ])
    }

    func testACaseThatIsNotAnObjectIsReportedBesideTheOthersProblems() {
        XCTAssertEqual(batchProblems(#"{"cases":[1,{"name":"a","ruleset":"playback","request":{}},"x",{"name":5}]}"#), [
            "/cases/0: expected an object, got a number",
            "/cases/2: expected an object, got a string",
            "/cases/3/name: expected a string, got a number",
            "/cases/3/ruleset: required string is missing",
            "/cases/3/request: required object is missing",
        ])
    }

    func testNoCasesCheckNothing() throws {
        let report = try report(#"{"cases":[]}"#)

        XCTAssertEqual(report.verdict, .unchecked)
        XCTAssertEqual(report.summary, "0 cases: 0 passed, 0 failed, 0 unchecked, 0 errors")
    }

    func testJUnitReport() throws {
        let xml = String(decoding: try report(mixedBatch).junitXML, as: UTF8.self)

        XCTAssertEqual(xml, """
            <?xml version="1.0" encoding="UTF-8"?>
            <testsuites name="device-oracle check" tests="5" failures="1" errors="2" time="0">
              <testsuite name="device-oracle check" tests="5" failures="1" errors="2" skipped="1" time="0">
                <testcase name="unplugged" classname="playback/1" time="0">
                  <failure message="2 mismatches" type="fail">step 0: isPlaying: expected false, observed true
            step 0: action: expected "pause", observed "none"</failure>
                </testcase>
                <testcase name="saved" classname="haptics/1" time="0"/>
                <testcase name="typo" classname="audio-session/1" time="0">
                  <error message="1 problem in the request body" type="/problems/invalid-request">/cases/2/request/events/0/type: unknown event type 'launch'; did you mean 'launched'?</error>
                </testcase>
                <testcase name="nothing observed" classname="refresh/1" time="0">
                  <skipped message="unchecked: the request carried no observed, observedFinal or static check"/>
                </testcase>
                <testcase name="misnamed" classname="playbak" time="0">
                  <error message="1 problem in the request body" type="/problems/invalid-request">/cases/4/ruleset: unknown ruleset 'playbak'; did you mean 'playback'?</error>
                </testcase>
              </testsuite>
            </testsuites>

            """)
    }

    func testJUnitListsFailedStaticChecksAndParsesAsXML() throws {
        let pattern = #"{"pattern":[],"events":[{"type":"saveTapped","observed":{"visible":"saved"}}]}"#
        let config = #"{"config":{"tasks":[{"identifier":"a.b","kind":"processing"}],"infoPlist":{"BGTaskSchedulerPermittedIdentifiers":["a.b"],"UIBackgroundModes":["fetch"]}}}"#
        let name = "log <1> & \"2\"\u{01}"
        let body = #"{"cases":[{"name":"\#(name.replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(of: "\u{01}", with: "\\u0001"))","ruleset":"haptics","request":\#(pattern)},{"name":"plist","ruleset":"refresh","request":\#(config)}]}"#

        let collected = try JUnitElements(try report(body).junitXML)

        XCTAssertEqual(collected.testcases, ["log <1> & \"2\"\u{FFFD}", "plist"])
        XCTAssertEqual(collected.failures, [
            "patternCheck: count at /cases/0/request/pattern: expected 1, observed 0\nstep 0: visible: expected \"saving\", observed \"saved\"",
            "configCheck: backgroundMode 'a.b': UIBackgroundModes has no 'processing', which processing tasks need",
        ])
        XCTAssertEqual(collected.failureMessages, ["1 failed static check, 1 mismatch", "1 failed static check"])
    }

    func testJUnitNamesKeepTabsLineFeedsAndCarriageReturnsThroughAParser() throws {
        let name = "tab\there\nline\r\ncr\rend "
        let escapedName = name.replacingOccurrences(of: "\t", with: "\\t").replacingOccurrences(of: "\n", with: "\\n")
            .replacingOccurrences(of: "\r", with: "\\r")
        let body = #"{"cases":[{"name":"\#(escapedName)","ruleset":"haptics","request":\#(saved)},{"name":"\#(escapedName)","ruleset":"\#(escapedName)","request":{}}]}"#

        let xml = try report(body).junitXML
        let collected = try JUnitElements(xml)

        XCTAssertEqual(collected.testcases, [name, name])
        XCTAssertEqual(collected.classnames, ["haptics/1", name])
        // Element text keeps TAB and LF as they are; only a CR would become LF.
        XCTAssertEqual(collected.errors, ["/cases/1/ruleset: unknown ruleset '\(name)'"])
        XCTAssertTrue(String(decoding: xml, as: UTF8.self).contains(#"name="tab&#9;here&#10;line&#13;&#10;cr&#13;end ""#))
    }

    func testJUnitMessagesKeepTabsLineFeedsAndCarriageReturnsThroughAParser() throws {
        let message = "a\tb\nc\r\nd\re \"<&>\""
        let xml = #"<?xml version="1.0" encoding="UTF-8"?><testcase name="n"><failure message="\#(xmlEscaped(message))">\#(xmlEscaped(message, attribute: false))</failure></testcase>"#

        let collected = try JUnitElements(Array(xml.utf8))

        XCTAssertEqual(collected.failureMessages, [message])
        XCTAssertEqual(collected.failures, [message])
    }

    func testFilesNameTheirRulesetAndAnythingElseIsAnErrorCase() throws {
        let files: [(name: String, body: [UInt8])] = [
            ("ok.json", Array(#"{"ruleset":"haptics/1","events":[{"type":"saveTapped","observed":{"visible":"saving"}}]}"#.utf8)),
            ("unnamed.json", Array(#"{"events":[]}"#.utf8)),
            ("short.json", Array(#"{"ruleset":"playback","events":[]}"#.utf8)),
            ("broken.json", Array("{\"ruleset\":".utf8)),
            ("array.json", Array("[]".utf8)),
        ]

        let report = BatchCheck.report(files: files)
        let json = try parsed(report.json)

        XCTAssertEqual(report.totals, CheckReport.Totals(cases: 5, passed: 1, failed: 0, unchecked: 0, errors: 4))
        XCTAssertEqual(json["/cases/1/problem/errors"], #"[{"pointer":"/ruleset","detail":"required string is missing"}]"#)
        XCTAssertEqual(json["/cases/2/problem/errors"], #"[{"pointer":"/ruleset","detail":"unknown ruleset 'playback'; did you mean 'playback/1'?"}]"#)
        XCTAssertEqual(json["/cases/3/problem/type"], #""/problems/invalid-json""#)
        XCTAssertEqual(json["/cases/3/problem/offset"], "11")
        XCTAssertEqual(json["/cases/4/problem/errors/0/detail"], #""the request body must be a JSON object, got an array""#)
    }

    func testABatchWhoseAnswersWouldOutgrowTheReportIsRefusedAtTheCaseThatCrossesIt() throws {
        let log = #"{"events":[{"type":"userPlayed"},{"type":"userPaused"}]}"#
        let body = #"{"cases":["# + (0..<3).map { #"{"name":"c\#($0)","ruleset":"playback","request":\#(log)}"# }
            .joined(separator: ",") + "]}"
        let one = try PlaybackRuleset.endpoint.answer(Array(log.utf8)).get().json.count

        let fits = BatchCheck.answer(Array(body.utf8), reportBytes: 3 * one)
        let outgrows = BatchCheck.answer(Array(body.utf8), reportBytes: 3 * one - 1)

        XCTAssertNoThrow(try fits.get())
        guard case .failure(let rejection) = outgrows else { return XCTFail("expected a 422") }
        XCTAssertEqual(rejection.status, 422)
        XCTAssertEqual(rejection.problems.map(\.pointer), ["/cases/2/request"])
    }
}

/// The parts of a JUnit report the tests look at, read with Foundation's XMLParser.
private final class JUnitElements: NSObject, XMLParserDelegate {
    var testcases: [String] = []
    var classnames: [String] = []
    var failures: [String] = []
    var failureMessages: [String] = []
    var errors: [String] = []
    private var text: String?

    init(_ xml: [UInt8]) throws {
        super.init()
        let parser = XMLParser(data: Data(xml))
        parser.delegate = self
        guard parser.parse() else { throw parser.parserError ?? CocoaError(.coderReadCorrupt) }
    }

    func parser(_ parser: XMLParser, didStartElement element: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        switch element {
        case "testcase":
            testcases.append(attributes["name"] ?? "")
            classnames.append(attributes["classname"] ?? "")
        case "failure":
            failureMessages.append(attributes["message"] ?? "")
            text = ""
        case "error": text = ""
        default: break
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        text? += string
    }

    func parser(_ parser: XMLParser, didEndElement element: String, namespaceURI: String?, qualifiedName: String?) {
        if element == "failure", let text { failures.append(text) }
        if element == "error", let text { errors.append(text) }
        text = nil
    }
}
