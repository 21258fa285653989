import Foundation
import XCTest
import DeviceOracleJSON
@testable import DeviceOracleWire

/// `POST /rulesets/{name}/repro`: the shortest request that fails as a log's first
/// mismatch does.
final class ReproTests: XCTestCase {
    private func repro(_ endpoint: RulesetEndpoint, _ body: String, ndjson: Bool = false,
                       file: StaticString = #filePath, line: UInt = #line) throws -> Answer {
        switch endpoint.repro(Array(body.utf8), ndjson: ndjson) {
        case .success(let json): return try parsed(json)
        case .failure(let rejection):
            XCTFail("rejected: \(rejection.detail) \(rejection.problems)", file: file, line: line)
            throw rejection
        }
    }

    func testAnNDJSONLogWhoseEventNestsToTheLimitGetsA422ForAReproThatCouldNotBePostedBack() {
        // The line nests 63 deep; inside `{"events":[…]}` its event would nest 65.
        let deep = String(repeating: "[", count: 62) + String(repeating: "]", count: 62)
        let log = #"{"type":"userPlayed","x":"# + deep + #","observed":{"isPlaying":false}}"# + "\n"

        let result = PlaybackRuleset.endpoint.repro(Array(log.utf8), ndjson: true)

        guard case .failure(let rejection) = result else { return XCTFail("expected a 422") }
        XCTAssertEqual(rejection.status, 422)
        XCTAssertTrue(rejection.detail.hasPrefix("the log's repro cannot be checked: "), rejection.detail)
        XCTAssertTrue(rejection.detail.contains("nesting deeper than 64"), rejection.detail)
    }

