import XCTest
@testable import DeviceOracleWire
import DeviceOracleRules

/// audio-session.md on the wire: steps, raw notifications, observed, verdicts,
/// diagnostics and every 422.
final class AudioSessionEndpointTests: XCTestCase {
    private let audioSession = AudioSessionRuleset.endpoint
    private let idle = #"{"foreground":false,"active":false,"interrupted":false,"categorySet":false,"observing":false,"deactivationPending":false}"#
    private let playing = #"{"foreground":true,"active":true,"interrupted":false,"categorySet":true,"observing":true,"deactivationPending":false}"#
    private let playingInitial = #""initial":{"foreground":true,"active":true,"categorySet":true,"observing":true}"#

    private func problems(_ body: String, file: StaticString = #filePath, line: UInt = #line) -> [String] {
        guard let rejection = rejection(audioSession, body, file: file, line: line) else { return [] }
        XCTAssertEqual(rejection.kind, .invalidRequest, file: file, line: line)
        return rejection.problems.map { "\($0.pointer): \($0.detail)" }
    }

    /// The answer for one raw notification sent to a game that plays.
    private func rawStep(_ notification: String, _ userInfo: String?) throws -> Answer {
        let info = userInfo.map { #","userInfo":\#($0)"# } ?? ""
        return try answer(audioSession, #"{\#(playingInitial),"events":[{"notification":"\#(notification)"\#(info)}]}"#)
    }

    // MARK: Answer shape

    func testAnswerHasEveryMemberInAStableOrder() throws {
        let result = try answer(audioSession, #"{"events":[]}"#)

        XCTAssertEqual(result.text, #"{"ruleset":"audio-session/1","category":"ambient","final":\#(idle),"steps":[],"verdict":"unchecked","mismatches":[],"diagnostics":[]}"#)
    }

    func testStepShowsIndexIdEventBeforeAfterActionsAndSoundPlayed() throws {
        let result = try answer(audioSession, #"{"events":[{"type":"launched","id":"log-1","at":5}]}"#)

        XCTAssertEqual(result["/steps/0"], #"{"index":0,"id":"log-1","event":{"type":"launched"},"before":\#(idle),"after":\#(playing),"actions":["setCategory","addObservers","activate"],"soundPlayed":false}"#)
    }

    func testStateFieldsAreWrittenInTheSpecOrderWithTheirOwnValues() throws {
        let result = try answer(audioSession, #"{"initial":{"deactivationPending":true,"interrupted":true,"observing":true},"events":[]}"#)

        XCTAssertEqual(result["/final"], #"{"foreground":false,"active":false,"interrupted":true,"categorySet":false,"observing":true,"deactivationPending":true}"#)
    }

    func testInitialMaySetEveryFieldAndInconsistentOnesAreTakenAsGiven() throws {
        let result = try answer(audioSession, #"{"initial":{"foreground":false,"active":true,"interrupted":true,"categorySet":false,"observing":false,"deactivationPending":true},"events":[{"type":"deactivationSucceeded"}]}"#)

        XCTAssertEqual(result["/steps/0/before"], #"{"foreground":false,"active":true,"interrupted":true,"categorySet":false,"observing":false,"deactivationPending":true}"#)
        XCTAssertEqual(result["/final"], #"{"foreground":false,"active":true,"interrupted":true,"categorySet":false,"observing":false,"deactivationPending":false}"#)
    }

    func testCategoryIsEchoedAndExclusiveOnesWarnOnEveryLaunch() throws {
        let result = try answer(audioSession, #"{"category":"soloAmbient","events":[{"type":"launched"},{"type":"enteredBackground"},{"type":"launched"}]}"#)

        XCTAssertEqual(result["/category"], #""soloAmbient""#)
        XCTAssertEqual(result["/diagnostics"], #"[{"index":0,"severity":"warning","code":"exclusiveCategory","message":"This category takes audio exclusively and silences other apps' music; a game's sound effects rarely need more than 'ambient'."},{"index":2,"severity":"warning","code":"launchedTwice","message":"A launch while the app already observes the session: its observers would be added twice; the rules applied the launch again."},{"index":2,"severity":"warning","code":"exclusiveCategory","message":"This category takes audio exclusively and silences other apps' music; a game's sound effects rarely need more than 'ambient'."}]"#)
    }

    func testPlaybackCategoryAlsoWarnsAndAmbientDoesNot() throws {
        let playback = try answer(audioSession, #"{"category":"playback","events":[{"type":"launched"}]}"#)
        let ambient = try answer(audioSession, #"{"category":"ambient","events":[{"type":"launched"}]}"#)

        XCTAssertEqual(playback["/diagnostics/0/code"], #""exclusiveCategory""#)
        XCTAssertEqual(ambient["/diagnostics"], "[]")
    }

    func testEqualRequestsGiveByteIdenticalAnswers() throws {
        let body = #"{"category":"playback","events":[{"type":"launched","at":9,"observed":{"actions":["activate"]}},{"type":"playSound","name":"coin","at":3},{"notification":"mediaServicesWereLost"},{"type":"routeChanged","reason":"x"}],"observedFinal":{"active":true}}"#

        let first = try answer(audioSession, body), second = try answer(audioSession, body)

        XCTAssertEqual(first.text, second.text)
    }

    func testNullFieldsAreTheSameAsAbsentOnes() throws {
        let result = try answer(audioSession, #"{"ruleset":null,"category":null,"initial":{"active":null},"events":[{"type":"interruptionEnded","shouldResume":null,"id":null,"at":null,"observed":null}],"observedFinal":null}"#)

        XCTAssertEqual(result["/category"], #""ambient""#)
        XCTAssertEqual(result["/steps/0/event"], #"{"type":"interruptionEnded"}"#)
        XCTAssertEqual(result["/steps/0/resumeHint"], "null")
        XCTAssertNil(result["/steps/0/id"])
        XCTAssertEqual(result.verdict, .unchecked)
    }

    func testPinnedRulesetIsAnswered() throws {
        XCTAssertEqual(try answer(audioSession, #"{"ruleset":"audio-session/1","events":[]}"#).verdict, .unchecked)
    }

    func testAudioSessionIsListedAndFoundByShortName() {
        XCTAssertEqual(Rulesets.all.last?.name, "audio-session/1")
        XCTAssertEqual(Rulesets.named("audio-session")?.path, "/audio-session/run")
        XCTAssertEqual(Rulesets.named("audio-session/1")?.path, "/audio-session/run")
    }

    func testEventsBelongToOneSessionWhateverTheyName() throws {
        let result = try answer(audioSession, #"{"events":[{"type":"launched","session":"a"},{"type":"playSound","name":"coin","session":"b"}]}"#)

        XCTAssertEqual(result["/steps/1/soundPlayed"], "true")
        XCTAssertNil(result["/steps/0/session"])
        XCTAssertNil(result["/sessions"])
    }

    // MARK: Steps of each event

    func testCanonicalEventShowsOnlyItsOwnFields() throws {
        let result = try answer(audioSession, #"{"events":[{"type":"launched","name":"x","shouldResume":true,"reason":2,"deviceId":"A1"}]}"#)

        XCTAssertEqual(result["/steps/0/event"], #"{"type":"launched"}"#)
    }

    func testEveryFieldlessEventIsShownByItsType() throws {
        let types = ["launched", "enteredBackground", "deactivationFailed", "deactivationSucceeded", "enteredForeground",
                     "interruptionBegan", "mediaServicesLost", "mediaServicesReset", "willTerminate"]
        let events = types.map { #"{"type":"\#($0)"}"# }.joined(separator: ",")

        let result = try answer(audioSession, #"{"events":[\#(events)]}"#)

        XCTAssertEqual(types.indices.map { result["/steps/\($0)/event"] }, types.map { #"{"type":"\#($0)"}"# })
    }

    func testEveryRowGivesItsActionsInOrder() throws {
        let body = #"{"events":[{"type":"launched"},{"type":"playSound","name":"coin"},{"type":"enteredBackground"},{"type":"deactivationFailed"},{"type":"deactivationSucceeded"},{"type":"enteredForeground"},{"type":"interruptionBegan"},{"type":"interruptionEnded"},{"type":"routeChanged","reason":2},{"type":"mediaServicesLost"},{"type":"mediaServicesReset"},{"type":"willTerminate"}]}"#

        let result = try answer(audioSession, body)

        XCTAssertEqual((0..<12).map { result["/steps/\($0)/actions"] }, [
            #"["setCategory","addObservers","activate"]"#, #"["playNewPlayer"]"#, #"["deactivate"]"#, #"["retryDeactivate"]"#,
            "[]", #"["activate"]"#, "[]", #"["activate"]"#, "[]", "[]", #"["setCategory","recreatePlayers","activate"]"#,
            #"["removeObservers","deactivate"]"#,
        ])
        XCTAssertEqual(result["/final"], #"{"foreground":true,"active":false,"interrupted":false,"categorySet":true,"observing":false,"deactivationPending":false}"#)
    }

    func testInterruptionEndStepsCarryTheResumeHintAsGiven() throws {
        let body = #"{"initial":{"foreground":true,"interrupted":true},"events":[{"type":"interruptionEnded","shouldResume":true},{"type":"interruptionEnded","shouldResume":false},{"type":"interruptionEnded"}]}"#

        let result = try answer(audioSession, body)

        XCTAssertEqual(result["/steps/0/event"], #"{"type":"interruptionEnded","shouldResume":true}"#)
        XCTAssertEqual(result["/steps/1/event"], #"{"type":"interruptionEnded","shouldResume":false}"#)
        XCTAssertEqual(result["/steps/2/event"], #"{"type":"interruptionEnded"}"#)
        XCTAssertEqual((0..<3).map { result["/steps/\($0)/resumeHint"] }, ["true", "false", "null"])
        XCTAssertEqual((0..<3).map { result["/steps/\($0)/actions"] }, [#"["activate"]"#, #"["activate"]"#, #"["activate"]"#])
    }

    func testOnlyInterruptionEndStepsHaveAResumeHint() throws {
        let result = try answer(audioSession, #"{"events":[{"type":"launched"},{"type":"interruptionBegan"},{"type":"playSound","name":"a"}]}"#)

        XCTAssertNil(result["/steps/0/resumeHint"])
        XCTAssertNil(result["/steps/1/resumeHint"])
        XCTAssertNil(result["/steps/2/resumeHint"])
    }

    func testPlaySoundEchoesItsNameAndPlaysWhenActive() throws {
        let result = try answer(audioSession, #"{\#(playingInitial),"events":[{"type":"playSound","name":"boss \"roar\"/2"}]}"#)

        XCTAssertEqual(result["/steps/0"], #"{"index":0,"event":{"type":"playSound","name":"boss \"roar\"/2"},"before":\#(playing),"after":\#(playing),"actions":["playNewPlayer"],"soundPlayed":true}"#)
    }

    func testAnyStringNamesASoundTheEmptyOneIncluded() throws {
        let result = try answer(audioSession, #"{\#(playingInitial),"events":[{"type":"playSound","name":""},{"type":"playSound","name":"ゲーム\u0001"}]}"#)

        XCTAssertEqual(result["/steps/0/event"], #"{"type":"playSound","name":""}"#)
        XCTAssertEqual(result["/steps/1/event"], #"{"type":"playSound","name":"ゲーム\u0001"}"#)
        XCTAssertEqual(result["/steps/1/soundPlayed"], "true")
    }

    func testAnIdentifiedSoundEchoesItsNameBetweenItsIdAndItsStates() throws {
        let result = try answer(audioSession, #"{\#(playingInitial),"events":[{"type":"playSound","name":"a\\b\u00e9","id":"s-1"},{"type":"playSound","name":"b"}]}"#)

        XCTAssertEqual(result["/steps/0"], #"{"index":0,"id":"s-1","event":{"type":"playSound","name":"a\\bé"},"before":\#(playing),"after":\#(playing),"actions":["playNewPlayer"],"soundPlayed":true}"#)
        XCTAssertEqual(result["/steps/1/event"], #"{"type":"playSound","name":"b"}"#)
    }

    func testASoundDecidesFromEveryStateAsTheRulesDoWhateverItsName() throws {
        // The engine precomputes a sound's steps with a name of its own and echoes the
        // given one: from each of the 64 states, the step is what the rules decide.
        for bits in 0..<64 {
            let fields = ["foreground", "active", "interrupted", "categorySet", "observing", "deactivationPending"]
            let flags = fields.indices.map { bits >> $0 & 1 == 1 }
            let initial = zip(fields, flags).map { #""\#($0)":\#($1)"# }.joined(separator: ",")
            let result = try answer(audioSession, #"{"initial":{\#(initial)},"events":[{"type":"playSound","name":"n\#(bits)"}]}"#)
            var machine = AudioSessionMachine(state: AudioSessionState(
                foreground: flags[0], active: flags[1], interrupted: flags[2], categorySet: flags[3], observing: flags[4],
                deactivationPending: flags[5]))
            let decision = machine.apply(.playSound(name: "n\(bits)"))

            XCTAssertEqual(result["/steps/0/event"], #"{"type":"playSound","name":"n\#(bits)"}"#)
            XCTAssertEqual(result["/steps/0/actions"], "[" + decision.actions.map { #""\#($0.rawValue)""# }.joined(separator: ",") + "]")
            XCTAssertEqual(result["/steps/0/soundPlayed"], "\(decision.soundPlayed)")
            XCTAssertEqual(result["/final"], result["/steps/0/after"])
        }
    }

    func testSoundWhileInactiveIsSuppressedWithInfo() throws {
        let result = try answer(audioSession, #"{"initial":{"foreground":true},"events":[{"type":"playSound","name":"coin"}]}"#)

        XCTAssertEqual(result["/steps/0/actions"], "[]")
        XCTAssertEqual(result["/steps/0/soundPlayed"], "false")
        XCTAssertEqual(result["/diagnostics"], #"[{"index":0,"severity":"info","code":"soundSuppressed","message":"The session is not active, so no sound is attempted; the game stays silent rather than fail."}]"#)
    }

    func testSoundInTheBackgroundWarnsThenIsSuppressed() throws {
        let result = try answer(audioSession, #"{"events":[{"type":"playSound","name":"coin"}]}"#)

        XCTAssertEqual(result["/diagnostics"], #"[{"index":0,"severity":"warning","code":"playWhileBackground","message":"A sound was requested while the app is not in the foreground: the game loop should not run in the background."},{"index":0,"severity":"info","code":"soundSuppressed","message":"The session is not active, so no sound is attempted; the game stays silent rather than fail."}]"#)
    }

    // MARK: Route changes

    func testKnownReasonIsShownByNameAndLeavesTheSessionAloneWithoutADiagnostic() throws {
        let result = try answer(audioSession, #"{\#(playingInitial),"events":[{"type":"routeChanged","reason":2},{"type":"routeChanged","reason":"newDeviceAvailable"}]}"#)

        XCTAssertEqual(result["/steps/0/event"], #"{"type":"routeChanged","reason":"oldDeviceUnavailable"}"#)
        XCTAssertEqual(result["/steps/1/event"], #"{"type":"routeChanged","reason":"newDeviceAvailable"}"#)
        XCTAssertEqual(result["/steps/0/actions"], "[]")
        XCTAssertEqual(result["/final"], playing)
        XCTAssertEqual(result["/diagnostics"], "[]")
    }

    func testUnknownReasonIsShownAsGivenAndWarns() throws {
        let result = try answer(audioSession, #"{\#(playingInitial),"events":[{"type":"routeChanged","reason":5},{"type":"routeChanged","reason":"headphonesGone"}]}"#)

        XCTAssertEqual(result["/steps/0/event"], #"{"type":"routeChanged","reason":5}"#)
        XCTAssertEqual(result["/steps/1/event"], #"{"type":"routeChanged","reason":"headphonesGone"}"#)
        XCTAssertEqual(result["/final"], playing)
        XCTAssertEqual(result["/diagnostics/0"], #"{"index":0,"severity":"warning","code":"unknownRouteChangeReason","message":"The route change reason is missing or not one AVAudioSession defines; the state is unchanged."}"#)
        XCTAssertEqual(result["/diagnostics/1/code"], #""unknownRouteChangeReason""#)
    }

    // MARK: Raw notifications

    func testEveryInterruptionSpellingIsTranslated() throws {
        for name in ["AVAudioSessionInterruptionNotification", "AVAudioSession.interruptionNotification", "interruption"] {
            let result = try rawStep(name, #"{"AVAudioSessionInterruptionTypeKey":1}"#)
            XCTAssertEqual(result["/steps/0/event"], #"{"type":"interruptionBegan"}"#, name)
            XCTAssertEqual(result["/steps/0/after/active"], "false", name)
        }
    }

    func testRawInterruptionEndActivatesAndCarriesItsOptionAsTheHint() throws {
        let result = try answer(audioSession, #"{"initial":{"foreground":true,"interrupted":true},"events":[{"notification":"interruption","userInfo":{"AVAudioSessionInterruptionTypeKey":"ended","AVAudioSessionInterruptionOptionKey":1}}]}"#)

        XCTAssertEqual(result["/steps/0/event"], #"{"type":"interruptionEnded","shouldResume":true}"#)
        XCTAssertEqual(result["/steps/0/actions"], #"["activate"]"#)
        XCTAssertEqual(result["/steps/0/resumeHint"], "true")
    }

    func testRawInterruptionEndWithoutOptionsIsAFalseHintWithAWarningAndStillActivates() throws {
        let result = try answer(audioSession, #"{"initial":{"foreground":true,"interrupted":true},"events":[{"notification":"interruption","userInfo":{"AVAudioSessionInterruptionTypeKey":0}}]}"#)

        XCTAssertEqual(result["/steps/0/event"], #"{"type":"interruptionEnded","shouldResume":false}"#)
        XCTAssertEqual(result["/steps/0/resumeHint"], "false")
        XCTAssertEqual(result["/steps/0/actions"], #"["activate"]"#)
        XCTAssertEqual(result["/diagnostics/0/code"], #""missingInterruptionOptions""#)
    }

    func testRawInterruptionOfUnknownTypeReachesNothing() throws {
        let result = try rawStep("interruption", #"{"AVAudioSessionInterruptionTypeKey":2}"#)

        XCTAssertEqual(result["/steps/0"], #"{"index":0,"event":null,"before":\#(playing),"after":\#(playing),"actions":[],"soundPlayed":false}"#)
        XCTAssertEqual(result["/diagnostics/0/code"], #""unknownInterruptionType""#)
    }

    func testEveryRouteChangeSpellingIsTranslatedAndTheSoundContinues() throws {
        for name in ["AVAudioSessionRouteChangeNotification", "AVAudioSession.routeChangeNotification", "routeChange"] {
            let result = try rawStep(name, #"{"AVAudioSessionRouteChangeReasonKey":2}"#)
            XCTAssertEqual(result["/steps/0/event"], #"{"type":"routeChanged","reason":"oldDeviceUnavailable"}"#, name)
            XCTAssertEqual(result["/steps/0/after"], playing, name)
            XCTAssertEqual(result["/diagnostics"], "[]", name)
        }
    }

    func testRawRouteChangeWithoutAReasonReachesNothing() throws {
        let result = try rawStep("routeChange", "{}")

        XCTAssertEqual(result["/steps/0/event"], "null")
        XCTAssertEqual(result["/diagnostics/0/code"], #""unknownRouteChangeReason""#)
    }

    func testEveryMediaServicesLostSpellingIsTranslated() throws {
        for name in ["AVAudioSessionMediaServicesWereLostNotification", "AVAudioSession.mediaServicesWereLostNotification",
                     "mediaServicesWereLost"] {
            let result = try rawStep(name, nil)
            XCTAssertEqual(result["/steps/0/event"], #"{"type":"mediaServicesLost"}"#, name)
            XCTAssertEqual(result["/steps/0/after"], #"{"foreground":true,"active":false,"interrupted":false,"categorySet":false,"observing":true,"deactivationPending":false}"#, name)
            XCTAssertEqual(result["/diagnostics"], "[]", name)
        }
    }

    func testEveryMediaServicesResetSpellingIsTranslated() throws {
        for name in ["AVAudioSessionMediaServicesWereResetNotification", "AVAudioSession.mediaServicesWereResetNotification",
                     "mediaServicesWereReset"] {
            let result = try rawStep(name, #"{"unrelated":1}"#)
            XCTAssertEqual(result["/steps/0/event"], #"{"type":"mediaServicesReset"}"#, name)
            XCTAssertEqual(result["/steps/0/actions"], #"["setCategory","recreatePlayers","activate"]"#, name)
            XCTAssertEqual(result["/diagnostics"], "[]", name)
        }
    }

    func testOtherNotificationNamesReachNothingAndWarn() throws {
        for name in ["UIApplicationDidEnterBackgroundNotification", "mediaServicesLost", "MediaServicesWereReset",
                     "AVAudioSessionMediaServicesWereLost", "Interruption", ""] {
            let result = try rawStep(name, "{}")
            XCTAssertEqual(result["/steps/0/event"], "null", name)
            XCTAssertEqual(result["/steps/0/actions"], "[]", name)
            XCTAssertEqual(result["/steps/0/after"], playing, name)
            XCTAssertEqual(result["/diagnostics/0"], #"{"index":0,"severity":"warning","code":"unknownNotification","message":"This notification is not one the rules translate; nothing reached the state machine."}"#, name)
        }
    }

    func testRawAndCanonicalEventsMixInOneLog() throws {
        let body = #"{"events":[{"type":"launched"},{"notification":"interruption","userInfo":{"AVAudioSessionInterruptionTypeKey":1}},{"type":"playSound","name":"coin"},{"notification":"interruption","userInfo":{"AVAudioSessionInterruptionTypeKey":0,"AVAudioSessionInterruptionOptionKey":0}},{"type":"playSound","name":"coin"}]}"#

        let result = try answer(audioSession, body)

        XCTAssertEqual((0..<5).map { result["/steps/\($0)/soundPlayed"] }, ["false", "false", "false", "false", "true"])
    }

    // MARK: Observed and verdict

    func testNoObservedIsUncheckedAndEmptyObservedPasses() throws {
        XCTAssertEqual(try answer(audioSession, #"{"events":[{"type":"launched"}]}"#).verdict, .unchecked)
        XCTAssertEqual(try answer(audioSession, #"{"events":[{"type":"launched","observed":{}}]}"#).verdict, .pass)
    }

    func testMatchingObservedWithEveryFieldPasses() throws {
        let observed = #"{"foreground":true,"active":true,"interrupted":false,"categorySet":true,"observing":true,"deactivationPending":false,"actions":["setCategory","addObservers","activate"],"soundPlayed":false}"#

        let result = try answer(audioSession, #"{"events":[{"type":"launched","observed":\#(observed)}],"observedFinal":\#(playing)}"#)

        XCTAssertEqual(result.verdict, .pass)
        XCTAssertEqual(result["/mismatches"], "[]")
    }

    func testActionsAreComparedAsAnOrderedList() throws {
        let body = #"{"events":[{"type":"launched","observed":{"actions":["addObservers","setCategory","activate"]}},{"type":"willTerminate","observed":{"actions":["removeObservers"]}},{"type":"launched","observed":{"actions":"setCategory"}}]}"#

        let result = try answer(audioSession, body)

        XCTAssertEqual(result.verdict, .fail)
        XCTAssertEqual(result["/mismatches"], #"[{"index":0,"field":"actions","expected":["setCategory","addObservers","activate"],"observed":["addObservers","setCategory","activate"]},{"index":1,"field":"actions","expected":["removeObservers","deactivate"],"observed":["removeObservers"]},{"index":2,"field":"actions","expected":["setCategory","addObservers","activate"],"observed":"setCategory"}]"#)
    }

    func testEachDifferingFieldIsOneMismatchInTheOrderObservedNamesThem() throws {
        let result = try answer(audioSession, #"{"events":[{"type":"launched"},{"type":"interruptionBegan"},{"type":"playSound","name":"coin","observed":{"soundPlayed":true,"active":true,"actions":[],"interrupted":1}}]}"#)

        XCTAssertEqual(result["/mismatches"], #"[{"index":2,"field":"soundPlayed","expected":false,"observed":true},{"index":2,"field":"active","expected":false,"observed":true},{"index":2,"field":"interrupted","expected":true,"observed":1}]"#)
    }

    func testFinalMismatchHasNullIndexAndPrefixedFieldAndComesLast() throws {
        let result = try answer(audioSession, #"{"events":[{"type":"launched","observed":{"observing":false}},{"type":"enteredBackground"}],"observedFinal":{"foreground":true,"active":false,"deactivationPending":true}}"#)

        XCTAssertEqual(result["/mismatches"], #"[{"index":0,"field":"observing","expected":true,"observed":false},{"index":null,"field":"final.foreground","expected":false,"observed":true},{"index":null,"field":"final.deactivationPending","expected":false,"observed":true}]"#)
    }

    // MARK: Diagnostics order

    func testStepDiagnosticsComeOutOfOrderFirstThenTranslationThenRules() throws {
        let body = #"{"category":"playback","events":[{"type":"launched","at":10},{"notification":"interruption","userInfo":{"AVAudioSessionInterruptionTypeKey":0},"at":5},{"type":"enteredBackground","at":6},{"type":"playSound","name":"x","at":4}]}"#

        let result = try answer(audioSession, body)

        let listed = (0..<7).map { "\(result["/diagnostics/\($0)/index"] ?? "-") \(result["/diagnostics/\($0)/code"] ?? "-")" }
        XCTAssertEqual(listed, [#"0 "exclusiveCategory""#, #"1 "outOfOrder""#, #"1 "missingInterruptionOptions""#,
                                #"3 "outOfOrder""#, #"3 "playWhileBackground""#, #"3 "soundSuppressed""#, "- -"])
    }

    // MARK: 422

    func testUnknownEventTypeHasADidYouMean() {
        XCTAssertEqual(problems(#"{"events":[{"type":"launch"},{"type":"mediaServicesWereLost"},{"type":"warp"}]}"#), [
            "/events/0/type: unknown event type 'launch'; did you mean 'launched'?",
            "/events/1/type: unknown event type 'mediaServicesWereLost'",
            "/events/2/type: unknown event type 'warp'",
        ])
    }

    func testPlaySoundNeedsAStringName() {
        XCTAssertEqual(problems(#"{"events":[{"type":"launched"},{"type":"playSound"},{"type":"playSound","name":null},{"type":"playSound","name":3}]}"#), [
            "/events/1/name: required string is missing",
            "/events/2/name: required string is missing",
            "/events/3/name: expected a string, got a number",
        ])
    }

    func testUnknownCategoryHasADidYouMean() {
        XCTAssertEqual(problems(#"{"category":"ambiant","events":[]}"#),
                       ["/category: unknown category 'ambiant'; did you mean 'ambient'?"])
        XCTAssertEqual(problems(#"{"category":"record","events":[]}"#), ["/category: unknown category 'record'"])
        XCTAssertEqual(problems(#"{"category":"Ambient","events":[]}"#),
                       ["/category: unknown category 'Ambient'; did you mean 'ambient'?"])
        XCTAssertEqual(problems(#"{"category":1,"events":[]}"#), ["/category: expected a string, got a number"])
    }

    func testShouldResumeIsAnOptionalBoolean() {
        XCTAssertEqual(problems(#"{"events":[{"type":"interruptionEnded","shouldResume":"yes"}]}"#),
                       ["/events/0/shouldResume: expected a boolean, got a string"])
    }

    func testRouteChangeNeedsANumberOrNamedReason() {
        XCTAssertEqual(problems(#"{"events":[{"type":"routeChanged"},{"type":"routeChanged","reason":[2]}]}"#), [
            "/events/0/reason: required number or string is missing",
            "/events/1/reason: expected a number or a string, got an array",
        ])
    }

    func testEventWithBothFormsOrNeitherIsRejected() {
        XCTAssertEqual(problems(#"{"events":[{"type":"launched","notification":"interruption"},{"id":"x"},{"notification":2},{"notification":"x","userInfo":1}]}"#), [
            "/events/0: an event has either 'type' or 'notification', not both",
            "/events/1/type: an event needs 'type' (canonical form) or 'notification' (raw form)",
            "/events/2/notification: expected a string, got a number",
            "/events/3/userInfo: expected an object, got a number",
        ])
    }

    func testEventsAreRequiredAndEachIsAnObject() {
        XCTAssertEqual(problems("{}"), ["/events: required array is missing"])
        XCTAssertEqual(problems(#"{"events":[1]}"#), ["/events/0: expected an object, got a number"])
    }

    func testInitialNamesOnlyStateFieldsWithBooleans() {
        XCTAssertEqual(problems(#"{"initial":{"foregrund":true,"active":1,"category":"ambient"},"events":[]}"#), [
            "/initial/foregrund: unknown initial field 'foregrund'; did you mean 'foreground'?",
            "/initial/active: expected a boolean, got a number",
            "/initial/category: unknown initial field 'category'",
        ])
    }

    func testObservedNamesOnlyStateAndDecisionFields() {
        XCTAssertEqual(problems(#"{"events":[{"type":"launched","observed":{"action":["activate"],"resumeHint":true,"soundplayed":false}}]}"#), [
            "/events/0/observed/action: unknown observed field 'action'; did you mean 'actions'?",
            "/events/0/observed/resumeHint: unknown observed field 'resumeHint'",
            "/events/0/observed/soundplayed: unknown observed field 'soundplayed'; did you mean 'soundPlayed'?",
        ])
    }

    func testObservedFinalNamesOnlyStateFields() {
        XCTAssertEqual(problems(#"{"events":[],"observedFinal":{"actions":[],"soundPlayed":false,"activ":true}}"#), [
            "/observedFinal/actions: unknown observedFinal field 'actions'",
            "/observedFinal/soundPlayed: unknown observedFinal field 'soundPlayed'",
            "/observedFinal/activ: unknown observedFinal field 'activ'; did you mean 'active'?",
        ])
    }

    func testUnknownRulesetVersionIsRejectedAtRuleset() {
        XCTAssertEqual(problems(#"{"ruleset":"audio-session/2","events":[]}"#),
                       ["/ruleset: ruleset 'audio-session/2' is not served here; this endpoint serves 'audio-session/1'"])
    }
}
