import DeviceOracleHTTP
import DeviceOracleJSON
@testable import DeviceOracleWire
@testable import device_oracle
import XCTest

/// Two versions of playback served side by side at one path (common.md, "Versions"):
/// the build's `playback/1` and the tests' `playback/2` (`Playback2Ruleset`), which
/// knows one more event, `userToggled`. A request that pins a version gets its rules;
/// one that pins none gets the newest; the model routes address each version.
final class PlaybackVersionsTests: XCTestCase {
    /// The build's registry and one line more.
    private static let registry = try! RulesetRegistry(Rulesets.all + [Playback2Ruleset.endpoint])
    private static let router = Router(ServiceRoutes.all(registry: registry))

    private let toggled = #"{"events":[{"type":"userToggled","observed":{"isPlaying":true}}]}"#
    private let toggledPinned = #"{"ruleset":"playback/1","events":[{"type":"userToggled"}]}"#

    // MARK: the registry

    func testThePathHoldsBothVersionsNewestFirst() throws {
        let playback = try XCTUnwrap(Self.registry.versions(at: "/playback/apply"))

        XCTAssertEqual(playback.versions.map(\.name), ["playback/2", "playback/1"])
        XCTAssertEqual(Self.registry.named("playback")?.name, "playback/2")
        XCTAssertEqual(Self.registry.named("playback/1")?.name, "playback/1")
        XCTAssertEqual(Self.registry.paths.map(\.path), Rulesets.registry.paths.map(\.path))
    }

    func testTheBuildsRegistryHasOneVersionAPath() {
        XCTAssertEqual(Rulesets.registry.all.map(\.name), ["playback/1", "haptics/1", "refresh/1", "audio-session/1"])
    }

    func testAVersionRegisteredTwiceIsRefused() {
        XCTAssertThrowsError(try RulesetRegistry(Rulesets.all + [PlaybackRuleset.endpoint])) { error in
            XCTAssertEqual("\(error)", "ruleset 'playback/1' is registered twice")
        }
    }

    func testTheVersionsOfARulesetShareItsPath() {
        let elsewhere = EventLogDriver<Playback2Ruleset>.endpoint("playback/3", path: "/playback/other", summary: "")
        XCTAssertThrowsError(try RulesetRegistry(Rulesets.all + [elsewhere])) { error in
            XCTAssertEqual("\(error)", "'playback/3' is served at /playback/other and 'playback/1' at /playback/apply: "
                + "the versions of one ruleset share a path")
        }
    }

    func testARouteGivenTwiceIsFoundBeforeServing() {
        let routes = ServiceRoutes.all(registry: Self.registry)
        XCTAssertEqual(Router.duplicatePaths(routes), [])
        XCTAssertEqual(Router.duplicatePaths(routes + routes.prefix(2)), ["/", "/healthz"])
    }

    // MARK: POST /playback/apply

    func testARequestThatPinsNoVersionGetsTheNewest() throws {
        let answer = try post("/playback/apply", toggled)

        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(answer.json["ruleset"] as? String, "playback/2")
        XCTAssertEqual(answer.header("Oracle-Verdict"), "pass")
    }

    func testARequestThatPinsTheOldVersionGetsTheOldRules() throws {
        let answer = try post("/playback/apply", toggledPinned)

        XCTAssertEqual(answer.status, 422)
        XCTAssertEqual(answer.errors, ["/events/0/type: unknown event type 'userToggled'"])
    }

    func testAPinnedRequestIsAnsweredByteForByteAsTheOldVersionAlone() throws {
        let body = #"{"ruleset":"playback/1","initial":{"isPlaying":true},"events":[{"type":"routeChanged","reason":2}]}"#
        let answer = try post("/playback/apply", body)

        XCTAssertEqual(answer.body, try PlaybackRuleset.endpoint.answer(Array(body.utf8)).get().json)
    }

