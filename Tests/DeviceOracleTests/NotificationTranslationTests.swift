import DeviceOracle
import XCTest

/// Raw notifications as an app receives them, translated as the service translates
/// them in a log (playback.md and audio-session.md, "Raw notifications").
final class NotificationTranslationTests: XCTestCase {
    private let interruption = "AVAudioSessionInterruptionNotification"
    private let typeKey = "AVAudioSessionInterruptionTypeKey"
    private let optionsKey = "AVAudioSessionInterruptionOptionKey"

    func testInterruptionBeganWithTheTypeAsUIntIsInterruptionBegan() {
        let translated = PlaybackEvent.translating(notification: interruption, userInfo: [typeKey: UInt(1)])
        XCTAssertEqual(translated.event, .interruptionBegan)
        XCTAssertEqual(translated.diagnostics, [])
    }

    func testInterruptionEndedWithTheShouldResumeBitResumes() {
        let translated = PlaybackEvent.translating(notification: "AVAudioSession.interruptionNotification",
                                                   userInfo: [typeKey: 0, optionsKey: UInt(1)])
        XCTAssertEqual(translated.event, .interruptionEnded(shouldResume: true))
    }

    func testInterruptionEndedWithoutOptionsDoesNotResumeAndSaysSo() {
        let translated = PlaybackEvent.translating(notification: interruption, userInfo: [typeKey: 0])
        XCTAssertEqual(translated.event, .interruptionEnded(shouldResume: false))
        XCTAssertEqual(translated.diagnostics, ["missingInterruptionOptions"])
    }

    func testAnUnknownInterruptionTypeReachesNoMachine() {
        let translated = PlaybackEvent.translating(notification: interruption, userInfo: [typeKey: 7])
        XCTAssertNil(translated.event)
        XCTAssertEqual(translated.diagnostics, ["unknownInterruptionType"])
    }

    func testRouteChangeOldDeviceUnavailableIsThatReason() {
        let translated = PlaybackEvent.translating(notification: "AVAudioSessionRouteChangeNotification",
                                                   userInfo: ["AVAudioSessionRouteChangeReasonKey": UInt(2)])
        XCTAssertEqual(translated.event, .routeChanged(reason: .oldDeviceUnavailable))
    }

    func testMediaServicesResetIsUnknownToPlaybackButAnEventOfTheAudioSession() {
        let name = "AVAudioSessionMediaServicesWereResetNotification"
        XCTAssertNil(PlaybackEvent.translating(notification: name, userInfo: nil).event)
        XCTAssertEqual(PlaybackEvent.translating(notification: name, userInfo: nil).diagnostics, ["unknownNotification"])
        XCTAssertEqual(AudioSessionEvent.translating(notification: name, userInfo: nil).event, .mediaServicesReset)
    }

    func testValuesJSONHasNoWordForAreMissingNotACrash() {
        struct Opaque {}
        let translated = PlaybackEvent.translating(notification: interruption, userInfo: [typeKey: Opaque()])
        XCTAssertNil(translated.event)
        XCTAssertEqual(translated.diagnostics, ["unknownInterruptionType"])
    }
}
