import XCTest
import DeviceOracleJSON
@testable import DeviceOracleWire

/// `?format=xctest|swift-testing` on a plan and a repro: a Swift file with one test
/// per sequence, each checking a request whose every step observes the canonical
/// values. CI compiles and runs such files (`.ci/generated-tests`); here the requests
/// they hold are checked against the endpoint.
final class GeneratedTestsTests: XCTestCase {
    /// The JSON requests a generated file asserts, one per raw string literal.
    private func requests(in file: [UInt8]) -> [String] {
        var requests: [String] = [], current: [Substring]?
        for line in String(decoding: file, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.drop { $0 == " " }
            if current == nil, trimmed.hasSuffix("\"\"\"") && line.contains("json: #") {
                current = []
            } else if current != nil, trimmed.hasPrefix("\"\"\"#") {
                requests.append(current!.joined(separator: "\n"))
                current = nil
            } else if current != nil {
                current!.append(trimmed)
            }
        }
        return requests
    }

    private func plan(_ endpoint: RulesetEndpoint, coverage: String, format: AnswerFormat) throws -> String {
        let random = coverage == "random"
        let bytes = try endpoint.plan(coverage: coverage, maxLength: 12, seed: random ? 7 : nil, count: random ? 3 : nil,
                                      format: format).get()
        return String(decoding: bytes, as: UTF8.self)
    }