    func testAPinToAVersionNotServedListsEveryVersion() throws {
        let answer = try post("/playback/apply", #"{"ruleset":"playback/3","events":[]}"#)

        XCTAssertEqual(answer.status, 422)
        XCTAssertEqual(answer.errors, ["/ruleset: ruleset 'playback/3' is not served here; this endpoint serves 'playback/2', 'playback/1'"])
    }

    func testGETRulesetsListsBothVersionsAtTheirPath() throws {
        let list = try XCTUnwrap(try get("/rulesets").json["rulesets"] as? [[String: String]])

        XCTAssertEqual(list.prefix(2).map { $0["name"] }, ["playback/2", "playback/1"])
        XCTAssertEqual(list.prefix(2).map { $0["path"] }, ["/playback/apply", "/playback/apply"])
    }

    // MARK: the NDJSON form

    func testTheNDJSONHeadLinePinsTheVersion() throws {
        let element = #"{"type":"userToggled"}"#
        XCTAssertEqual(try ndjson(element).last?["ruleset"] as? String, "playback/2")
        XCTAssertEqual(try ndjson(#"{"ruleset":"playback/2"}"#, element).last?["ruleset"] as? String, "playback/2")

        let pinned = try ndjson(#"{"ruleset":"playback/1"}"#, element)
        XCTAssertEqual((pinned.last?["problem"] as? [String: Any])?["status"] as? Int, 422)
    }

    // MARK: the model routes

    func testEachVersionHasItsModelRoutesAndTheShortNameIsTheNewest() throws {
        for (path, ruleset) in [("/rulesets/playback/1/plan", "playback/1"), ("/rulesets/playback/2/plan", "playback/2"),
                                ("/rulesets/playback/plan", "playback/2")] {
            let plan = try post(path, "{}")
            XCTAssertEqual(plan.status, 200, path)
            XCTAssertEqual(plan.json["ruleset"] as? String, ruleset, path)
        }
        for name in ["playback/1", "playback/2", "playback"] {
            XCTAssertEqual(try get("/rulesets/\(name)/diagram").status, 200, name)
            let coverage = try post("/rulesets/\(name)/coverage", #"{"logs":[]}"#)
            XCTAssertEqual(coverage.json["ruleset"] as? String, name == "playback" ? "playback/2" : name)
        }
        let failing = #"{"initial":{"isPlaying":true},"events":[{"type":"routeChanged","reason":2,"observed":{"isPlaying":true}}]}"#
        for (name, ruleset) in [("playback/1", "playback/1"), ("playback/2", "playback/2"), ("playback", "playback/2")] {
            let repro = try post("/rulesets/\(name)/repro", failing)
            XCTAssertEqual(repro.status, 200, name)
            XCTAssertEqual(repro.json["ruleset"] as? String, ruleset, name)
        }
    }

    func testEachVersionsModelWalksItsOwnEvents() throws {
        let newest = try post("/rulesets/playback/2/plan", "{}"), old = try post("/rulesets/playback/1/plan", "{}")
        let toggle = Array(#"{"type":"userToggled"}"#.utf8)

        XCTAssertTrue(newest.body.firstRange(of: toggle) != nil)
        XCTAssertNil(old.body.firstRange(of: toggle))
        // Three states, ten event classes (playback/1's nine and userToggled), each walked.
        XCTAssertEqual(newest.json["transitions"] as? Int, 30)
        XCTAssertEqual(newest.json["transitionsCovered"] as? Int, 30)
        XCTAssertEqual(old.json["transitions"] as? Int, 27)
        let toggled = #"{"events":[{"type":"userPaused"},{"type":"userToggled"},{"type":"userToggled"}]}"#
        let coverage = try post("/rulesets/playback/2/coverage", #"{"logs":["# + toggled + "]}")
        XCTAssertEqual(coverage.json["stepsOutsideModel"] as? Int, 0)
    }

    // MARK: helpers

    private struct Answer {
        let status: Int
        let headers: [(String, String)]
        let body: [UInt8]

        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:] }
        var errors: [String] {
            (json["errors"] as? [[String: Any]] ?? []).map { "\($0["pointer"] as? String ?? ""): \($0["detail"] as? String ?? "")" }
        }
        func header(_ name: String) -> String? { headers.first { $0.0 == name }?.1 }
    }

    private func post(_ path: String, _ body: String) throws -> Answer {
        try call(.POST, path, body: Array(body.utf8))
    }

    private func get(_ path: String) throws -> Answer {
        try call(.GET, path, body: [])
    }

    private func call(_ method: HTTPMethod, _ path: String, body: [UInt8]) throws -> Answer {
        guard case .handle(let route, _) = Self.router.decide(method: method, path: path, contentType: nil) else {
            throw XCTSkip("no route for \(method) \(path)")
        }
        let response = route.handler(HTTPRequest(method: method, path: path, body: body))
        return Answer(status: response.status, headers: response.headers, body: response.body)
    }

    /// The NDJSON lines answered to these request lines at /playback/apply.
    private func ndjson(_ lines: String...) throws -> [[String: Any]] {
        let versions = try XCTUnwrap(Self.registry.versions(at: "/playback/apply"))
        let check = NDJSONCheck(versions: versions, detail: .all, maxLineBytes: 1 << 20) { _ in Array(#"{"status":422}"#.utf8) }
        var output: [UInt8] = []
        let body = Array((lines.joined(separator: "\n") + "\n").utf8)
        _ = body.withUnsafeBytes { check.receive($0, output: &output) }
        _ = check.finish(output: &output)
        return String(decoding: output, as: UTF8.self).split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
    }
}
