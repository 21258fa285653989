import Foundation
import HTTPTestSupport
import XCTest

/// The ruleset endpoints and `check` through the real binary, as a harness uses them.
final class RulesetEndpointTests: OracleProcessTestCase {
    private let benchmarkBody = #"{"initial":{"isPlaying":true,"resumeAfterInterruption":false},"events":[{"type":"interruptionBegan"},{"type":"userPaused"},{"type":"interruptionEnded","shouldResume":true},{"type":"outputDisconnected"}]}"#

    // MARK: POST /playback/apply

    func testPlaybackAnswersEveryStepWithTheVerdictHeader() throws {
        let (_, port) = try startServer()

        let response = try XCTUnwrap(post("/playback/apply", benchmarkBody, port: port))

        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.header("Content-Type"), "application/json")
        XCTAssertEqual(response.header("Oracle-Verdict"), "unchecked")
        let answer = try json(response.body)
        XCTAssertEqual(answer["ruleset"] as? String, "playback/1")
        let actions = (answer["steps"] as? [[String: Any]])?.map { $0["action"] as? String }
        XCTAssertEqual(actions, ["pause", "none", "none", "none"])
    }

    func testAFailingCheckSaysFailInTheHeaderAndListsTheMismatch() throws {
        let (_, port) = try startServer()
        let body = #"{"initial":{"isPlaying":true},"events":[{"type":"routeChanged","reason":2,"observed":{"isPlaying":true}}]}"#

        let response = try XCTUnwrap(post("/playback/apply", body, port: port))

        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.header("Oracle-Verdict"), "fail")
        let mismatches = try json(response.body)["mismatches"] as? [[String: Any]]
        XCTAssertEqual(mismatches?.first?["field"] as? String, "isPlaying")
        XCTAssertEqual(mismatches?.first?["expected"] as? Bool, false)
    }

    func testEqualRequestsGetByteIdenticalAnswers() throws {
        let (_, port) = try startServer()
        let body = #"{"events":[{"type":"userPlayed","session":"a","at":5},{"notification":"routeChange","userInfo":{"AVAudioSessionRouteChangeReasonKey":9},"at":1}]}"#

        let first = try XCTUnwrap(post("/playback/apply", body, port: port))
        let second = try XCTUnwrap(post("/playback/apply", body, port: port))

        XCTAssertEqual(first.body, second.body)
        XCTAssertFalse(first.body.isEmpty)
    }

    func testMalformedJSONIs400NamingOffsetLineAndColumn() throws {
        let (_, port) = try startServer()

        let response = try XCTUnwrap(post("/playback/apply", "{\"events\":[\n1,]}", port: port))

        XCTAssertEqual(response.status, 400)
        XCTAssertEqual(response.header("Content-Type"), "application/problem+json")
        XCTAssertNil(response.header("Oracle-Verdict"))
        let problem = try json(response.body)
        XCTAssertEqual(problem["type"] as? String, "/problems/invalid-json")
        XCTAssertEqual(problem["offset"] as? Int, 14)
        XCTAssertEqual(problem["line"] as? Int, 2)
        XCTAssertEqual(problem["column"] as? Int, 3)
    }

    func testAnEmptyBodyIs400() throws {
        let (_, port) = try startServer()

        let response = try XCTUnwrap(post("/playback/apply", "", port: port))

        XCTAssertEqual(response.status, 400)
        XCTAssertEqual(try json(response.body)["detail"] as? String, "the request body is empty; expected a JSON object")
    }

    func testNestingDeeperThan64Is400() throws {
        let (_, port) = try startServer()
        let body = #"{"events":[],"x":"# + String(repeating: "[", count: 64) + String(repeating: "]", count: 64) + "}"

        let response = try XCTUnwrap(post("/playback/apply", body, port: port))

        XCTAssertEqual(response.status, 400)
        XCTAssertEqual(try json(response.body)["type"] as? String, "/problems/invalid-json")
    }

    func testSchemaViolationsAre422WithPointersAndDidYouMean() throws {
        let (_, port) = try startServer()

        let response = try XCTUnwrap(post("/playback/apply", #"{"events":[{"type":"userPause"},{"type":"interruptionEnded"}]}"#, port: port))

        XCTAssertEqual(response.status, 422)
        let problem = try json(response.body)
        XCTAssertEqual(problem["type"] as? String, "/problems/invalid-request")
        XCTAssertEqual(problem["detail"] as? String, "2 problems in the request body")
        let errors = try XCTUnwrap(problem["errors"] as? [[String: String]])
        XCTAssertEqual(errors, [
            ["pointer": "/events/0/type", "detail": "unknown event type 'userPause'; did you mean 'userPaused'?"],
            ["pointer": "/events/1/shouldResume", "detail": "required boolean is missing"],
        ])
    }

    func testCurlsFormContentTypeIsReadAsJSONAndOtherTypesAre415() throws {
        let (_, port) = try startServer()

        let form = try XCTUnwrap(post("/playback/apply", benchmarkBody, port: port, contentType: "application/x-www-form-urlencoded"))
        let missing = try XCTUnwrap(post("/playback/apply", benchmarkBody, port: port, contentType: nil))
        let vendor = try XCTUnwrap(post("/playback/apply", benchmarkBody, port: port, contentType: "application/vnd.farm+json; charset=utf-8"))
        let text = try XCTUnwrap(post("/playback/apply", benchmarkBody, port: port, contentType: "text/plain"))

        XCTAssertEqual([form.status, missing.status, vendor.status, text.status], [200, 200, 200, 415])
    }

    func testALongLogsAnswerIsStreamedChunkedWithTheBytesCheckPrints() throws {
        let (_, port) = try startServer()
        let events = Array(repeating: #"{"type":"interruptionBegan"},{"type":"interruptionEnded","shouldResume":true}"#, count: 5000)
        let body = #"{"initial":{"isPlaying":true},"events":["# + events.joined(separator: ",") + "]}"

        let response = try XCTUnwrap(post("/playback/apply", body, port: port))
        let checked = try check(["playback", try temporaryFile(body)])

        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.header("Transfer-Encoding"), "chunked")
        XCTAssertEqual(response.header("Oracle-Verdict"), "unchecked")
        let answer = try XCTUnwrap(response.payload, "well-formed chunks")
        let steps = try XCTUnwrap(json(answer)["steps"] as? [[String: Any]])
        XCTAssertEqual(steps.count, 10000)
        XCTAssertEqual(steps.last?["action"] as? String, "play")
        XCTAssertEqual(checked.waitForExit(), 0)
        XCTAssertEqual(answer, checked.stdoutBytes)
    }

    func testAnHTTP10ClientGetsALongLogsAnswerWithContentLength() throws {
        let (_, port) = try startServer()
        let events = Array(repeating: #"{"type":"userPlayed"}"#, count: 5000)
        let body = #"{"events":["# + events.joined(separator: ",") + "]}"

        let response = try XCTUnwrap(RawExchange.send(
            "POST /playback/apply HTTP/1.0\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)",
            port: port))

        XCTAssertEqual(response.status, 200)
        XCTAssertNil(response.header("Transfer-Encoding"))
        XCTAssertEqual(response.header("Content-Length"), "\(response.body.count)")
        XCTAssertEqual((try json(response.body)["steps"] as? [Any])?.count, 5000)
    }

    func testTheAccessLineCarriesTheVerdictButNoDeviceData() throws {
        let (server, port) = try startServer()

        _ = try XCTUnwrap(post("/playback/apply", #"{"events":[{"type":"userPlayed","id":"secret-device-42"}]}"#, port: port))

        var line: [String: Any]?
        _ = eventually {
            line = server.logLines.first { $0["path"] as? String == "/playback/apply" }
            return line != nil
        }
        XCTAssertEqual(line?["verdict"] as? String, "unchecked")
        XCTAssertEqual(line?["status"] as? Int, 200)
        XCTAssertFalse(server.stdoutText.contains("secret-device-42"))
    }

    func testEveryRulesetAnswersAtItsPath() throws {
        let (_, port) = try startServer()
        let list = try XCTUnwrap(RawExchange.send("GET /rulesets HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n", port: port))
        let rulesets = try XCTUnwrap(json(list.body)["rulesets"] as? [[String: String]])

        for ruleset in rulesets {
            let path = try XCTUnwrap(ruleset["path"])
            let response = try XCTUnwrap(post(path, #"{"ruleset":"\#(ruleset["name"] ?? "")","events":[],"runs":[]}"#, port: port))
            XCTAssertEqual(response.status, 200, path)
            XCTAssertEqual(try json(response.body)["ruleset"] as? String, ruleset["name"], path)
        }
    }

    // MARK: POST /haptics/contract

    /// A failed save during which the device played a haptic anyway.
    private let failedSaveBody = #"{"events":[{"type":"saveTapped"},{"type":"saveFailed","observed":{"visible":"error","haptic":"play"}}],"observedFinal":{"hapticRequests":1}}"#

    func testHapticsFailsAFailedSaveThatPlayedAHaptic() throws {
        let (_, port) = try startServer()

        let response = try XCTUnwrap(post("/haptics/contract", failedSaveBody, port: port))

        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.header("Oracle-Verdict"), "fail")
        let mismatches = try json(response.body)["mismatches"] as? [[String: Any]]
        XCTAssertEqual(mismatches?.compactMap { $0["field"] as? String }, ["haptic", "final.hapticRequests"])
    }

    func testHapticsPatternWithTwoEventsFailsCountAndTheVerdict() throws {
        let (_, port) = try startServer()
        let transient = #"{"eventType":"hapticTransient","relativeTime":0,"parameters":{"hapticIntensity":0.65,"hapticSharpness":0.35}}"#

        let response = try XCTUnwrap(post("/haptics/contract", #"{"pattern":[\#(transient),\#(transient)]}"#, port: port))

        XCTAssertEqual(response.header("Oracle-Verdict"), "fail")
        let patternCheck = try XCTUnwrap(json(response.body)["patternCheck"] as? [String: Any])
        let violations = patternCheck["violations"] as? [[String: Any]]
        XCTAssertEqual(violations?.first?["rule"] as? String, "count")
        XCTAssertEqual(violations?.first?["pointer"] as? String, "/pattern")
    }

    func testHapticsWithNeitherPatternNorEventsIs422() throws {
        let (_, port) = try startServer()

        let response = try XCTUnwrap(post("/haptics/contract", "{}", port: port))

        XCTAssertEqual(response.status, 422)
        XCTAssertEqual(response.header("Content-Type"), "application/problem+json")
    }

    func testCheckHapticsPrintsTheServersBytesAndExitsByVerdict() throws {
        let (_, port) = try startServer()
        let served = try XCTUnwrap(post("/haptics/contract", failedSaveBody, port: port))

        let process = try check(["haptics", "-"], stdin: failedSaveBody)

        XCTAssertEqual(process.waitForExit(), 1)
        XCTAssertEqual(process.stdoutBytes, served.body)
    }

    // MARK: POST /refresh/run

    /// A built app's Info.plist as Xcode writes it (binary), base64 as `base64` prints
    /// it: both task identifiers permitted, `UIBackgroundModes` = ["fetch"] only.
    private let refreshConfigBody = #"{"config":{"tasks":[{"identifier":"com.example.app.refresh","kind":"appRefresh"},{"identifier":"com.example.app.cleanup","kind":"processing"}],"infoPlist":"YnBsaXN0MDDYAQIDBAUGBwgJCgsMDQ4RFF8QEkNGQnVuZGxlSWRlbnRpZmllcl8QGkNGQnVuZGxl\nU2hvcnRWZXJzaW9uU3RyaW5nXxAPQ0ZCdW5kbGVWZXJzaW9uXxASTFNSZXF1aXJlc0lQaG9uZU9T\nXxAQTWluaW11bU9TVmVyc2lvbl5VSURldmljZUZhbWlseV8QI0JHVGFza1NjaGVkdWxlclBlcm1p\ndHRlZElkZW50aWZpZXJzXxARVUlCYWNrZ3JvdW5kTW9kZXNfEA9jb20uZXhhbXBsZS5hcHBTMi4z\nUjQxCVQxNy4wog8QEAEQAqISE18QF2NvbS5leGFtcGxlLmFwcC5yZWZyZXNoXxAXY29tLmV4YW1w\nbGUuYXBwLmNsZWFudXChFVVmZXRjaAAIABkALgBLAF0AcgCFAJQAugDOAOAA5ADnAOgA7QDwAPIA\n9AD3AREBKwEtAAAAAAAAAgEAAAAAAAAAFgAAAAAAAAAAAAAAAAAAATM=\n"}}"#

    private let expiryMidWriteBody = #"{"runs":[{"at":0,"pages":[{"items":[{"id":"42","title":"a"}],"nextCursor":"c1"}]},{"at":900,"pages":[{"items":[{"id":"42","title":"b"}],"nextCursor":"c2"}],"fault":{"kind":"expire","stage":"write","page":0},"observed":{"outcome":"expired","items":["42"],"cursor":"c1"}}]}"#

    func testRefreshFailsABuiltInfoPlistWithoutTheBackgroundModeInTheHeader() throws {
        let (_, port) = try startServer()

        let response = try XCTUnwrap(post("/refresh/run", refreshConfigBody, port: port))

        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.header("Oracle-Verdict"), "fail")
        let checks = (try json(response.body)["configCheck"] as? [String: Any])?["checks"] as? [[String: Any]]
        XCTAssertEqual(checks?.filter { $0["pass"] as? Bool == false }.compactMap { $0["detail"] as? String },
                       ["UIBackgroundModes has no 'processing', which processing tasks need"])
    }

    func testRefreshRunWithoutAtIs422AtItsPointer() throws {
        let (_, port) = try startServer()

        let response = try XCTUnwrap(post("/refresh/run", #"{"runs":[{"pages":[]}]}"#, port: port))

        XCTAssertEqual(response.status, 422)
        XCTAssertEqual(response.header("Content-Type"), "application/problem+json")
        let errors = try json(response.body)["errors"] as? [[String: String]]
        XCTAssertEqual(errors ?? [], [["pointer": "/runs/0/at", "detail": "required number is missing"]])
    }

    func testCheckRefreshPrintsTheServersBytesAndExitsByVerdict() throws {
        let (_, port) = try startServer()
        let served = try XCTUnwrap(post("/refresh/run", expiryMidWriteBody, port: port))
        let file = try temporaryFile(refreshConfigBody)

        let passing = try check(["refresh", "-"], stdin: expiryMidWriteBody)
        let failing = try check(["refresh/1", file])
        let invalid = try check(["refresh"], stdin: #"{"runs":[{"at":0,"pages":[{}],"fault":{"kind":"expired","stage":"write","page":0}}]}"#)

        XCTAssertEqual(passing.waitForExit(), 0)
        XCTAssertEqual(passing.stdoutBytes, served.body)
        XCTAssertEqual(failing.waitForExit(), 1)
        XCTAssertEqual(invalid.waitForExit(), 2)
        XCTAssertTrue(invalid.stderrText.contains(#""pointer":"/runs/0/fault/kind""#), invalid.stderrText)
    }

    func testInfoPlistNestingHiddenBehindCommentsLeavesTheServerUp() throws {
        // 240 KB: over 64 KiB, so it runs on a Dispatch worker, not on an event loop.
        let depth = 10_000
        let xml = "<plist>" + String(repeating: "<array><!-- </array> -->", count: depth) + String(repeating: "</array>", count: depth) + "</plist>"
        let body = #"{"config":{"tasks":[{"identifier":"a","kind":"appRefresh"}],"infoPlist":"\#(xml)"}}"#
        let (_, port) = try startServer()

        let attack = try XCTUnwrap(post("/refresh/run", body, port: port))
        let next = try XCTUnwrap(post("/refresh/run", refreshConfigBody, port: port))
        let command = try check(["refresh"], stdin: body)

        XCTAssertEqual(attack.status, 422)
        let errors = try json(attack.body)["errors"] as? [[String: String]]
        XCTAssertEqual(errors?.first?["pointer"], "/config/infoPlist")
        XCTAssertEqual(next.status, 200)
        XCTAssertEqual(command.waitForExit(), 2)
    }

    // MARK: POST /audio-session/run

    /// A phone call during play: the sound is suppressed during the call and comes back after it.
    private let phoneCallBody = #"{"events":[{"type":"launched"},{"type":"playSound","name":"coin","observed":{"soundPlayed":true}},{"notification":"AVAudioSessionInterruptionNotification","userInfo":{"AVAudioSessionInterruptionTypeKey":1}},{"type":"playSound","name":"coin","observed":{"actions":[],"soundPlayed":false}},{"notification":"AVAudioSessionInterruptionNotification","userInfo":{"AVAudioSessionInterruptionTypeKey":0,"AVAudioSessionInterruptionOptionKey":0}},{"type":"playSound","name":"coin","observed":{"actions":["playNewPlayer"],"soundPlayed":true}}],"observedFinal":{"active":true,"interrupted":false}}"#

    func testAudioSessionAnswersAPhoneCallWithThePassHeader() throws {
        let (_, port) = try startServer()

        let response = try XCTUnwrap(post("/audio-session/run", phoneCallBody, port: port))

        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.header("Content-Type"), "application/json")
        XCTAssertEqual(response.header("Oracle-Verdict"), "pass")
        let answer = try json(response.body)
        XCTAssertEqual(answer["ruleset"] as? String, "audio-session/1")
        XCTAssertEqual(answer["category"] as? String, "ambient")
        let steps = try XCTUnwrap(answer["steps"] as? [[String: Any]])
        XCTAssertEqual(steps.map { $0["actions"] as? [String] }, [
            ["setCategory", "addObservers", "activate"], ["playNewPlayer"], [], [], ["activate"], ["playNewPlayer"],
        ])
        XCTAssertEqual(steps[4]["resumeHint"] as? Bool, false)
    }

    func testAudioSessionRejectsASoundWithoutANameAtItsPointer() throws {
        let (_, port) = try startServer()

        let response = try XCTUnwrap(post("/audio-session/run", #"{"category":"ambiant","events":[{"type":"playSound"}]}"#, port: port))

        XCTAssertEqual(response.status, 422)
        XCTAssertEqual(response.header("Content-Type"), "application/problem+json")
        XCTAssertNil(response.header("Oracle-Verdict"))
        let errors = try XCTUnwrap(json(response.body)["errors"] as? [[String: String]])
        XCTAssertEqual(errors, [
            ["pointer": "/category", "detail": "unknown category 'ambiant'; did you mean 'ambient'?"],
            ["pointer": "/events/0/name", "detail": "required string is missing"],
        ])
    }

    func testRulesetsListsAudioSession() throws {
        let (_, port) = try startServer()

        let list = try XCTUnwrap(RawExchange.send("GET /rulesets HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n", port: port))

        let rulesets = try XCTUnwrap(json(list.body)["rulesets"] as? [[String: String]])
        XCTAssertEqual(rulesets.first { $0["name"] == "audio-session/1" }, [
            "name": "audio-session/1", "path": "/audio-session/run",
            "summary": "A game's shared audio session over the app lifecycle: activation, interruptions, route changes, media-services reset.",
        ])
    }

    // MARK: ?steps=all|failing|none

    private let flaggedStepBody = #"{"events":[{"type":"userPlayed","observed":{"isPlaying":true}},{"type":"userPaused","at":5},{"type":"userPlayed","at":3}]}"#

    func testStepsAllIsTheAnswerWithoutTheParameterByteForByte() throws {
        let (_, port) = try startServer()

        let plain = try XCTUnwrap(post("/playback/apply", flaggedStepBody, port: port))
        let all = try XCTUnwrap(post("/playback/apply?steps=all", flaggedStepBody, port: port))

        XCTAssertEqual(all.status, 200)
        XCTAssertEqual(all.body, plain.body)
        XCTAssertEqual((try json(all.body)["steps"] as? [Any])?.count, 3)
    }

    func testStepsFailingListsOnlyTheFlaggedStepsWithTheirIndexes() throws {
        let (_, port) = try startServer()

        let response = try XCTUnwrap(post("/playback/apply?steps=failing", flaggedStepBody, port: port))

        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.header("Oracle-Verdict"), "pass")
        let answer = try json(response.body)
        XCTAssertEqual((answer["steps"] as? [[String: Any]])?.map { $0["index"] as? Int }, [2])
        XCTAssertEqual((answer["diagnostics"] as? [[String: Any]])?.first?["code"] as? String, "outOfOrder")
    }

    func testStepsNoneAnswersAnEmptyStepsArrayAndTheRestAsAlways() throws {
        let (_, port) = try startServer()
        let body = #"{"events":[{"type":"saveTapped"},{"type":"saveFailed","observed":{"visible":"error","haptic":"play"}}]}"#

        let all = try XCTUnwrap(post("/haptics/contract", body, port: port))
        let none = try XCTUnwrap(post("/haptics/contract?steps=none", body, port: port))

        XCTAssertEqual(none.status, 200)
        XCTAssertEqual(none.header("Oracle-Verdict"), all.header("Oracle-Verdict"))
        var withoutSteps = try json(all.body)
        withoutSteps["steps"] = [Any]()
        XCTAssertEqual(try json(none.body) as NSDictionary, withoutSteps as NSDictionary)
    }

    func testAnUnknownOrRepeatedStepsValueIs400InvalidQueryNamingTheParameter() throws {
        let (_, port) = try startServer()

        let unknown = try XCTUnwrap(post("/refresh/run?steps=faling", #"{"runs":[]}"#, port: port))
        let twice = try XCTUnwrap(post("/audio-session/run?steps=none&steps=all", #"{"events":[]}"#, port: port))

        XCTAssertEqual(unknown.status, 400)
        XCTAssertEqual(try json(unknown.body)["type"] as? String, "/problems/invalid-query")
        XCTAssertEqual(try json(unknown.body)["detail"] as? String,
                       "unknown 'steps' value 'faling'; did you mean 'failing'? (values: all, failing, none)")
        XCTAssertEqual(twice.status, 400)
        XCTAssertEqual(try json(twice.body)["detail"] as? String, "'steps' is given 2 times; give it once")
    }

    func testCheckTakesStepsAndPrintsWhatTheServerAnswers() throws {
        let (_, port) = try startServer()
        let served = try XCTUnwrap(post("/playback/apply?steps=failing", flaggedStepBody, port: port))

        let failing = try check(["playback", try temporaryFile(flaggedStepBody), "--steps", "failing"])
        let none = try check(["playback", "--steps=none", "-"], stdin: flaggedStepBody)
        let unknown = try check(["playback", "-", "--steps", "some"], stdin: flaggedStepBody)

        XCTAssertEqual(failing.waitForExit(), 0)
        XCTAssertEqual(failing.stdoutBytes, served.body)
        XCTAssertEqual(none.waitForExit(), 0)
        XCTAssertTrue(none.stdoutText.contains(#""steps":[],"#), none.stdoutText)
        XCTAssertEqual(unknown.waitForExit(), 2)
        XCTAssertTrue(unknown.stderrText.contains("unknown 'steps' value 'some'"), unknown.stderrText)
    }

    // MARK: device-oracle check

    func testCheckPrintsTheSameBytesAsTheServer() throws {
        let (_, port) = try startServer()
        let served = try XCTUnwrap(post("/playback/apply", benchmarkBody, port: port))

        let process = try check(["playback", "-"], stdin: benchmarkBody)

        XCTAssertEqual(process.waitForExit(), 0)
        XCTAssertEqual(process.stdoutBytes, served.body)
    }

    func testCheckReadsAFileAndTakesTheVersionedName() throws {
        let file = try temporaryFile(benchmarkBody)

        let process = try check(["playback/1", file])

        XCTAssertEqual(process.waitForExit(), 0)
        XCTAssertTrue(process.stdoutText.hasPrefix(#"{"ruleset":"playback/1""#))
    }

    func testCheckReadsStandardInputWithoutAFileArgument() throws {
        let process = try check(["playback"], stdin: #"{"events":[]}"#)

        XCTAssertEqual(process.waitForExit(), 0)
        XCTAssertTrue(process.stdoutText.contains(#""verdict":"unchecked""#))
    }

    func testCheckExitsWith1OnFail() throws {
        let process = try check(["playback", "-"], stdin: #"{"events":[{"type":"userPlayed","observed":{"isPlaying":false}}]}"#)

        XCTAssertEqual(process.waitForExit(), 1)
        XCTAssertTrue(process.stdoutText.contains(#""verdict":"fail""#))
    }

    func testCheckExitsWith2AndPrintsTheProblemOnStderrForBadInput() throws {
        let process = try check(["playback", "-"], stdin: #"{"events":[{"type":"userPause"}]}"#)

        XCTAssertEqual(process.waitForExit(), 2)
        XCTAssertEqual(process.stdoutText, "")
        XCTAssertTrue(process.stderrText.contains(#""pointer":"/events/0/type""#), process.stderrText)
    }

    func testCheckExitsWith2ForAnUnknownRulesetOrAMissingFile() throws {
        let unknown = try check(["playbak", "-"], stdin: "{}")
        let missing = try check(["playback", "/nonexistent/log.json"])

        XCTAssertEqual(unknown.waitForExit(), 2)
        XCTAssertTrue(unknown.stderrText.contains("unknown ruleset 'playbak'"))
        XCTAssertEqual(missing.waitForExit(), 2)
        XCTAssertTrue(missing.stderrText.contains("cannot read /nonexistent/log.json"))
    }

    func testCheckAudioSessionPrintsTheSameBytesAsTheServer() throws {
        let (_, port) = try startServer()
        let served = try XCTUnwrap(post("/audio-session/run", phoneCallBody, port: port))

        let process = try check(["audio-session", "-"], stdin: phoneCallBody)

        XCTAssertEqual(process.waitForExit(), 0)
        XCTAssertEqual(process.stdoutBytes, served.body)
    }

    func testCheckAudioSessionExitsWith1WhenTheDeviceWentSilentAfterACall() throws {
        let body = #"{"initial":{"foreground":true,"interrupted":true,"categorySet":true,"observing":true},"events":[{"type":"interruptionEnded","shouldResume":false,"observed":{"actions":[]}}]}"#

        let process = try check(["audio-session/1", "-"], stdin: body)

        XCTAssertEqual(process.waitForExit(), 1)
        XCTAssertTrue(process.stdoutText.contains(#""mismatches":[{"index":0,"field":"actions","expected":["activate"],"observed":[]}]"#),
                      process.stdoutText)
    }
}
