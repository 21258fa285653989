import XCTest
import DeviceOracleJSON
@testable import DeviceOracleWire

/// `?steps=all|failing|none` (streaming.md, "Detail"): which steps an answer lists;
/// the rest of the answer is the same whatever it says.
final class StepDetailTests: XCTestCase {
    /// A request per ruleset, each with steps that pass and steps with a mismatch or a diagnostic.
    private let bodies: [(RulesetEndpoint, String)] = [
        (PlaybackRuleset.endpoint, #"{"events":[{"type":"userPlayed","session":"a","observed":{"isPlaying":false}},{"type":"routeChanged","reason":9,"id":"x"},{"notification":"interruption"},{"type":"userPaused"}],"observedFinal":{"isPlaying":true}}"#),
        (HapticsRuleset.endpoint, #"{"pattern":[{"eventType":"hapticTransient","relativeTime":0}],"events":[{"type":"saveTapped"},{"type":"saveSucceeded","observed":{"haptic":"none"}},{"type":"saveTapped"}]}"#),
        (AudioSessionRuleset.endpoint, #"{"category":"playback","events":[{"type":"launched"},{"type":"playSound","name":"coin","at":5},{"type":"enteredBackground","at":1}]}"#),
        (RefreshRuleset.endpoint, #"{"runs":[{"at":0,"pages":[{"items":[{"id":"1"}],"nextCursor":"c"}]},{"at":1,"fault":{"kind":"crash","stage":"write","page":0},"pages":[{"items":[]}]},{"at":0.5,"pages":[{"items":[]}]}]}"#),
    ]

    private func answer(_ endpoint: RulesetEndpoint, _ body: String) throws -> RulesetAnswer {
        switch endpoint.answer(Array(body.utf8)) {
        case .success(let answer): return answer
        case .failure(let rejection): throw rejection
        }
    }

    /// The answer's members other than `steps`, as written.
    private func withoutSteps(_ json: [UInt8]) throws -> [String] {
        let document = try JSONReader.parse(json)
        return document.members(document.root).compactMap { member in
            guard document.string(member.key) != "steps" else { return nil }
            var writer = JSONWriter()
            writer.value(member.value, of: document)
            return (document.string(member.key) ?? "") + "=" + String(decoding: writer.bytes, as: UTF8.self)
        }
    }

    /// Each step of the answer, written compactly.
    private func steps(_ json: [UInt8]) throws -> [String] {
        let document = try JSONReader.parse(json)
        let steps = try XCTUnwrap(document.members(document.root).first { document.string($0.key) == "steps" }?.value)
        return document.elements(steps).map { step in
            var writer = JSONWriter()
            writer.value(step, of: document)
            return String(decoding: writer.bytes, as: UTF8.self)
        }
    }

    /// The `index` of every mismatch and diagnostic that names a step.
    private func flaggedIndexes(_ json: [UInt8]) throws -> Set<Int> {
        let document = try JSONReader.parse(json)
        var indexes = Set<Int>()
        for member in document.members(document.root) where ["mismatches", "diagnostics"].contains(document.string(member.key)) {
            for entry in document.elements(member.value) {
                let index = try XCTUnwrap(document.members(entry).first { document.string($0.key) == "index" }?.value)
                if let number = document.number(index) { indexes.insert(Int(number)) }
            }
        }
        return indexes
    }

    func testStepsAllIsTheAnswerAsItWasForEveryRuleset() throws {
        for (endpoint, body) in bodies {
            let answer = try answer(endpoint, body)

            let listed = answer.listing(.all)

            XCTAssertEqual(listed.json, answer.json, endpoint.name)
            XCTAssertEqual(listed.stepCount, answer.stepCount, endpoint.name)
        }
    }

    func testStepsFailingListsOnlyTheStepsWithAMismatchOrADiagnosticEachWithItsOwnIndex() throws {
        let body = #"{"events":[{"type":"userPlayed","observed":{"isPlaying":false}},{"type":"userPaused"},{"type":"interruptionBegan","at":5},{"type":"userPlayed","at":3,"observed":{"isPlaying":false}},{"type":"userPaused"}]}"#
        let whole = try answer(PlaybackRuleset.endpoint, body)

        let failing = whole.listing(.failing)

        let all = try steps(whole.json)
        XCTAssertEqual(try steps(failing.json), [all[0], all[3]])
        XCTAssertTrue(try steps(failing.json)[1].hasPrefix(#"{"index":3,"#))
        XCTAssertEqual(failing.stepCount, 2)
    }

    func testStepsFailingKeepsExactlyTheFlaggedStepsOfEveryRuleset() throws {
        for (endpoint, body) in bodies {
            let whole = try answer(endpoint, body)
            let flagged = try flaggedIndexes(whole.json)

            let failing = whole.listing(.failing)

            XCTAssertFalse(flagged.isEmpty, "\(endpoint.name): the example flags a step")
            let expected = try steps(whole.json).enumerated().filter { flagged.contains($0.offset) }.map(\.element)
            XCTAssertEqual(try steps(failing.json), expected, endpoint.name)
        }
    }

    func testStepsNoneKeepsAnEmptyStepsMember() throws {
        let whole = try answer(PlaybackRuleset.endpoint, #"{"events":[{"type":"userPlayed","observed":{"isPlaying":false}}]}"#)

        let none = whole.listing(.none)

        XCTAssertTrue(String(decoding: none.json, as: UTF8.self).contains(#","steps":[],"verdict":"fail","#))
        XCTAssertEqual(none.stepCount, 0)
    }

    func testEverythingButTheStepsIsTheSameWhateverStepsSays() throws {
        for (endpoint, body) in bodies {
            let whole = try answer(endpoint, body)

            for detail in StepDetail.allCases {
                let listed = whole.listing(detail)

                XCTAssertEqual(try withoutSteps(listed.json), try withoutSteps(whole.json), "\(endpoint.name) \(detail)")
                XCTAssertEqual(listed.verdict, whole.verdict)
            }
        }
    }

    func testAListedAnswerInPiecesIsTheSameBytesAsWhole() throws {
        for (endpoint, body) in bodies {
            for detail in StepDetail.allCases {
                let listed = try answer(endpoint, body).listing(detail)
                let pieces = listed.pieces()
                let bytes = WrittenBytes()

                while pieces.next(into: bytes, minimum: 7) {}

                XCTAssertEqual(bytes.bytes, listed.json, "\(endpoint.name) \(detail)")
            }
        }
    }

    func testAnUnknownValueNamesTheParameterAndTheValues() {
        guard case .failure(let error) = StepDetail.named("failng") else { return XCTFail("accepted 'failng'") }

        XCTAssertEqual(error.detail, "unknown 'steps' value 'failng'; did you mean 'failing'? (values: all, failing, none)")
    }
}
