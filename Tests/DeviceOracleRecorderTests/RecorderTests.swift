import DeviceOracleRecorder
import Foundation
import XCTest

final class RecorderTests: XCTestCase {
    func testAnInterruptionPostedThroughNotificationCenterIsRecordedWithWhatTheAppDecided() {
        let messages = Messages()
        let center = NotificationCenter()
        let adapter = PlayerAdapter(recorder: messages.recorder(), isPlaying: true)
        adapter.observe(center)

        center.post(name: .interruption, object: nil, userInfo: ["AVAudioSessionInterruptionTypeKey": NSNumber(value: UInt(1))])
        center.post(name: .interruption, object: nil, userInfo: [
            "AVAudioSessionInterruptionTypeKey": NSNumber(value: UInt(0)),
            "AVAudioSessionInterruptionOptionKey": NSNumber(value: UInt(1)),
        ])

        XCTAssertEqual(messages.lines, [
            #"{"notification":"AVAudioSessionInterruptionNotification","userInfo":{"AVAudioSessionInterruptionTypeKey":1},"observed":{"isPlaying":false}}"#,
            #"{"notification":"AVAudioSessionInterruptionNotification","userInfo":{"AVAudioSessionInterruptionOptionKey":1,"AVAudioSessionInterruptionTypeKey":0},"observed":{"isPlaying":true}}"#,
        ])
        XCTAssertEqual(adapter.recordingErrors, [])
    }

    func testUserInfoKeysNoRulesetReadsAreLeftOut() throws {
        let messages = Messages()
        let previousRoute = NSObject()  // AVAudioSessionRouteDescription in an app: not JSON
        let notification = Notification(name: .routeChange, object: nil, userInfo: [
            "AVAudioSessionRouteChangeReasonKey": NSNumber(value: UInt(2)),
            "AVAudioSessionRouteChangePreviousRouteKey": previousRoute,
            "AppDebugDump": String(repeating: "x", count: 5_000),
        ])

        try messages.recorder().record(notification)

        XCTAssertEqual(messages.lines, [
            #"{"notification":"AVAudioSessionRouteChangeNotification","userInfo":{"AVAudioSessionRouteChangeReasonKey":2}}"#,
        ])
    }

