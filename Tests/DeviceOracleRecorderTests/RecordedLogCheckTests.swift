import DeviceOracle
import DeviceOracleRecorder
import Foundation
import XCTest

/// What the recorder writes, checked by the oracle as the service checks it.
final class RecordedLogCheckTests: XCTestCase {
    /// Playing, interrupted, then the interruption ends with `shouldResume`.
    private func recordInterruption(_ adapter: PlayerAdapter, head recorder: Recorder) throws {
        let center = NotificationCenter()
        adapter.observe(center)
        try recorder.head(ruleset: "playback/1", initial: ["isPlaying": true])
        center.post(name: .interruption, object: nil, userInfo: ["AVAudioSessionInterruptionTypeKey": NSNumber(value: UInt(1))])
        center.post(name: .interruption, object: nil, userInfo: [
            "AVAudioSessionInterruptionTypeKey": NSNumber(value: UInt(0)),
            "AVAudioSessionInterruptionOptionKey": NSNumber(value: UInt(1)),
            "AVAudioSessionInterruptionReasonKey": NSNumber(value: UInt(0)),
        ])
    }

    func testAnAdapterThatResumesAfterShouldResumePassesThePlaybackRules() throws {
        let messages = Messages()
        let recorder = messages.recorder()
        try recordInterruption(PlayerAdapter(recorder: recorder, isPlaying: true), head: recorder)
        try recorder.finish(observedFinal: ["isPlaying": true])

        let result = try Oracle.check(.playback, ndjson: messages.ndjson)

        XCTAssertEqual(result.verdict, .pass)
        XCTAssertEqual(result.mismatches, [])
    }

    func testAnAdapterThatIgnoresShouldResumeFailsAtTheEndOfTheInterruption() throws {
        let messages = Messages()
        let recorder = messages.recorder()
        try recordInterruption(PlayerAdapter(recorder: recorder, isPlaying: true, honoursShouldResume: false), head: recorder)

        let result = try Oracle.check(.playback, ndjson: messages.ndjson)

        XCTAssertEqual(result.verdict, .fail)
        XCTAssertEqual(result.mismatches, [OracleResult.Mismatch(step: 1, field: "isPlaying", expected: "true", observed: "false")])
    }

    func testARecordedRouteChangeIsReadByItsReasonKey() throws {
        let messages = Messages()
        let recorder = messages.recorder()
        try recorder.head(ruleset: "playback/1", initial: ["isPlaying": true])

        try recorder.record(Notification(name: .routeChange, object: nil, userInfo: [
            "AVAudioSessionRouteChangeReasonKey": NSNumber(value: UInt(2)),  // oldDeviceUnavailable: pause
            "AVAudioSessionRouteChangePreviousRouteKey": NSObject(),
        ]), observed: ["isPlaying": false, "action": "pause"])
        let result = try Oracle.check(.playback, ndjson: messages.ndjson)

        XCTAssertEqual(result.verdict, .pass)
        XCTAssertEqual(result.diagnostics, [])
    }

    /// End to end, as a farm runs it: real notifications through a NotificationCenter,
    /// recorded, wrapped as `log stream --style ndjson` prints them, and checked as a
    /// unified-log capture (`?from=oslog`, `Oracle.check(_:oslog:)`), ids the records' lines.
    func testARecordedRunWrappedAsAUnifiedLogCaptureGetsTheVerdictTheRulesGive() throws {
        let passing = Messages(), failing = Messages()
        let good = passing.recorder(), bad = failing.recorder()
        try recordInterruption(PlayerAdapter(recorder: good, isPlaying: true), head: good)
        try good.finish(observedFinal: ["isPlaying": true])
        try recordInterruption(PlayerAdapter(recorder: bad, isPlaying: true, honoursShouldResume: false), head: bad)

        let passed = try Oracle.check(.playback, oslog: UnifiedLogCapture().ndjson(passing.lines))
        let failed = try Oracle.check(.playback, oslog: UnifiedLogCapture().ndjson(failing.lines))

        XCTAssertEqual(passed.verdict, .pass)
        XCTAssertEqual(failed.verdict, .fail)
        XCTAssertEqual(failed.mismatches, [OracleResult.Mismatch(step: 1, field: "isPlaying", expected: "true", observed: "false")])
    }

    /// The capture itself: every field the log tool writes, and each message verbatim
    /// in the category's `logEvent` records, in order.
    func testTheUnifiedLogCaptureCarriesEveryRecordFieldAndEachMessageVerbatim() throws {
        let messages = Messages()
        let recorder = messages.recorder()
        try recordInterruption(PlayerAdapter(recorder: recorder, isPlaying: true), head: recorder)

        let capture = UnifiedLogCapture().ndjson(messages.lines)
        let lines = capture.split(separator: "\n").map(String.init)
        let records = lines.dropFirst().compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }

        XCTAssertEqual(lines.first, #"Filtering the log data using "category == "DeviceOracle"""#)
        XCTAssertEqual(records.count, 3)
        for field in ["timestamp", "machTimestamp", "bootUUID", "eventType", "messageType", "eventMessage", "formatString",
                      "subsystem", "category", "processID", "processImagePath", "senderImagePath", "threadID", "traceID",
                      "activityIdentifier", "backtrace", "timezoneName", "source"] {
            XCTAssert(records.allSatisfy { $0.keys.contains(field) }, field)
        }
        XCTAssertEqual(records.first?["timestamp"] as? String, "2026-12-06 10:23:01.442117-0700")
        XCTAssertEqual(records.last?["timestamp"] as? String, "2026-12-06 10:23:02.442117-0700")
        let selected = records.filter { $0["eventType"] as? String == "logEvent" && $0["category"] as? String == "DeviceOracle" }
        XCTAssertEqual(selected.compactMap { $0["eventMessage"] as? String }, messages.lines)
        let extracted = selected.compactMap { $0["eventMessage"] as? String }.map { $0 + "\n" }.joined()
        XCTAssertEqual(try Oracle.check(.playback, ndjson: extracted).verdict, .pass)
    }
}
