import XCTest
import DeviceOracleJSON
@testable import DeviceOracleWire

/// An answer sent in pieces is the same bytes as the answer written whole.
final class AnswerPiecesTests: XCTestCase {
    private func concatenated(_ answer: RulesetAnswer, minimum: Int) -> [UInt8] {
        let pieces = answer.pieces()
        let bytes = WrittenBytes()
        var calls = 0
        while pieces.next(into: bytes, minimum: minimum) { calls += 1 }
        XCTAssertLessThan(calls, 100_000, "the pieces end")
        return bytes.bytes
    }

    func testPiecesOfEveryRulesetAddUpToTheWholeAnswer() throws {
        let bodies: [(RulesetEndpoint, String)] = [
            (PlaybackRuleset.endpoint, #"{"events":[{"type":"userPlayed","session":"a","observed":{"isPlaying":false}},{"type":"routeChanged","reason":9,"id":"x"},{"notification":"interruption"}],"observedFinal":{"isPlaying":true}}"#),
            (HapticsRuleset.endpoint, #"{"pattern":[{"eventType":"hapticTransient","relativeTime":0}],"events":[{"type":"saveTapped"},{"type":"saveSucceeded","observed":{"haptic":"none"}}]}"#),
            (AudioSessionRuleset.endpoint, #"{"category":"playback","events":[{"type":"launched"},{"type":"playSound","name":"coin"},{"type":"enteredBackground"}]}"#),
            (RefreshRuleset.endpoint, #"{"runs":[{"at":0,"pages":[{"items":[{"id":"1"}],"nextCursor":"c"}]},{"at":1,"fault":{"kind":"crash","stage":"write","page":0},"pages":[{"items":[]}]}]}"#),
        ]
        for (endpoint, body) in bodies {
            guard case .success(let answer) = endpoint.answer(Array(body.utf8)) else { return XCTFail(endpoint.name) }
            for minimum in [1, 7, 64, 1 << 16] {
                XCTAssertEqual(concatenated(answer, minimum: minimum), answer.json, "\(endpoint.name) in pieces of \(minimum)")
            }
        }
    }

    func testALongLogIsHandedOutInPiecesOfAboutTheRequestedSize() throws {
        let events = Array(repeating: #"{"type":"userPlayed"}"#, count: 2000).joined(separator: ",")
        guard case .success(let answer) = PlaybackRuleset.endpoint.answer(Array(#"{"events":[\#(events)]}"#.utf8)) else {
            return XCTFail("rejected")
        }
        let pieces = answer.pieces()
        let first = WrittenBytes()

        let more = pieces.next(into: first, minimum: 4096)

        XCTAssertTrue(more)
        XCTAssertGreaterThanOrEqual(first.count, 4096)
        XCTAssertLessThan(first.count, 4096 + 512, "a piece ends at the first step past the minimum")
    }
}