    func testAnNDJSONLogThatDivergesOnlyInAnObservedFinalNestedToTheLimitIsReproducedFromItsLines() throws {
        let deep = String(repeating: "[", count: 61) + String(repeating: "]", count: 61)
        let log = #"{"type":"userPlayed"}"# + "\n" + #"{"observedFinal":{"isPlaying":"# + deep + "}}\n"

        let repro = try repro(PlaybackRuleset.endpoint, log, ndjson: true)

        XCTAssertEqual(repro["/divergence/field"], #""final.isPlaying""#)
        XCTAssertEqual(repro["/eventClasses"], #"["userPlayed"]"#)
        XCTAssertEqual(repro["/verdict"], #""fail""#)
    }

    func testTheReproIsTheShortestRouteToTheDivergingStateThenTheLogsOwnEvent() throws {
        // Step 4 starts playing, with resume set by nothing: the route is userPlayed, then the step's event.
        let log = #"""
        {"events":[{"type":"userPaused"},{"type":"routeChanged","reason":"newDeviceAvailable"},{"type":"userPlayed"},
        {"type":"userPaused"},{"type":"userPlayed"},{"type":"interruptionBegan","id":"line-88","observed":{"action":"none"}}]}
        """#

        let repro = try repro(PlaybackRuleset.endpoint, log)

        XCTAssertEqual(repro["/divergence"], #"{"index":5,"field":"action","expected":"pause","observed":"none"}"#)
        XCTAssertEqual(repro["/originalLength"], "6")
        XCTAssertEqual(repro["/reproLength"], "2")
        XCTAssertEqual(repro["/eventClasses"], #"["userPlayed","interruptionBegan"]"#)
        XCTAssertEqual(repro["/request"],
                       #"{"events":[{"type":"userPlayed"},{"type":"interruptionBegan","id":"line-88","observed":{"action":"none"}}]}"#)
        XCTAssertEqual(repro["/path/1/before"], #"{"isPlaying":true,"resumeAfterInterruption":false}"#)
        XCTAssertEqual(repro["/verdict"], #""fail""#)
    }

    func testTheReproStartsWhereTheLogStartsKeepingItsOtherMembers() throws {
        let log = #"""
        {"category":"playback","initial":{"foreground":false},"events":[{"type":"launched"},
        {"type":"enteredForeground","observed":{"active":false}}]}
        """#

        let repro = try repro(AudioSessionRuleset.endpoint, log)

        XCTAssertEqual(repro["/request/category"], #""playback""#)
        XCTAssertEqual(repro["/request/initial"], #"{"foreground":false}"#)
        XCTAssertEqual(repro["/reproLength"], "2")
    }

    func testTheLastEventLeavesItsSessionToRunOnTheMachineTheRouteDrove() throws {
        let log = #"""
        {"initial":{"isPlaying":true},"events":[{"type":"userPaused","session":"a"},
        {"type":"interruptionBegan","session":"b"},{"type":"interruptionEnded","shouldResume":true,"session":"b","observed":{"isPlaying":false}}]}
        """#

        let repro = try repro(PlaybackRuleset.endpoint, log)

        XCTAssertEqual(repro["/request"],
                       #"{"initial":{"isPlaying":true},"events":[{"type":"interruptionBegan"},{"type":"interruptionEnded","shouldResume":true,"observed":{"isPlaying":false}}]}"#)
        XCTAssertEqual(repro["/originalLength"], "3")
    }

    func testAFinalStateDivergenceIsReproducedAtTheLastStepWithTheLogsObservedFinal() throws {
        let log = #"""
        {"events":[{"type":"saveTapped"},{"type":"saveTapped"},{"type":"saveSucceeded"}],"observedFinal":{"engine":"stopped"}}
        """#

        let repro = try repro(HapticsRuleset.endpoint, log)

        XCTAssertEqual(repro["/divergence"], #"{"index":null,"field":"final.engine","expected":"running","observed":"stopped"}"#)
        XCTAssertEqual(repro["/originalLength"], "3")
        XCTAssertEqual(repro["/reproLength"], "2")
        XCTAssertEqual(repro["/request"],
                       #"{"events":[{"type":"saveTapped"},{"type":"saveSucceeded"}],"observedFinal":{"engine":"stopped"}}"#)
    }

    func testALogWithNoEventsDivergesInItsStartingState() throws {
        let pattern = #"[{"eventType":"hapticTransient","relativeTime":0,"parameters":{"hapticIntensity":0.65,"hapticSharpness":0.35}}]"#
        let repro = try repro(HapticsRuleset.endpoint,
                              #"{"pattern":\#(pattern),"supportsHaptics":false,"observedFinal":{"engine":"stopped"}}"#)

        XCTAssertEqual(repro["/originalLength"], "0")
        XCTAssertEqual(repro["/reproLength"], "0")
        XCTAssertEqual(repro["/path"], "[]")
        XCTAssertEqual(repro["/request"],
                       #"{"pattern":\#(pattern),"supportsHaptics":false,"events":[],"observedFinal":{"engine":"stopped"}}"#)
    }

    func testAStartingStateTheModelNeverReachesIsStillAStartOfTheRoute() throws {
        // Playing with a resume pending is set only through `initial`: its own transitions lead on.
        let log = #"""
        {"initial":{"isPlaying":true,"resumeAfterInterruption":true},"events":[{"type":"routeChanged","reason":"override"},
        {"type":"interruptionBegan"},{"type":"interruptionEnded","shouldResume":true,"observed":{"isPlaying":false}}]}
        """#

        let repro = try repro(PlaybackRuleset.endpoint, log)

        XCTAssertEqual(repro["/eventClasses"], #"["interruptionBegan","interruptionEnded(shouldResume=true)"]"#)
        XCTAssertEqual(repro["/path/0/before"], #"{"isPlaying":true,"resumeAfterInterruption":true}"#)
    }

    func testAPassingOrUncheckedLogHasNothingToReproduce() {
        for (body, why) in [(#"{"events":[{"type":"userPlayed","observed":{"isPlaying":true}}]}"#, "passes"),
                            (#"{"events":[{"type":"userPlayed"}]}"#, "unchecked")] {
            guard case .failure(let rejection) = PlaybackRuleset.endpoint.repro(Array(body.utf8)) else {
                return XCTFail("expected nothing to reproduce for \(body)")
            }
            XCTAssertEqual(rejection.kind, .nothingToReproduce)
            XCTAssertEqual(rejection.status, 422)
            XCTAssertEqual(rejection.problemType, "/problems/nothing-to-reproduce")
            XCTAssert(rejection.detail.contains(why), rejection.detail)
        }
    }

    func testAnInvalidLogGetsTheEndpointsOwnProblems() {
        guard case .failure(let rejection) = PlaybackRuleset.endpoint.repro(Array(#"{"events":[{"type":"userPlayd"}]}"#.utf8)) else {
            return XCTFail("expected a rejection")
        }
        XCTAssertEqual(rejection.kind, .invalidRequest)
        XCTAssertEqual(rejection.problems.map(\.pointer), ["/events/0/type"])
    }

    func testTheNDJSONFormOfALogGivesTheSameRepro() throws {
        let json = #"{"initial":{"isPlaying":true},"events":[{"type":"userPaused"},{"type":"userPlayed","observed":{"action":"none"}}]}"#
        let ndjson = """
        {"initial":{"isPlaying":true}}
        {"type":"userPaused"}
        {"type":"userPlayed","observed":{"action":"none"}}

        """

        XCTAssertEqual(try repro(PlaybackRuleset.endpoint, ndjson, ndjson: true).text,
                       try repro(PlaybackRuleset.endpoint, json).text)
    }

    func testABadNDJSONLineIsRefusedWithItsLine() {
        let ndjson = "{\"initial\":{\"isPlaying\":true}}\n{\"type\":\"userPlayed\"}\n{\"type\":\"nope\"}\n"
        guard case .failure(let rejection) = PlaybackRuleset.endpoint.repro(Array(ndjson.utf8), ndjson: true) else {
            return XCTFail("expected a rejection")
        }
        XCTAssertEqual(rejection.line, 3)
    }

    // MARK: refresh: from the store the run saw, after the failures that set its backoff

    /// Two failures, then a crash at `write` that left a temporary file, then a run
    /// whose backoff the device got wrong.
    private let refreshLog = #"""
        {"store":{"items":[{"id":"1","title":"a"}],"cursor":"c0","lastSuccessAt":null},"runs":[
        {"at":0,"pages":[{"items":[{"id":"2","title":"b"}],"nextCursor":"c1"}]},
        {"at":900,"pages":[{"items":[{"id":"3"}],"nextCursor":"c2"}],"fault":{"kind":"error","stage":"download","page":0}},
        {"at":960,"pages":[{"items":[{"id":"3"}],"nextCursor":"c2"}],"fault":{"kind":"expire","stage":"write","page":0}},
        {"at":1080,"pages":[{"items":[{"id":"3"}],"nextCursor":"c2"}],"fault":{"kind":"crash","stage":"write","page":0}},
        {"at":1300,"id":"sync-5","pages":[{"items":[{"id":"3"}],"nextCursor":"c2"},{"items":[{"id":"4"}]}],
         "fault":{"kind":"error","stage":"cursor","page":1},"observed":{"nextEarliestBeginAt":1420}}]}
        """#

    func testARefreshRunIsReproducedFromTheStoreItSawAfterTheFailuresAndTheCrashBeforeIt() throws {
        let repro = try repro(RefreshRuleset.endpoint, refreshLog)

        XCTAssertEqual(repro["/divergence"], #"{"index":4,"field":"nextEarliestBeginAt","expected":1540,"observed":1420}"#)
        XCTAssertEqual(repro["/originalLength"], "5")
        XCTAssertEqual(repro["/eventClasses"], #"["error(stage=download,page=first)","error(stage=download,page=first)","crash(stage=write,page=first)","error(stage=cursor,page=last)"]"#)
        XCTAssertEqual(repro["/request/store"], #"{"items":[{"id":"1","title":"a"},{"id":"2","title":"b"}],"cursor":"c1","lastSuccessAt":0}"#)
        XCTAssertEqual(repro["/request/runs/0"], #"{"at":900,"pages":[{"items":[]}],"fault":{"kind":"error","stage":"download","page":0}}"#)
        XCTAssertEqual(repro["/request/runs/2"], #"{"at":1080,"pages":[{"items":[]}],"fault":{"kind":"crash","stage":"write","page":0}}"#)
        XCTAssertEqual(repro["/request/runs/3/id"], #""sync-5""#)
        XCTAssertEqual(repro["/path/3/actions"], #"["removeStaleTemp","completeFailure"]"#)
    }

    func testARefreshFailureStreakIsRebuiltOnlyAsFarAsItStillChangesTheBackoff() throws {
        // With the default schedule the seventh failure in a row waits 3,600 s, as every later one does.
        let failure = #"{"at":0,"pages":[{"items":[]}],"fault":{"kind":"error","stage":"download","page":0}}"#
        let log = #"{"runs":[\#(Array(repeating: failure, count: 10).joined(separator: ",")),"#
            + #"{"at":9000,"pages":[],"fault":null,"observed":{"outcome":"failed"}}]}"#

        let repro = try repro(RefreshRuleset.endpoint, log.replacingOccurrences(of: #","fault":null"#, with: ""))

        XCTAssertEqual(repro["/reproLength"], "7")
        XCTAssertEqual(repro["/originalLength"], "11")
    }

    func testWithoutABackoffNoFailureMattersAndNoneIsRebuilt() throws {
        let failure = #"{"at":0,"pages":[{"items":[]}],"fault":{"kind":"error","stage":"download","page":0}}"#
        let log = #"{"schedule":{"backoffBaseSeconds":0},"runs":[\#(failure),\#(failure),"#
            + #"{"at":60,"pages":[],"observed":{"nextEarliestBeginAt":0}}]}"#

        let repro = try repro(RefreshRuleset.endpoint, log)

        XCTAssertEqual(repro["/eventClasses"], #"["run(noPages)"]"#)
        XCTAssertEqual(repro["/request/schedule"], #"{"backoffBaseSeconds":0}"#)
    }

    func testARefreshPreludeReadBackwardsFromHeldRunsEqualsOneNotedRunByRun() throws {
        // Failures, crashes and successes in a fixed pseudo-random order, at every length.
        let kinds = [nil, "error", "crash", "expire", "error", "error", nil, "crash", "error", "expire", "error",
                     "crash", "error", "error", "error", "error", "error", "error", "error"]
        let runs = kinds.enumerated().map { index, kind in
            #"{"at":\#(index * 60),"pages":[{"items":[]}]"# + (kind.map { #","fault":{"kind":"\#($0)","stage":"download","page":0}"# } ?? "") + "}"
        }
        let document = try JSONReader.parse(Array(#"{"schedule":{"backoffMaxSeconds":900},"runs":[\#(runs.joined(separator: ","))]}"#.utf8))
        let held = Array(document.elements(try XCTUnwrap(document.member(document.root, "runs"))))

        for count in 0...held.count {
            var streamed = RefreshRunUp(head: document.root, in: document)
            for run in held[..<count] { streamed.note(run, in: document) }
            let read = RefreshRunUp(head: document.root, events: held[..<count], in: document)

            XCTAssertEqual(read.failures, streamed.failures, "after \(count) runs")
            XCTAssertEqual(Array(read.latestTimes), Array(streamed.latestTimes), "after \(count) runs")
        }
    }

    func testARefreshFinalStateDivergenceIsReproducedAtTheLastRunWithThatFieldAlone() throws {
        let log = #"""
        {"runs":[{"at":0,"pages":[{"items":[{"id":"1"}],"nextCursor":"c1"}]},
        {"at":900,"pages":[{"items":[{"id":"2"}],"nextCursor":"c2"}]}],
        "observedFinal":{"cursor":"c2","items":["1"]}}
        """#

        let repro = try repro(RefreshRuleset.endpoint, log)

        XCTAssertEqual(repro["/divergence/field"], #""final.items""#)
        XCTAssertEqual(repro["/request"], #"{"store":{"items":[{"id":"1"}],"cursor":"c1","lastSuccessAt":0},"runs":[{"at":900,"pages":[{"items":[{"id":"2"}],"nextCursor":"c2"}]}],"observedFinal":{"items":["1"]}}"#)
    }

    func testADivergingTotalOfCommitsIsPaddedByTheStreaksFailuresWithEmptyPages() throws {
        // A failure at `cursor` of page 5 committed 6 transactions: the streak's failure carries them.
        let pages = Array(repeating: #"{"items":[{"id":"1"}]}"#, count: 6).joined(separator: ",")
        let log = #"{"runs":[{"at":0,"pages":[\#(pages)],"fault":{"kind":"error","stage":"cursor","page":5}},"#
            + #"{"at":60,"pages":[{"items":[{"id":"2"}]}]}],"observedFinal":{"commits":6}}"#

        let repro = try repro(RefreshRuleset.endpoint, log)

        XCTAssertEqual(repro["/divergence"], #"{"index":null,"field":"final.commits","expected":7,"observed":6}"#)
        XCTAssertEqual(repro["/eventClasses"], #"["error(stage=cursor,page=last)","run(noFault)"]"#)
        XCTAssertEqual(repro["/request/runs/0/fault"], #"{"kind":"error","stage":"cursor","page":5}"#)
        XCTAssertEqual(repro["/request/runs/0/pages/5"], #"{"items":[]}"#)
    }

    func testCommitsBeyondTheStreakArePaddedByOneSuccessfulRunAtTheLastSuccess() throws {
        let pages = Array(repeating: #"{"items":[{"id":"1"}]}"#, count: 100).joined(separator: ",")
        let log = #"{"runs":[{"at":0,"pages":[\#(pages)]},{"at":900,"pages":[{"items":[{"id":"2"}]}]}],"observedFinal":{"commits":100}}"#

        let repro = try repro(RefreshRuleset.endpoint, log)

        XCTAssertEqual(repro["/eventClasses"], #"["run(noFault)","run(noFault)"]"#)
        XCTAssertEqual(repro["/path/0/commits"], "100")
        XCTAssertEqual(repro["/path/0/after"], repro["/path/0/before"])
    }

    func testARefreshLogWithNoRunsIsReproducedFromItsStoreAlone() throws {
        let repro = try repro(RefreshRuleset.endpoint, #"{"store":{"items":[],"cursor":"c9"},"runs":[],"observedFinal":{"cursor":"c8"}}"#)

        XCTAssertEqual(repro["/reproLength"], "0")
        XCTAssertEqual(repro["/request"], #"{"store":{"items":[],"cursor":"c9","lastSuccessAt":null},"runs":[],"observedFinal":{"cursor":"c8"}}"#)
    }

    /// Random walks of each model with one wrong observed field at a random step:
    /// posting the repro's request diverges exactly as the log did, at its last step,
    /// and the repro is never longer than the log's prefix.
    func testARepostedReproDivergesAsTheLogDidAndIsNoLongerThanItsPrefix() throws {
        for endpoint in [PlaybackRuleset.endpoint, HapticsRuleset.endpoint, AudioSessionRuleset.endpoint] {
            try checkRepostedRepros(endpoint) { seed, steps in
                let after = try XCTUnwrap(steps[seed % steps.count]["after"] as? [String: Any])
                let field = after.keys.sorted()[seed % after.count]
                return .step([field: (after[field] as? Bool).map { !$0 } ?? "not-\(after[field]!)"])
            }
        }
    }

    /// The same for refresh's runs: a wrong outcome, count, cursor, item list or
    /// next begin time at a random run of a walk through failures, expiries and
    /// crashes, or a wrong total of commits, which the repro pads.
    func testARepostedRefreshReproDivergesAsTheLogDidAndIsNoLongerThanItsPrefix() throws {
        try checkRepostedRepros(RefreshRuleset.endpoint) { seed, steps in
            guard seed % 8 != 7 else {
                let commits = steps.reduce(0) { $0 + ($1["commits"] as? Int ?? 0) }
                return .final(["commits": commits == 0 ? 1 : commits - 1])
            }
            let step = steps[seed % steps.count]
            let after = try XCTUnwrap(step["after"] as? [String: Any])
            let ids = (after["items"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            let next = step["nextEarliestBeginAt"] as? Double
            let wrong: [(String, Any)] = [
                ("outcome", step["outcome"] as? String == "failed" ? "succeeded" : "failed"),
                ("commits", (step["commits"] as? Int ?? 0) + 1),
                ("pagesCommitted", (step["pagesCommitted"] as? Int ?? 0) + 1),
                ("tempFilesLeft", 1 - (step["tempFilesLeft"] as? Int ?? 0)),
                ("cursor", "not-\(after["cursor"] as? String ?? "null")"),
                ("items", ids.isEmpty ? ["item-x"] : Array(ids.dropLast())),
                ("nextEarliestBeginAt", next.map { $0 + 1 } ?? 1),
            ]
            return .step([wrong[seed % wrong.count].0: wrong[seed % wrong.count].1])
        }
    }

    /// What a log got wrong: `observed` at its step `seed % count`, or `observedFinal`.
    private enum WrongObservation {
        case step([String: Any])
        case final([String: Any])
    }

    /// Posts the repro of 40 random walks of `endpoint`'s model, each with the wrong
    /// observation `wrong` gives (from the seed and the canonical steps), and checks
    /// it diverges as the log did.
    private func checkRepostedRepros(_ endpoint: RulesetEndpoint,
                                     wrong: (Int, [[String: Any]]) throws -> WrongObservation) throws {
        let sequence = endpoint.sequence
        for seed in 0..<40 {
            let plan = try parsed(try XCTUnwrap(try endpoint.plan(coverage: "random", maxLength: 30, seed: seed, count: 1).get()))
            let sequences = try XCTUnwrap(plan.document.member(plan.document.root, "sequences"))
            let walk = try XCTUnwrap(Array(plan.document.elements(sequences)).first)
            let request = try JSONSerialization.jsonObject(with: Data(try XCTUnwrap(subtext(walk, "request", of: plan)).utf8))
            let steps = try JSONSerialization.jsonObject(with: Data(try XCTUnwrap(subtext(walk, "answer", of: plan)).utf8))
            guard var log = request as? [String: Any], var events = log[sequence] as? [[String: Any]],
                  let answerSteps = (steps as? [String: Any])?["steps"] as? [[String: Any]], !events.isEmpty else {
                return XCTFail("a plan's walk is a log with its answer")
            }
            var index = seed % events.count
            switch try wrong(seed, answerSteps) {
            case .step(let observed): events[index]["observed"] = observed
            case .final(let observed):
                log["observedFinal"] = observed
                index = events.count - 1
            }
            log[sequence] = events
            let body = String(decoding: try JSONSerialization.data(withJSONObject: log, options: [.sortedKeys]), as: UTF8.self)

            let original = try answer(endpoint, body)
            let repro = try repro(endpoint, body)
            // The NDJSON form gives the same bytes.
            XCTAssertEqual(try self.repro(endpoint, ndjson(log, sequence: sequence), ndjson: true).text, repro.text,
                           "\(endpoint.name) seed \(seed)")
            let reposted = try answer(endpoint, try XCTUnwrap(repro["/request"]))

            let context = "\(endpoint.name) seed \(seed): \(body)"
            let reproLength = try XCTUnwrap(Int(try XCTUnwrap(repro["/reproLength"])))
            XCTAssertEqual(repro["/divergence"], original["/mismatches/0"], context)
            XCTAssertEqual(reposted["/mismatches/0/index"], log["observedFinal"] == nil ? "\(reproLength - 1)" : "null", context)
            for member in ["field", "expected", "observed"] {
                XCTAssertEqual(reposted["/mismatches/0/\(member)"], original["/mismatches/0/\(member)"], context)
            }
            XCTAssertLessThanOrEqual(reproLength, index + 1, context)
            XCTAssertEqual(repro["/path"], reposted["/steps"], context)
        }
    }

    /// A log's NDJSON form (streaming.md): a head line of its members, a line per event,
    /// a tail line of its `observedFinal`.
    private func ndjson(_ log: [String: Any], sequence: String = "events") throws -> String {
        func line(_ object: Any) throws -> String {
            String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self) + "\n"
        }
        var head = log
        head[sequence] = nil
        head["observedFinal"] = nil
        var text = try line(head)
        for event in log[sequence] as? [Any] ?? [] { text += try line(event) }
        if let observedFinal = log["observedFinal"] { text += try line(["observedFinal": observedFinal]) }
        return text
    }

    func testAnNDJSONLogDivergingOnlyInItsFinalStateOrNotAtAllGivesWhatItsJSONFormGives() throws {
        let final = try JSONSerialization.jsonObject(with: Data(#"""
        {"pattern":[{"eventType":"hapticTransient","relativeTime":0,"parameters":{"hapticIntensity":0.65,"hapticSharpness":0.35}}],
         "events":[{"type":"saveTapped"},{"type":"saveTapped"},{"type":"saveSucceeded"}],"observedFinal":{"engine":"stopped"}}
        """#.utf8)) as! [String: Any]
        let json = String(decoding: try JSONSerialization.data(withJSONObject: final, options: [.sortedKeys]), as: UTF8.self)

        XCTAssertEqual(try repro(HapticsRuleset.endpoint, ndjson(final), ndjson: true).text,
                       try repro(HapticsRuleset.endpoint, json).text)
        for body in ["{\"type\":\"userPlayed\",\"observed\":{\"isPlaying\":true}}\n", "{\"type\":\"userPlayed\"}\n"] {
            guard case .failure(let fromLines) = PlaybackRuleset.endpoint.repro(Array(body.utf8), ndjson: true),
                  case .failure(let fromJSON) = PlaybackRuleset.endpoint.repro(Array("{\"events\":[\(body.dropLast())]}".utf8)) else {
                return XCTFail("nothing to reproduce in \(body)")
            }
            XCTAssertEqual(fromLines.kind, .nothingToReproduce)
            XCTAssertEqual(fromLines.detail, fromJSON.detail)
        }
    }

    private func subtext(_ object: JSONValue, _ name: StaticString, of answer: Answer) -> String? {
        guard let value = answer.document.member(object, name) else { return nil }
        var writer = JSONWriter()
        writer.value(value, of: answer.document)
        return String(decoding: writer.finish(), as: UTF8.self)
    }
}