    func testANotificationWithoutUserInfoHasNoUserInfoMember() throws {
        let messages = Messages()

        try messages.recorder().record(Notification(name: Notification.Name("AVAudioSessionMediaServicesWereResetNotification")),
                                       observed: ["isPlaying": false])

        XCTAssertEqual(messages.lines, [#"{"notification":"AVAudioSessionMediaServicesWereResetNotification","observed":{"isPlaying":false}}"#])
    }

    func testABooleanNSNumberIsABooleanAndEveryOtherNSNumberANumber() throws {
        let messages = Messages()

        try messages.recorder().record(type: "values", fields: [
            "a": NSNumber(value: true), "b": NSNumber(value: false), "c": NSNumber(value: Int8(1)),
            "d": NSNumber(value: UInt64.max), "e": NSNumber(value: -3), "f": NSNumber(value: 2.5),
            "g": NSNumber(value: 4.0), "h": true, "i": UInt(7), "j": 1e21, "k": Float(0.5),
        ])

        XCTAssertEqual(messages.lines, [
            #"{"type":"values","a":true,"b":false,"c":1,"d":18446744073709551615,"e":-3,"f":2.5,"g":4,"h":true,"i":7,"j":1e+21,"k":0.5}"#,
        ])
    }

    func testACanonicalEventHasItsTypeFirstItsFieldsSortedAndObservedLast() throws {
        let messages = Messages()

        try messages.recorder().record(type: "routeChanged", fields: ["reason": "oldDeviceUnavailable", "id": "tap-3"],
                                       observed: ["isPlaying": false, "action": "pause"])

        XCTAssertEqual(messages.lines, [
            #"{"type":"routeChanged","id":"tap-3","reason":"oldDeviceUnavailable","observed":{"action":"pause","isPlaying":false}}"#,
        ])
    }

    func testARefreshRunIsAnElementWithoutType() throws {
        let messages = Messages()

        try messages.recorder().record(element: ["at": 900, "pages": [["items": [["id": "a"]], "status": 200]]],
                                       observed: ["stored": 1])

        XCTAssertEqual(messages.lines, [#"{"at":900,"pages":[{"items":[{"id":"a"}],"status":200}],"observed":{"stored":1}}"#])
    }

    func testTheHeadHasTheRulesetTheInitialStateThenTheStaticMembersSorted() throws {
        let messages = Messages()

        try messages.recorder().head(ruleset: "haptics/1", initial: ["engine": "stopped"],
                                     members: ["supportsHaptics": true, "pattern": [["time": 0, "intensity": 1.0]]])

        XCTAssertEqual(messages.lines, [
            #"{"ruleset":"haptics/1","initial":{"engine":"stopped"},"pattern":[{"intensity":1,"time":0}],"supportsHaptics":true}"#,
        ])
    }

    func testTheTailIsObservedFinalAlone() throws {
        let messages = Messages()

        try messages.recorder().finish(observedFinal: ["isPlaying": true, "resumeAfterInterruption": false])

        XCTAssertEqual(messages.lines, [#"{"observedFinal":{"isPlaying":true,"resumeAfterInterruption":false}}"#])
    }

    func testStringsAreEscapedAndReadBackAsWritten() throws {
        let messages = Messages()
        let text = "quote \" backslash \\ slash / newline \n tab \t nul \u{0} bell \u{7} é 🎧 \u{2028}"

        try messages.recorder().record(type: "note", fields: ["text": text, "nil": Optional<Int>.none as Any, "null": NSNull()])

        XCTAssertEqual(messages.lines.first?.contains(#"nul \u0000 bell \u0007"#), true)
        XCTAssertEqual(messages.objects, [["type": "note", "text": text, "nil": NSNull(), "null": NSNull()]])
    }

    func testAMessageOfExactly1024BytesIsWritten() throws {
        let messages = Messages()
        let overhead = #"{"type":"note","text":""}"#.utf8.count

        try messages.recorder().record(type: "note", fields: ["text": String(repeating: "é", count: (1_024 - overhead) / 2)
                                                                   + String(repeating: "x", count: (1_024 - overhead) % 2)])

        XCTAssertEqual(messages.lines.map(\.utf8.count), [1_024])
    }

    func testAMessageOf1025BytesIsThrownAndNothingIsWritten() {
        let messages = Messages()
        let overhead = #"{"type":"note","text":""}"#.utf8.count

        XCTAssertThrowsError(try messages.recorder().record(type: "note", fields: ["text": String(repeating: "x", count: 1_025 - overhead)])) {
            XCTAssertEqual($0 as? RecorderError, .messageTooLong(bytes: 1_025, limit: 1_024))
        }
        XCTAssertEqual(messages.lines, [])
    }

    func testAHugeObservedStringIsThrownAndNothingIsWritten() {
        let messages = Messages()
        let notification = Notification(name: .interruption, object: nil,
                                        userInfo: ["AVAudioSessionInterruptionTypeKey": NSNumber(value: UInt(1))])

        XCTAssertThrowsError(try messages.recorder().record(notification, observed: ["title": String(repeating: "x", count: 4_000)])) {
            guard case .messageTooLong(let bytes, 1_024)? = $0 as? RecorderError else { return XCTFail("\($0)") }
            XCTAssertGreaterThan(bytes, 4_000)
        }
        XCTAssertEqual(messages.lines, [])
    }

    func testAValueJSONCannotHoldIsThrownWithItsPointer() {
        let messages = Messages()

        XCTAssertThrowsError(try messages.recorder().record(type: "saved", observed: ["results": [["at": Date()]], "a/b": 1])) {
            XCTAssertEqual($0 as? RecorderError, .unsupportedValue(at: "/observed/results/0/at", type: "Date"))
        }
        XCTAssertThrowsError(try messages.recorder().record(type: "saved", fields: ["ratio": Double.nan])) {
            XCTAssertEqual($0 as? RecorderError, .unsupportedValue(at: "/ratio", type: "non-finite nan"))
        }
        XCTAssertEqual(messages.lines, [])
    }

    func testAMemberGivenTwiceIsThrown() {
        let recorder = Messages().recorder()

        XCTAssertThrowsError(try recorder.head(ruleset: "playback/1", members: ["ruleset": "playback/1"])) {
            XCTAssertEqual($0 as? RecorderError, .duplicateMember("ruleset"))
        }
        XCTAssertThrowsError(try recorder.record(type: "userPaused", fields: ["type": "userPlayed"])) {
            XCTAssertEqual($0 as? RecorderError, .duplicateMember("type"))
        }
        XCTAssertThrowsError(try recorder.record(type: "userPaused", fields: ["observed": [:]], observed: [:])) {
            XCTAssertEqual($0 as? RecorderError, .duplicateMember("observed"))
        }
    }

    func testCallsFromManyThreadsEachWriteOneWholeMessageInEachThreadsOrder() {
        let messages = Messages()
        let recorder = messages.recorder()
        let threads = 8, perThread = 250

        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for index in 0..<perThread {
                try? recorder.record(type: "tick", fields: ["thread": thread, "index": index, "pad": String(repeating: "p", count: index)])
            }
        }

        XCTAssertEqual(messages.lines.count, threads * perThread)
        var next = [Int](repeating: 0, count: threads)
        for object in messages.objects {
            guard let thread = object["thread"] as? Int, let index = object["index"] as? Int else { return XCTFail("\(object)") }
            XCTAssertEqual(index, next[thread])
            XCTAssertEqual(object, ["type": "tick", "thread": thread, "index": index, "pad": String(repeating: "p", count: index)])
            next[thread] += 1
        }
        XCTAssertEqual(next, [Int](repeating: perThread, count: threads))
    }
}