    func testEveryPlanTestAssertsTheCanonicalValuesOfEveryStepAndPasses() throws {
        for endpoint in Rulesets.all {
            for coverage in ["transitions", "random"] {
                let requests = requests(in: Array(try plan(endpoint, coverage: coverage, format: .xctest).utf8))
                XCTAssertFalse(requests.isEmpty, "\(endpoint.name) \(coverage)")
                for request in requests {
                    let answer = try answer(endpoint, request)
                    XCTAssertEqual(answer["/verdict"], #""pass""#, "\(endpoint.name) \(coverage): \(request)")
                    XCTAssertEqual(answer["/mismatches"], "[]")
                    // Every step observes something, so every step is asserted.
                    let elements = try XCTUnwrap(answer.document.member(answer.document.root, "steps"))
                    XCTAssertEqual(request.components(separatedBy: "\"observed\":{\"").count - 1,
                                   answer.document.count(elements), "\(endpoint.name): \(request)")
                }
            }
        }
    }

    func testAPlanFileHasOneTestPerSequenceNamedAfterItsPath() throws {
        let file = try plan(HapticsRuleset.endpoint, coverage: "random", format: .xctest)
        let plan = try parsed(try HapticsRuleset.endpoint.plan(coverage: "random", maxLength: 12, seed: 7, count: 3).get())

        XCTAssert(file.contains("import DeviceOracle\nimport DeviceOracleTesting\nimport XCTest\n"))
        XCTAssert(file.contains("final class HapticsRandomPlanTests: XCTestCase {"))
        XCTAssertEqual(file.components(separatedBy: "    func test").count - 1, 3)
        XCTAssertEqual(file.components(separatedBy: "XCTAssertOracle(.haptics, json: #\"\"\"").count - 1, 3)
        // The first walk's first event names the first test.
        let firstType = try XCTUnwrap(plan["/sequences/0/request/events/0/type"]).replacingOccurrences(of: "\"", with: "")
        XCTAssert(file.contains("func testSequence1_\(firstType)"), file)
    }

    func testSwiftTestingFilesUseSuitesAndExpectOracle() throws {
        let file = try plan(AudioSessionRuleset.endpoint, coverage: "transitions", format: .swiftTesting)

        XCTAssert(file.contains("import Testing\n\n@Suite struct AudioSessionTransitionsPlanTests {"))
        XCTAssert(file.contains("    @Test func sequence01_"), file)
        XCTAssert(file.contains("expectOracle(.audioSession, json: #\"\"\""))
        XCTAssertFalse(file.contains("XCTAssert"))
    }

    func testAReproTestAssertsTheCanonicalValueAtTheDivergenceAndNamesWhatTheDeviceDid() throws {
        let log = #"""
        {"events":[{"type":"userPaused"},{"type":"userPlayed"},{"type":"routeChanged","reason":"override"},
        {"type":"interruptionBegan"},{"type":"interruptionEnded","shouldResume":true,"observed":{"isPlaying":false}}]}
        """#
        let file = String(decoding: try XCTUnwrap(PlaybackRuleset.endpoint.repro(Array(log.utf8), format: .xctest)).get(), as: UTF8.self)

        XCTAssert(file.contains("final class PlaybackReproStep4Tests: XCTestCase {"), file)
        XCTAssert(file.contains("    /// userPlayed → interruptionBegan → interruptionEnded(shouldResume=true)\n"), file)
        XCTAssert(file.contains("func testUserPlayed_interruptionBegan_interruptionEndedShouldResumeTrue() {"), file)
        XCTAssert(file.contains("// The device showed isPlaying = false here (the log's step 4);"), file)
        XCTAssert(file.contains("// the rules say true."), file)
        let requests = requests(in: Array(file.utf8))
        XCTAssertEqual(requests.count, 1)
        let answer = try answer(PlaybackRuleset.endpoint, requests[0])
        XCTAssertEqual(answer["/verdict"], #""pass""#)
        XCTAssertEqual(answer["/steps/2/after/isPlaying"], "true")
        XCTAssert(requests[0].contains(#"{"type":"interruptionEnded","shouldResume":true,"observed":{"isPlaying":true,"#), requests[0])
    }

    func testAFinalStateReproAssertsTheStateAfterItsLastStep() throws {
        let log = #"{"events":[{"type":"saveTapped"},{"type":"saveTapped"},{"type":"saveSucceeded"}],"observedFinal":{"engine":"stopped"}}"#
        let file = String(decoding: try XCTUnwrap(HapticsRuleset.endpoint.repro(Array(log.utf8), format: .swiftTesting)).get(), as: UTF8.self)

        XCTAssert(file.contains("@Suite struct HapticsReproFinalStateTests {"), file)
        XCTAssert(file.contains("// The device showed final.engine = \"stopped\""), file)
        let request = try XCTUnwrap(requests(in: Array(file.utf8)).first)
        XCTAssertFalse(request.contains("observedFinal"), request)
        XCTAssert(request.contains(#""engine":"running""#), request)
        XCTAssertEqual(try answer(HapticsRuleset.endpoint, request)["/verdict"], #""pass""#)
    }

    func testTestNamesSayThePathAndStayShort() {
        XCTAssertEqual(GeneratedTests.testName(["interruptionEnded(shouldResume=true)", nil], number: 1, count: 1),
                       "interruptionEndedShouldResumeTrue_noMachine")
        XCTAssertEqual(GeneratedTests.testName(["a", "b", "c", "d", "e", "f", "g"], number: 3, count: 12),
                       "sequence03_a_b_c_d_e_and2More")
        XCTAssertEqual(GeneratedTests.testName([], number: 1, count: 1), "noEvents")
    }

    func testARawStringHasMoreHashesThanAnythingInItThatWouldEndIt() {
        XCTAssertEqual(GeneratedTests.rawString(#"{"a":"b"}"#, indent: "  "), "#\"\"\"\n  {\"a\":\"b\"}\n  \"\"\"#")
        XCTAssertEqual(GeneratedTests.rawString(###"{"id":"x\"##"}"###, indent: ""), "###\"\"\"\n{\"id\":\"x\\\"##\"}\n\"\"\"###")
    }

    func testAnUnknownFormatIsNamedWithTheFormatsThereAre() {
        guard case .failure(let unknown) = AnswerFormat.named("junit") else { return XCTFail("junit is no format") }
        XCTAssert(unknown.detail.contains("json") && unknown.detail.contains("swift-testing"), unknown.detail)
    }
}
