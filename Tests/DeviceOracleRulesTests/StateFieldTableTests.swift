import XCTest
import DeviceOracleRules

/// A ruleset's state is declared once, field by field; these tests read one table
/// the way requests, answers and the state model do.
final class StateFieldTableTests: XCTestCase {
    func testFieldsAreReadInTheOrderAnswersWriteThem() {
        let state = HapticsState(phase: .saving, engine: .running)

        let fields = HapticsModel.stateFields.modelFields(of: state)

        XCTAssertEqual(fields, [ModelField("phase", .name("saving")), ModelField("engine", .name("running"))])
    }

    func testAFlagAndANameAreSetFromTheirValues() {
        var playback = PlaybackState()
        var haptics = HapticsState()

        PlaybackModel.stateFields.fields[1].set(.bool(true), in: &playback)
        HapticsModel.stateFields.fields[0].set(.name("failed"), in: &haptics)

        XCTAssertEqual(playback, PlaybackState(isPlaying: false, resumeAfterInterruption: true))
        XCTAssertEqual(haptics, HapticsState(phase: .failed))
    }

    func testANameListsEveryCaseAndAFlagNone() {
        XCTAssertEqual(HapticsModel.stateFields.fields.map(\.names),
                       [["idle", "saving", "saved", "failed"], ["stopped", "running", "unsupported"]])
        XCTAssertEqual(PlaybackModel.stateFields.fields.map(\.names), [nil, nil])
    }

    func testEveryStateIsListedOnceAsNestedLoopsOverTheFields() {
        let states = PlaybackModel.stateFields.allStates

        XCTAssertEqual(states, [PlaybackState(isPlaying: false, resumeAfterInterruption: false),
                                PlaybackState(isPlaying: false, resumeAfterInterruption: true),
                                PlaybackState(isPlaying: true, resumeAfterInterruption: false),
                                PlaybackState(isPlaying: true, resumeAfterInterruption: true)])
        XCTAssertEqual(HapticsModel.stateFields.allStates.count, 4 * 3)
    }

    func testNumberedFirstFieldFastestEachFieldIsABitOfTheStatesNumber() {
        let states = AudioSessionModel.stateFields.allStates

        XCTAssertEqual(states.count, 64)
        XCTAssertEqual(Set(states).count, 64)
        XCTAssertEqual(states[1], AudioSessionState(foreground: true))
        XCTAssertEqual(states[2], AudioSessionState(active: true))
        XCTAssertEqual(states[32], AudioSessionState(deactivationPending: true))
    }

    func testTheInitialStateIsTheOneARequestStartsInWithoutInitial() {
        XCTAssertEqual(PlaybackModel.stateFields.initial, PlaybackMachine().state)
        XCTAssertEqual(HapticsModel.stateFields.initial, HapticsMachine().state)
        XCTAssertEqual(AudioSessionModel.stateFields.initial, AudioSessionMachine().state)
    }

    func testAFieldIsFoundByItsKeyPath() {
        XCTAssertEqual(HapticsModel.stateFields.position(of: \HapticsState.engine), 1)
        XCTAssertEqual(AudioSessionModel.stateFields.position(of: \AudioSessionState.observing), 4)
        XCTAssertNil(PlaybackModel.stateFields.position(of: \PlaybackState.hashValue))
    }

    func testEventClassesAreNumberedByTheirEnumsOrder() {
        XCTAssertEqual(PlaybackModel().eventClasses, PlaybackModel.EventClass.allCases.map(\.rawValue))
        XCTAssertEqual(PlaybackModel().eventClass(of: .routeChanged(reason: .categoryChange)),
                       PlaybackModel.EventClass.allCases.firstIndex(of: .routeChangedOtherKnown))
        XCTAssertEqual(AudioSessionModel().eventClass(of: .playSound(name: "coin")),
                       AudioSessionModel.EventClass.allCases.firstIndex(of: .playSound))
        XCTAssertEqual(HapticsModel().eventClasses, HapticsEvent.allCases.map(\.rawValue))
    }
}
