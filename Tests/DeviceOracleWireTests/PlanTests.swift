import XCTest
import DeviceOracleJSON
@testable import DeviceOracleWire

/// `POST /rulesets/{name}/plan`: sequences through the model, each with the
/// answer the ruleset endpoint gives for its request.
final class PlanTests: XCTestCase {
    private func plan(_ endpoint: RulesetEndpoint, _ body: String = "",
                      file: StaticString = #filePath, line: UInt = #line) throws -> Answer {
        switch endpoint.plan(Array(body.utf8)) {
        case .success(let json): return try parsed(json)
        case .failure(let rejection):
            XCTFail("rejected: \(rejection.problems)", file: file, line: line)
            throw rejection
        }
    }

    private func planProblems(_ body: String) -> [String] {
        guard case .failure(let rejection) = PlaybackRuleset.endpoint.plan(Array(body.utf8)) else {
            XCTFail("expected a rejection")
            return []
        }
        return rejection.problems.map { "\($0.pointer): \($0.detail)" }
    }

    func testTransitionPlansCoverEveryReachableTransitionAndSayHowFarFromTheLowerBound() throws {
        let expected = [("playback/1", 3, 27, 42), ("haptics/1", 11, 88, 117), ("refresh/1", 3, 87, 109),
                        ("audio-session/1", 38, 608, 754)]
        for (endpoint, (name, states, transitions, steps)) in zip(Rulesets.all, expected) {
            let plan = try plan(endpoint)

            XCTAssertEqual(plan["/ruleset"], #""\#(name)""#)
            XCTAssertEqual(plan["/coverage"], #""transitions""#)
            XCTAssertEqual(plan["/states"], "\(states)", name)
            XCTAssertEqual(plan["/transitions"], "\(transitions)", name)
            XCTAssertEqual(plan["/transitionsCovered"], "\(transitions)", name)
            XCTAssertEqual(plan["/lowerBound"], "\(transitions)", name)
            XCTAssertEqual(plan["/steps"], "\(steps)", name)
        }
    }

    func testEverySequenceCarriesExactlyTheAnswerItsRequestGets() throws {
        for endpoint in Rulesets.all {
            let plan = try plan(endpoint, #"{"coverage":"transitions","maxLength":40}"#)
            let document = plan.document
            let sequences = try XCTUnwrap(document.member(document.root, "sequences"))
            var steps = 0

            for sequence in document.elements(sequences) {
                let request = try XCTUnwrap(document.member(sequence, "request"))
                var writer = JSONWriter()
                writer.value(request, of: document)
                guard case .success(let answer) = endpoint.answer(writer.finish()) else { return XCTFail(endpoint.name) }
                var shown = JSONWriter()
                shown.value(try XCTUnwrap(document.member(sequence, "answer")), of: document)
                let shownText = String(decoding: shown.finish(), as: UTF8.self)

                XCTAssertEqual(shownText, String(decoding: answer.json, as: UTF8.self))
                let answered = try parsed(answer.json).document
                let stepCount = answered.count(try XCTUnwrap(answered.member(answered.root, "steps")))
                XCTAssertLessThanOrEqual(stepCount, 40)
                steps += stepCount
            }
            XCTAssertEqual(plan["/steps"], "\(steps)", endpoint.name)
        }
    }

    func testHapticsPlanAlsoRunsOnHardwareWithoutHaptics() throws {
        let plan = try plan(HapticsRuleset.endpoint)

        XCTAssertTrue(plan.text.contains(#"{"request":{"supportsHaptics":false,"events":["#))
        XCTAssertTrue(plan.text.contains(#""after":{"phase":"saved","engine":"unsupported"}"#))
    }

    func testRefreshPlanRunsEveryFaultAndRepeatsAPageAfterACursorFault() throws {
        let plan = try plan(RefreshRuleset.endpoint)

        for kind in ["error", "expire", "crash"] {
            for stage in ["download", "write", "cursor"] {
                for page in 0..<3 {
                    XCTAssertTrue(plan.text.contains(#""fault":{"kind":"\#(kind)","stage":"\#(stage)","page":\#(page)}"#),
                                  "\(kind) at \(stage) on page \(page)")
                }
            }
        }
        XCTAssertTrue(plan.text.contains(#""actions":["removeStaleTemp","#))
    }

    func testRandomPlansAreReproducibleBySeed() throws {
        let body = #"{"coverage":"random","seed":2026,"count":3,"maxLength":25}"#

        let first = try plan(AudioSessionRuleset.endpoint, body)
        let again = try plan(AudioSessionRuleset.endpoint, body)
        let other = try plan(AudioSessionRuleset.endpoint, #"{"coverage":"random","seed":2027,"count":3,"maxLength":25}"#)

        XCTAssertEqual(first.text, again.text)
        XCTAssertNotEqual(first.text, other.text)
        XCTAssertEqual(first["/steps"], "75")
        XCTAssertEqual(first["/seed"], "2026")
        XCTAssertEqual(first["/count"], "3")
        XCTAssertNil(first["/lowerBound"])
        XCTAssertNotNil(first["/sequences/2/answer/steps/24"])
        XCTAssertNil(first["/sequences/2/answer/steps/25"])
    }

    func testAnEmptyBodyAsksForTheTransitionPlanAndDefaultsAreWrittenOut() throws {
        let empty = try plan(PlaybackRuleset.endpoint)
        let object = try plan(PlaybackRuleset.endpoint, "{}")
        let random = try plan(PlaybackRuleset.endpoint, #"{"coverage":"random"}"#)

        XCTAssertEqual(empty.text, object.text)
        XCTAssertEqual(empty["/maxLength"], "1000")
        XCTAssertEqual(random["/maxLength"], "20")
        XCTAssertEqual(random["/seed"], "0")
        XCTAssertEqual(random["/count"], "1")
    }

    func testInvalidPlanRequestsAre422WithPointers() {
        XCTAssertEqual(planProblems(#"{"coverage":"randum","maxLenght":3}"#), [
            "/coverage: unknown coverage 'randum'; did you mean 'random'?",
            "/maxLenght: unknown member 'maxLenght'; did you mean 'maxLength'?",
        ])
        XCTAssertEqual(planProblems(#"{"coverage":"random","maxLength":0,"count":1.5,"seed":-1}"#), [
            "/maxLength: expected an integer from 1 to 1000, got 0",
            "/count: expected an integer from 1 to 10, got 1.5",
            "/seed: expected an integer from 0 to 9007199254740991, got -1",
        ])
        XCTAssertEqual(planProblems(#"{"seed":7,"count":2}"#), [
            "/seed: 'seed' applies to random plans only",
            "/count: 'count' applies to random plans only",
        ])
        XCTAssertEqual(planProblems(#"{"coverage":"random","count":11,"maxLength":1001}"#), [
            "/count: expected an integer from 1 to 10, got 11",
            "/maxLength: expected an integer from 1 to 1000, got 1001",
        ])
        XCTAssertEqual(planProblems("[]"), [": the request body must be a JSON object, got an array"])
    }

    func testAMaxLengthTooShortToReachSomeStatesCoversWhatItCan() throws {
        let plan = try plan(PlaybackRuleset.endpoint, #"{"maxLength":1}"#)

        XCTAssertEqual(plan["/transitionsCovered"], "9")
        XCTAssertEqual(plan["/steps"], "9")
    }
}
