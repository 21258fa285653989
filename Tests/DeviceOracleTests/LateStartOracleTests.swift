import XCTest
import DeviceOracle

/// `"initial": "unknown"` in process: the same body, the same answer.
final class LateStartOracleTests: XCTestCase {
    private let log = #"{"initial":"unknown","events":[{"type":"interruptionEnded","shouldResume":true,"observed":{"isPlaying":true}}]}"#

    func testOracleCheckAnswersALateLogWithItsCandidates() throws {
        let result = try Oracle.check(.playback, json: log)

        XCTAssertEqual(result.verdict, .pass)
        XCTAssertTrue(result.json.contains(#""initialCandidates":[{"isPlaying":false,"resumeAfterInterruption":true}],"determinedAt":0,"#))
    }

    func testOracleCheckOfTheNDJSONFormWritesOnlyTheSummary() throws {
        let ndjson = #"{"initial":"unknown"}"# + "\n" + #"{"type":"userPaused","observed":{"isPlaying":true}}"# + "\n"

        let result = try Oracle.check(.playback, ndjson: ndjson)

        XCTAssertEqual(result.verdict, .fail)
        XCTAssertEqual(result.mismatches.map(\.step), [0])
        XCTAssertEqual(result.json.split(separator: "\n").count, 1)
    }
}
