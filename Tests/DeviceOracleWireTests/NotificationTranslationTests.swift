import XCTest
@testable import DeviceOracleWire

/// The raw AVAudioSession notification rules of playback.md, one test per rule.
final class NotificationTranslationTests: XCTestCase {
    private let playback = PlaybackRuleset.endpoint

    /// The step for one raw notification applied to a playing player that was interrupted.
    private func step(_ notification: String, _ userInfo: String?) throws -> Answer {
        let info = userInfo.map { #","userInfo":\#($0)"# } ?? ""
        let body = #"{"initial":{"isPlaying":false,"resumeAfterInterruption":true},"events":[{"notification":"\#(notification)"\#(info)}]}"#
        return try answer(playback, body)
    }

    func testEveryInterruptionSpellingIsTranslated() throws {
        for name in ["AVAudioSessionInterruptionNotification", "AVAudioSession.interruptionNotification", "interruption"] {
            let result = try step(name, #"{"AVAudioSessionInterruptionTypeKey":1}"#)
            XCTAssertEqual(result["/steps/0/event"], #"{"type":"interruptionBegan"}"#, name)
        }
    }

    func testEveryRouteChangeSpellingIsTranslated() throws {
        for name in ["AVAudioSessionRouteChangeNotification", "AVAudioSession.routeChangeNotification", "routeChange"] {
            let result = try step(name, #"{"AVAudioSessionRouteChangeReasonKey":2}"#)
            XCTAssertEqual(result["/steps/0/event"], #"{"type":"routeChanged","reason":"oldDeviceUnavailable"}"#, name)
        }
    }

    func testInterruptionTypeOneOrBeganIsABegin() throws {
        for type in ["1", #""began""#, "1.0"] {
            let result = try step("interruption", #"{"AVAudioSessionInterruptionTypeKey":\#(type)}"#)
            XCTAssertEqual(result["/steps/0/event"], #"{"type":"interruptionBegan"}"#, type)
        }
    }

    func testInterruptionTypeZeroOrEndedIsAnEnd() throws {
        for type in ["0", #""ended""#] {
            let result = try step("interruption", #"{"AVAudioSessionInterruptionTypeKey":\#(type),"AVAudioSessionInterruptionOptionKey":1}"#)
            XCTAssertEqual(result["/steps/0/event"], #"{"type":"interruptionEnded","shouldResume":true}"#, type)
            XCTAssertEqual(result["/steps/0/action"], #""play""#, type)
        }
    }

    func testMissingOrUnknownInterruptionTypeReachesNothing() throws {
        for info in [nil, "{}", #"{"AVAudioSessionInterruptionTypeKey":2}"#, #"{"AVAudioSessionInterruptionTypeKey":"Began"}"#,
                     #"{"AVAudioSessionInterruptionTypeKey":true}"#, #"{"AVAudioSessionInterruptionTypeKey":null}"#] {
            let result = try step("interruption", info)
            XCTAssertEqual(result["/steps/0/event"], "null", info ?? "no userInfo")
            XCTAssertEqual(result["/steps/0/after"], result["/steps/0/before"], info ?? "no userInfo")
            XCTAssertEqual(result["/diagnostics/0/code"], #""unknownInterruptionType""#, info ?? "no userInfo")
            XCTAssertEqual(result["/diagnostics/0/severity"], #""warning""#)
        }
    }

    func testShouldResumeIsBitZeroOfTheOptions() throws {
        let cases: [(String, Bool)] = [("1", true), ("3", true), ("2", false), ("0", false), ("-1", true), ("-2", false),
                                       ("1.5", false), ("1.0", true), (#""shouldResume""#, true), (#""other""#, false),
                                       (#"["shouldResume"]"#, true), (#"["x","shouldResume"]"#, true), ("[1]", false),
                                       ("[]", false), ("true", false), ("{}", false)]
        for (options, resumes) in cases {
            let result = try step("interruption", #"{"AVAudioSessionInterruptionTypeKey":0,"AVAudioSessionInterruptionOptionKey":\#(options)}"#)
            XCTAssertEqual(result["/steps/0/event/shouldResume"], "\(resumes)", options)
            XCTAssertFalse(result.text.contains("missingInterruptionOptions"), options)
        }
    }

    func testMissingOptionsNeverResumeAndWarn() throws {
        for info in [#"{"AVAudioSessionInterruptionTypeKey":0}"#, #"{"AVAudioSessionInterruptionTypeKey":0,"AVAudioSessionInterruptionOptionKey":null}"#] {
            let result = try step("interruption", info)
            XCTAssertEqual(result["/steps/0/event"], #"{"type":"interruptionEnded","shouldResume":false}"#, info)
            XCTAssertEqual(result["/steps/0/action"], #""none""#, info)
            XCTAssertEqual(result["/diagnostics/0/code"], #""missingInterruptionOptions""#, info)
        }
    }

    func testOtherUserInfoKeysAreIgnored() throws {
        let result = try step("interruption", #"{"AVAudioSessionInterruptionTypeKey":1,"AVAudioSessionInterruptionReasonKey":2,"x":[1]}"#)

        XCTAssertEqual(result["/steps/0/event"], #"{"type":"interruptionBegan"}"#)
        XCTAssertEqual(result["/diagnostics"], "[]")
    }

    func testRouteChangeReasonByNameIsTranslated() throws {
        let result = try step("routeChange", #"{"AVAudioSessionRouteChangeReasonKey":"categoryChange"}"#)

        XCTAssertEqual(result["/steps/0/event"], #"{"type":"routeChanged","reason":"categoryChange"}"#)
        XCTAssertEqual(result["/diagnostics/0/code"], #""routeChangeIgnored""#)
    }

    func testRouteChangeWithoutAReasonReachesNothing() throws {
        for info in [nil, "{}", #"{"AVAudioSessionRouteChangeReasonKey":null}"#] {
            let result = try step("routeChange", info)
            XCTAssertEqual(result["/steps/0/event"], "null", info ?? "no userInfo")
            XCTAssertEqual(result["/diagnostics/0/code"], #""unknownRouteChangeReason""#, info ?? "no userInfo")
        }
    }

    func testRouteChangeWithAnUnknownReasonIsShownAsGiven() throws {
        let result = try step("routeChange", #"{"AVAudioSessionRouteChangeReasonKey":9}"#)

        XCTAssertEqual(result["/steps/0/event"], #"{"type":"routeChanged","reason":9}"#)
        XCTAssertEqual(result["/diagnostics/0/code"], #""unknownRouteChangeReason""#)
    }

    func testOtherNotificationsReachNothingAndWarn() throws {
        for name in ["UIApplicationDidBecomeActiveNotification", "AVAudioSessionMediaServicesWereResetNotification",
                     "mediaServicesWereLost", "Interruption"] {
            let result = try step(name, "{}")
            XCTAssertEqual(result["/steps/0/event"], "null", name)
            XCTAssertEqual(result["/steps/0/action"], #""none""#, name)
            XCTAssertEqual(result["/diagnostics/0/code"], #""unknownNotification""#, name)
        }
    }

    func testRawAndCanonicalEventsMixInOneLog() throws {
        let body = #"{"events":[{"type":"userPlayed"},{"notification":"interruption","userInfo":{"AVAudioSessionInterruptionTypeKey":1}},{"notification":"interruption","userInfo":{"AVAudioSessionInterruptionTypeKey":0,"AVAudioSessionInterruptionOptionKey":1}}]}"#

        let result = try answer(playback, body)

        XCTAssertEqual((0..<3).map { result["/steps/\($0)/action"] }, [#""play""#, #""pause""#, #""play""#])
    }
}
