import DeviceOracle
import DeviceOracleTesting
import Testing
import XCTest

/// The assertions fail at the caller with every mismatch in the message.
final class XCTAssertOracleTests: XCTestCase {
    private let failing = """
        {"initial": {"isPlaying": true},
         "events": [{"type": "interruptionBegan", "observed": {"action": "none"}},
                    {"type": "userPlayed", "observed": {"action": "none"}}]}
        """

    func testAPassingLogPasses() {
        XCTAssertOracle(.playback, json: #"{"events": [{"type": "userPlayed", "observed": {"action": "play"}}]}"#)
    }

    func testAFailingLogFailsAtTheCallWithEveryMismatchInTheMessage() {
        capturing = true
        let line = #line + 1
        XCTAssertOracle(.playback, json: failing)
        capturing = false
        XCTAssertEqual(captured.count, 1)
        XCTAssertEqual(captured.first?.line, line)
        XCTAssertEqual(captured.first?.file, #filePath)
        let message = captured.first?.message ?? ""
        XCTAssert(message.contains("2 mismatches"), message)
        XCTAssert(message.contains("step 0: action expected \"pause\", observed \"none\""), message)
        XCTAssert(message.contains("step 1: action expected \"play\", observed \"none\""), message)
    }

    // Failures while `capturing` are kept here instead of failing this test: the
    // failure is what these tests check.
    private var capturing = false
    private var captured: [(message: String, file: String, line: Int)] = []

    override func recordFailure(withDescription description: String, inFile filePath: String, atLine lineNumber: Int,
                                expected: Bool) {
        guard capturing else {
            return super.recordFailure(withDescription: description, inFile: filePath, atLine: lineNumber, expected: expected)
        }
        captured.append((description, filePath, lineNumber))
    }
}

@Suite struct ExpectOracleTests {
    @Test func aPassingLogRecordsNoIssue() {
        expectOracle(.haptics, json: #"{"events": [{"type": "saveTapped", "observed": {"visible": "saving"}}]}"#)
    }

    @Test func aFailingLogRecordsOneIssueWithEveryMismatch() {
        withKnownIssue {
            expectOracle(.playback, json: #"{"events": [{"type": "userPlayed", "observed": {"action": "pause"}}]}"#)
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("step 0: action expected \"play\", observed \"pause\"") }
        }
    }

    @Test func aLogThatObservedNothingIsAnIssue() {
        withKnownIssue {
            expectOracle(.playback, json: #"{"events": [{"type": "userPlayed"}]}"#)
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("unchecked") }
        }
    }
}
