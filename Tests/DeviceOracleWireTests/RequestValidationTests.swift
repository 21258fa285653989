import XCTest
import DeviceOracleJSON
@testable import DeviceOracleWire

/// The `400` and `422` rules of http.md and common.md, through the playback endpoint.
final class RequestValidationTests: XCTestCase {
    private let playback = PlaybackRuleset.endpoint

    private func problems(_ body: String, file: StaticString = #filePath, line: UInt = #line) -> [String] {
        DeviceOracleWireTests.problems(playback, body, file: file, line: line)
    }

    func testABodyWithThousandsOfProblemsListsTheFirstFiftyInDocumentOrderAndCountsThemAll() throws {
        // Each event has an unknown type and lacks nothing else; the last object also
        // lacks `type`, whose problem sorts after its object's other problems.
        let events = Array(repeating: #"{"type":"nope"}"#, count: 3_000).joined(separator: ",")
        let rejection = try XCTUnwrap(rejection(playback, #"{"events":["# + events + #",{"id":"x"}]}"#))

        XCTAssertEqual(rejection.detail, "3001 problems in the request body; the first 50 are listed")
        XCTAssertEqual(rejection.problems.map(\.pointer), (0..<50).map { "/events/\($0)/type" })
    }

    func testABodyWithThousandsOfDuplicateKeysListsTheFirstFifty() throws {
        let members = (0..<2_000).map { _ in #""id":"a""# }.joined(separator: ",")
        let rejection = try XCTUnwrap(rejection(playback, #"{"events":[{"type":"userPlayed","# + members + "}]}"))

        XCTAssertEqual(rejection.detail, "1999 problems in the request body; the first 50 are listed")
        XCTAssertEqual(rejection.problems.count, 50)
        XCTAssertEqual(Set(rejection.problems.map(\.detail)), ["duplicate key 'id'"])
    }

    // MARK: 400

    func testProblemsOfARequestInsideABodyPointThroughTheCallersPointer() throws {
        // The caller knows where the request is (`/cases/7/request`): finding it again
        // from the root for each of a batch's refused cases made the batch quadratic.
        let document = try JSONReader.parse(Array(#"{"cases":[{},{"request":{"events":[{"type":"nope"}]}}]}"#.utf8))
        let request = document.member(Array(document.elements(document.member(document.root, "cases")!))[1], "request")!

        let result = PlaybackRuleset.endpoint.answer(request, at: "/given", in: document)

        guard case .failure(let rejection) = result else { return XCTFail("expected a rejection") }
        XCTAssertEqual(rejection.problems.map(\.pointer), ["/given/events/0/type"])
    }

    func testMalformedJSONNamesOffsetLineAndColumn() throws {
        let rejection = try XCTUnwrap(rejection(playback, "{\"events\": [\n  {\"type\": \"userPlayed\"},\n]}"))

        XCTAssertEqual(rejection.kind, .invalidJSON)
        XCTAssertEqual(rejection.position, .init(offset: 39, line: 3, column: 1))
        XCTAssertEqual(rejection.detail, "invalid JSON at line 3, column 1 (byte offset 39): expected a value, found ']'")
    }

    func testEmptyBodyIsInvalidJSON() throws {
        let rejection = try XCTUnwrap(rejection(playback, ""))

        XCTAssertEqual(rejection.kind, .invalidJSON)
        XCTAssertEqual(rejection.detail, "the request body is empty; expected a JSON object")
    }

    func testNestingDeeperThanSixtyFourIsInvalidJSON() throws {
        let deep = #"{"events":[],"x":"# + String(repeating: "[", count: 63) + String(repeating: "]", count: 63) + "}"
        let tooDeep = #"{"events":[],"x":"# + String(repeating: "[", count: 64) + String(repeating: "]", count: 64) + "}"

        XCTAssertEqual(try answer(playback, deep).verdict, .unchecked)
        XCTAssertEqual(rejection(playback, tooDeep)?.kind, .invalidJSON)
    }

    // MARK: 422

    func testBodyThatIsNotAnObjectIsRejectedAtTheRoot() {
        XCTAssertEqual(problems("[]"), [": the request body must be a JSON object, got an array"])
        XCTAssertEqual(problems("3"), [": the request body must be a JSON object, got a number"])
    }

    func testEventsAreRequired() {
        XCTAssertEqual(problems("{}"), ["/events: required array is missing"])
        XCTAssertEqual(problems(#"{"events":{}}"#), ["/events: expected an array, got an object"])
    }

    func testSpecExampleListsEveryProblemWithItsPointer() throws {
        let body = #"{"events":[{"type":"userPlayed"},{"type":"userPlayed"},{"type":"userPlayed"},{"type":"userPause"},{"type":"userPlayed"},{"type":"interruptionEnded"}]}"#

        let rejection = try XCTUnwrap(rejection(playback, body))

        XCTAssertEqual(rejection.detail, "2 problems in the request body")
        XCTAssertEqual(rejection.problems, [
            .init(pointer: "/events/3/type", detail: "unknown event type 'userPause'; did you mean 'userPaused'?"),
            .init(pointer: "/events/5/shouldResume", detail: "required boolean is missing"),
        ])
    }

    func testUnknownEventTypeFarFromEveryNameHasNoSuggestion() {
        XCTAssertEqual(problems(#"{"events":[{"type":"warp"}]}"#), ["/events/0/type: unknown event type 'warp'"])
    }

    func testEventTypesAreCaseSensitive() {
        XCTAssertEqual(problems(#"{"events":[{"type":"UserPlayed"}]}"#),
                       ["/events/0/type: unknown event type 'UserPlayed'; did you mean 'userPlayed'?"])
    }

    func testEventMustBeAnObject() {
        XCTAssertEqual(problems(#"{"events":[null, 1]}"#),
                       ["/events/0: expected an object, got null", "/events/1: expected an object, got a number"])
    }

    func testEventWithBothFormsOrNeitherIsRejected() {
        XCTAssertEqual(problems(#"{"events":[{"type":"userPlayed","notification":"interruption"},{"id":"x"}]}"#), [
            "/events/0: an event has either 'type' or 'notification', not both",
            "/events/1/type: an event needs 'type' (canonical form) or 'notification' (raw form)",
        ])
    }

    func testSharedEventMembersHaveTheirTypes() {
        XCTAssertEqual(problems(#"{"events":[{"type":"userPlayed","id":7,"at":"noon","session":true,"observed":[]}]}"#), [
            "/events/0/id: expected a string, got a number",
            "/events/0/at: expected a number, got a string",
            "/events/0/session: expected a string, got a boolean",
            "/events/0/observed: expected an object, got an array",
        ])
    }

    func testShouldResumeMustBeABoolean() {
        XCTAssertEqual(problems(#"{"events":[{"type":"interruptionEnded","shouldResume":1}]}"#),
                       ["/events/0/shouldResume: expected a boolean, got a number"])
    }

    func testRouteChangeNeedsANumberOrNamedReason() {
        XCTAssertEqual(problems(#"{"events":[{"type":"routeChanged"},{"type":"routeChanged","reason":true}]}"#), [
            "/events/0/reason: required number or string is missing",
            "/events/1/reason: expected a number or a string, got a boolean",
        ])
    }

    func testRawNotificationNeedsAStringNameAndAnObjectUserInfo() {
        XCTAssertEqual(problems(#"{"events":[{"notification":1},{"notification":"interruption","userInfo":[1]}]}"#), [
            "/events/0/notification: expected a string, got a number",
            "/events/1/userInfo: expected an object, got an array",
        ])
    }

    func testInitialNamesOnlyStateFields() {
        XCTAssertEqual(problems(#"{"initial":{"isPlayng":true,"resumeAfterInterruption":"no"},"events":[]}"#), [
            "/initial/isPlayng: unknown initial field 'isPlayng'; did you mean 'isPlaying'?",
            "/initial/resumeAfterInterruption: expected a boolean, got a string",
        ])
        XCTAssertEqual(problems(#"{"initial":[],"events":[]}"#), ["/initial: expected an object, got an array"])
    }

    func testObservedNamesOnlyKnownFields() {
        XCTAssertEqual(problems(#"{"events":[{"type":"userPlayed","observed":{"isplaying":true,"volume":1}}]}"#), [
            "/events/0/observed/isplaying: unknown observed field 'isplaying'; did you mean 'isPlaying'?",
            "/events/0/observed/volume: unknown observed field 'volume'",
        ])
    }

    func testObservedFinalMayNotNameAction() {
        XCTAssertEqual(problems(#"{"events":[],"observedFinal":{"action":"play"}}"#),
                       ["/observedFinal/action: unknown observedFinal field 'action'"])
    }

    func testUnknownRulesetVersionIsRejectedAtRuleset() {
        XCTAssertEqual(problems(#"{"ruleset":"playback/2","events":[]}"#),
                       ["/ruleset: ruleset 'playback/2' is not served here; this endpoint serves 'playback/1'"])
        XCTAssertEqual(problems(#"{"ruleset":1,"events":[]}"#), ["/ruleset: expected a string, got a number"])
    }

    func testPinnedRulesetIsAnswered() throws {
        XCTAssertEqual(try answer(playback, #"{"ruleset":"playback/1","events":[]}"#).verdict, .unchecked)
    }

    func testDuplicateKeyIsRejectedAtItsPointerInDocumentOrder() {
        XCTAssertEqual(problems(#"{"initial":{},"events":[{"type":"userPlayed","extra":{"a":1,"a":2}},{"type":"warp"}],"initial":{}}"#), [
            "/events/0/extra/a: duplicate key 'a'",
            "/events/1/type: unknown event type 'warp'",
            "/initial: duplicate key 'initial'",
        ])
    }

    func testPointerTokensAreEscaped() {
        XCTAssertEqual(problems(#"{"events":[{"type":"userPlayed","x/y~z":{"k":1,"k":1}}]}"#),
                       ["/events/0/x~1y~0z/k: duplicate key 'k'"])
    }

    func testAtMostFiftyProblemsAreListedAndAllAreCounted() throws {
        let events = Array(repeating: #"{"type":"warp"}"#, count: 73).joined(separator: ",")

        let rejection = try XCTUnwrap(rejection(playback, #"{"events":[\#(events)]}"#))

        XCTAssertEqual(rejection.problems.count, 50)
        XCTAssertEqual(rejection.detail, "73 problems in the request body; the first 50 are listed")
        XCTAssertEqual(rejection.problems.last?.pointer, "/events/49/type")
    }

    func testUnknownMembersAreIgnoredEverywhere() throws {
        let result = try answer(playback, #"{"deviceId":"X","events":[{"type":"userPlayed","ts":"2026","meta":{"a":[1]}}],"build":7}"#)

        XCTAssertEqual(result.verdict, .unchecked)
    }

    func testDidYouMeanPrefersTheFirstNameOnATie() {
        XCTAssertEqual(DidYouMean.closest(to: "userPlay", among: ["userPaused", "userPlayed"]), "userPlayed")
        XCTAssertEqual(DidYouMean.closest(to: "ab", among: ["ax", "ay"]), "ax")
        XCTAssertEqual(DidYouMean.editDistance(Array("userPlayde"), Array("userPlayed")), 1)
        XCTAssertNil(DidYouMean.closest(to: "abcdef", among: ["uvwxyz"]))
    }

    func testNamesThatShareALengthModulo256AndAPrefixAreNotConfused() {
        let longType = "userPlayed" + String(repeating: "x", count: 256)

        XCTAssertEqual(problems(#"{"events":[{"type":"\#(longType)"}]}"#).first?.hasPrefix("/events/0/type: unknown event type"), true)
    }
}
