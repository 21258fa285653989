import XCTest
import DeviceOracleJSON
@testable import DeviceOracleWire

/// refresh.md on the wire: configCheck with every Info.plist form, runs and their
/// steps, observed and observedFinal, diagnostics, and every 422 with its pointer.
final class RefreshEndpointTests: XCTestCase {
    private let refresh = RefreshRuleset.endpoint

    func testAnAnswerCountsTheStoresItWritesItsStepsFrom() throws {
        // Each run adds an item, so each step's `after` is a store rendered of its own.
        let items = (0..<200).map { #"{"id":"item-\#($0)","revision":1}"# }.joined(separator: ",")
        let runs = (0..<3).map { #"{"at":\#($0 + 1),"pages":[{"items":[{"id":"new-\#($0)","revision":1}]}]}"# }
        let body = #"{"store":{"items":["# + items + #"]},"runs":["# + runs.joined(separator: ",") + "]}"

        let answer = try refresh.answer(Array(body.utf8)).get()

        XCTAssertGreaterThan(answer.heldBytes, 4 * items.utf8.count, "four stores, each the size of the given one")
    }

    private func problems(_ body: String, file: StaticString = #filePath, line: UInt = #line) -> [String] {
        DeviceOracleWireTests.problems(refresh, body, file: file, line: line)
    }

    /// A request whose `config` has the spec's two tasks and this `infoPlist` (JSON text).
    private func configRequest(infoPlist: String, registrations: String = "null") -> String {
        #"{"config":{"tasks":[{"identifier":"com.example.app.refresh","kind":"appRefresh"},{"identifier":"com.example.app.cleanup","kind":"processing"}],"infoPlist":\#(infoPlist),"registrations":\#(registrations)}}"#
    }

    /// `base64 < Info.plist` of a real binary property list (`bplist00`), line
    /// breaks included: Python's `plistlib.dumps(info, fmt=plistlib.FMT_BINARY)`
    /// of a built app's keys — bundle id, versions, device family — with both
    /// task identifiers permitted and `UIBackgroundModes` = ["fetch"] only.
    private let builtInfoPlist = """
        YnBsaXN0MDDYAQIDBAUGBwgJCgsMDQ4RFF8QEkNGQnVuZGxlSWRlbnRpZmllcl8QGkNGQnVuZGxl
        U2hvcnRWZXJzaW9uU3RyaW5nXxAPQ0ZCdW5kbGVWZXJzaW9uXxASTFNSZXF1aXJlc0lQaG9uZU9T
        XxAQTWluaW11bU9TVmVyc2lvbl5VSURldmljZUZhbWlseV8QI0JHVGFza1NjaGVkdWxlclBlcm1p
        dHRlZElkZW50aWZpZXJzXxARVUlCYWNrZ3JvdW5kTW9kZXNfEA9jb20uZXhhbXBsZS5hcHBTMi4z
        UjQxCVQxNy4wog8QEAEQAqISE18QF2NvbS5leGFtcGxlLmFwcC5yZWZyZXNoXxAXY29tLmV4YW1w
        bGUuYXBwLmNsZWFudXChFVVmZXRjaAAIABkALgBLAF0AcgCFAJQAugDOAOAA5ADnAOgA7QDwAPIA
        9AD3AREBKwEtAAAAAAAAAgEAAAAAAAAAFgAAAAAAAAAAAAAAAAAAATM=
        """

    /// The checks of `configRequest` when only `processing` is missing from the modes.
    private let processingModeMissing = #"{"verdict":"fail","checks":[{"check":"permittedIdentifier","identifier":"com.example.app.refresh","pass":true,"detail":null},{"check":"backgroundMode","identifier":"com.example.app.refresh","pass":true,"detail":null},{"check":"permittedIdentifier","identifier":"com.example.app.cleanup","pass":true,"detail":null},{"check":"backgroundMode","identifier":"com.example.app.cleanup","pass":false,"detail":"UIBackgroundModes has no 'processing', which processing tasks need"},{"check":"uniqueIdentifiers","identifier":null,"pass":true,"detail":null}]}"#

    // MARK: The answer

    func testAnswerHasEveryMemberInAStableOrder() throws {
        let body = #"{"config":{"tasks":[{"identifier":"a.b","kind":"appRefresh"}],"infoPlist":{"BGTaskSchedulerPermittedIdentifiers":["a.b"],"UIBackgroundModes":["fetch"]}},"runs":[{"id":"run-1","at":0,"pages":[{"items":[{"id":"42","title":"a"}],"nextCursor":"c1"}]}]}"#

        let result = try answer(refresh, body)

        XCTAssertEqual(result.text, #"{"ruleset":"refresh/1","configCheck":{"verdict":"pass","checks":[{"check":"permittedIdentifier","identifier":"a.b","pass":true,"detail":null},{"check":"backgroundMode","identifier":"a.b","pass":true,"detail":null},{"check":"uniqueIdentifiers","identifier":null,"pass":true,"detail":null}]},"final":{"items":[{"id":"42","title":"a"}],"cursor":"c1","lastSuccessAt":0},"steps":[{"index":0,"id":"run-1","at":0,"outcome":"succeeded","taskCompleted":true,"pagesCommitted":1,"commits":1,"tempFilesLeft":0,"before":{"items":[],"cursor":null,"lastSuccessAt":null},"after":{"items":[{"id":"42","title":"a"}],"cursor":"c1","lastSuccessAt":0},"actions":["completeSuccess"],"nextEarliestBeginAt":900}],"summary":{"runs":1,"commits":1,"succeeded":1,"failed":0,"expired":0,"crashed":0},"verdict":"pass","mismatches":[],"diagnostics":[]}"#)
        XCTAssertEqual(result.verdict, .pass)
    }

    func testConfigOnlyRequestAnswersTheStartingStoreNoStepsAndAZeroSummary() throws {
        let body = #"{"store":{"items":[{"id":"1"}],"cursor":"c0","lastSuccessAt":5},"config":{"tasks":[],"infoPlist":{}}}"#

        let result = try answer(refresh, body)

        XCTAssertEqual(result.text, #"{"ruleset":"refresh/1","configCheck":{"verdict":"pass","checks":[{"check":"uniqueIdentifiers","identifier":null,"pass":true,"detail":null}]},"final":{"items":[{"id":"1"}],"cursor":"c0","lastSuccessAt":5},"steps":[],"summary":{"runs":0,"commits":0,"succeeded":0,"failed":0,"expired":0,"crashed":0},"verdict":"pass","mismatches":[],"diagnostics":[]}"#)
    }

    func testRunsOnlyRequestHasNoConfigCheckAndIsUnchecked() throws {
        let result = try answer(refresh, #"{"runs":[]}"#)

        XCTAssertEqual(result.text, #"{"ruleset":"refresh/1","final":{"items":[],"cursor":null,"lastSuccessAt":null},"steps":[],"summary":{"runs":0,"commits":0,"succeeded":0,"failed":0,"expired":0,"crashed":0},"verdict":"unchecked","mismatches":[],"diagnostics":[]}"#)
        XCTAssertEqual(result.verdict, .unchecked)
    }

    func testStepCarriesIdOnlyWhenTheRunHadOneAndNoEvent() throws {
        let result = try answer(refresh, #"{"runs":[{"at":3,"id":null}]}"#)

        XCTAssertEqual(result["/steps/0"], #"{"index":0,"at":3,"outcome":"succeeded","taskCompleted":true,"pagesCommitted":0,"commits":1,"tempFilesLeft":0,"before":{"items":[],"cursor":null,"lastSuccessAt":null},"after":{"items":[],"cursor":null,"lastSuccessAt":3},"actions":["completeSuccess"],"nextEarliestBeginAt":903}"#)
    }

    func testItemsKeepAllTheirContentWrittenCanonically() throws {
        let body = #"{"runs":[{"at":1.0,"pages":[{"items":[{"title":"a\/b","id":"7","n":2.50,"tags":[1e2,null,{"x":true}]}]}]}]}"#

        let result = try answer(refresh, body)

        XCTAssertEqual(result["/final/items"], #"[{"title":"a/b","id":"7","n":2.5,"tags":[100,null,{"x":true}]}]"#)
        XCTAssertEqual(result["/steps/0/at"], "1")
    }

    func testItemsAreWrittenTheSameWhetherTheRequestSpelledThemCompactOrNot() throws {
        // A compact item is copied from the request, any other rendered: never a difference.
        let compact = #"{"store":{"items":[{"id":"s","n":-4}]},"runs":[{"at":2,"pages":[{"items":[{"id":"7","title":"t4","tags":[1,{"x":null}]},{"id":"8","v":-0},{"id":"9","w":1.5}]}]}],"observedFinal":{"items":[{"id":"s","n":-4}]}}"#
        let spaced = #"{"store":{"items":[{ "id":"s","n":-4}]},"runs":[{"at":2,"pages":[{"items":[{"id": "7","title":"t4","tags":[1, {"x":null}]},{"id":"8","v":-0},{"id":"9","w":1.5}]}]}],"observedFinal":{"items":[{"id":"s", "n":-4}]}}"#

        let fromCompact = try answer(refresh, compact), fromSpaced = try answer(refresh, spaced)

        XCTAssertEqual(fromCompact.text, fromSpaced.text)
        XCTAssertEqual(fromCompact["/final/items"], #"[{"id":"s","n":-4},{"id":"7","title":"t4","tags":[1,{"x":null}]},{"id":"8","v":0},{"id":"9","w":1.5}]"#)
    }

    func testEqualRequestsGiveByteIdenticalAnswers() throws {
        let body = #"{"store":{"items":[{"id":"b"},{"id":"a"},{"id":"b","v":2}]},"runs":[{"at":10,"pages":[{"items":[{"id":"z"},{"id":"y"},{"id":"z"}]}],"observed":{"items":["q","z","z"]}},{"at":5}],"observedFinal":{"items":[{"id":"x"}]}}"#

        let first = try answer(refresh, body), second = try answer(refresh, body)

        XCTAssertEqual(first.text, second.text)
    }

    func testNullMembersAreTheSameAsAbsentOnes() throws {
        let body = #"{"config":null,"store":null,"schedule":null,"observedFinal":null,"runs":[{"at":0,"id":null,"pages":null,"fault":null,"observed":null}]}"#

        let result = try answer(refresh, body)

        XCTAssertEqual(result.verdict, .unchecked)
        XCTAssertNil(result["/configCheck"])
        XCTAssertEqual(result["/steps/0/nextEarliestBeginAt"], "900")
    }

    func testUnknownMembersOfTheBodyRunsPagesAndItemsAreIgnored() throws {
        let body = #"{"device":"iPhone","runs":[{"at":0,"ts":"2026","session":7,"pages":[{"status":200,"items":[{"id":"1","extra":[1]}],"nextCursor":"c"}]}]}"#

        let result = try answer(refresh, body)

        XCTAssertEqual(result["/final"], #"{"items":[{"id":"1","extra":[1]}],"cursor":"c","lastSuccessAt":0}"#)
    }

    // MARK: Runs

    func testExpiryMidWriteLeavesTheOldDataReadable() throws {
        let body = #"{"runs":[{"at":0,"pages":[{"items":[{"id":"42","title":"a"}],"nextCursor":"c1"}]},{"at":900,"pages":[{"items":[{"id":"42","title":"b"}],"nextCursor":"c2"}],"fault":{"kind":"expire","stage":"write","page":0}}]}"#

        let result = try answer(refresh, body)

        XCTAssertEqual(result["/steps/1"], #"{"index":1,"at":900,"outcome":"expired","taskCompleted":false,"pagesCommitted":0,"commits":0,"tempFilesLeft":0,"before":{"items":[{"id":"42","title":"a"}],"cursor":"c1","lastSuccessAt":0},"after":{"items":[{"id":"42","title":"a"}],"cursor":"c1","lastSuccessAt":0},"actions":["cancelJob","completeFailure"],"nextEarliestBeginAt":960}"#)
        XCTAssertEqual(result["/summary"], #"{"runs":2,"commits":1,"succeeded":1,"failed":0,"expired":1,"crashed":0}"#)
    }

    func testRepeatedRunAddsNoDuplicatesAndCountsTwoCommits() throws {
        let run = #"{"items":[{"id":"42","title":"a"},{"id":"43","title":"b"}],"nextCursor":"c1"}"#
        let body = #"{"runs":[{"at":0,"pages":[\#(run)]},{"at":900,"pages":[\#(run)]}]}"#

        let result = try answer(refresh, body)

        XCTAssertEqual(result["/final"], #"{"items":[{"id":"42","title":"a"},{"id":"43","title":"b"}],"cursor":"c1","lastSuccessAt":900}"#)
        XCTAssertEqual(result["/summary/commits"], "2")
        XCTAssertEqual(result["/diagnostics"], "[]")
    }

    func testCrashMidWriteLeavesATemporaryFileTheNextRunRemovesFirst() throws {
        let page = #"{"items":[{"id":"1"}]}"#
        let body = #"{"runs":[{"at":0,"pages":[\#(page)],"fault":{"kind":"crash","stage":"write","page":0}},{"at":10,"pages":[\#(page)]}]}"#

        let result = try answer(refresh, body)

        XCTAssertEqual(result["/steps/0/tempFilesLeft"], "1")
        XCTAssertEqual(result["/steps/0/taskCompleted"], "null")
        XCTAssertEqual(result["/steps/0/actions"], "[]")
        XCTAssertEqual(result["/steps/0/nextEarliestBeginAt"], "null")
        XCTAssertEqual(result["/steps/1/actions"], #"["removeStaleTemp","completeSuccess"]"#)
        XCTAssertEqual(result["/steps/1/tempFilesLeft"], "0")
    }

    func testCrashAtTheCursorStageThenTheSamePageAgainIsHarmless() throws {
        let page = #"{"items":[{"id":"1","v":1}],"nextCursor":"c1"}"#
        let body = #"{"store":{"cursor":"c0"},"runs":[{"at":0,"pages":[\#(page)],"fault":{"kind":"crash","stage":"cursor","page":0}},{"at":60,"pages":[\#(page)]}]}"#

        let result = try answer(refresh, body)

        XCTAssertEqual(result["/steps/0/after"], #"{"items":[{"id":"1","v":1}],"cursor":"c0","lastSuccessAt":null}"#)
        XCTAssertEqual(result["/steps/0/commits"], "1")
        XCTAssertEqual(result["/steps/0/pagesCommitted"], "0")
        XCTAssertEqual(result["/final"], #"{"items":[{"id":"1","v":1}],"cursor":"c1","lastSuccessAt":60}"#)
    }

    func testStartingStoreAndScheduleOverridesAreUsed() throws {
        let body = #"{"store":{"items":[{"id":"1","v":"old"}],"cursor":"c0","lastSuccessAt":50},"schedule":{"intervalSeconds":60,"backoffBaseSeconds":5,"backoffMaxSeconds":8},"runs":[{"at":100,"pages":[{}],"fault":{"kind":"error","stage":"download","page":0}},{"at":105,"pages":[{}],"fault":{"kind":"error","stage":"download","page":0}},{"at":200,"pages":[{"items":[{"id":"1","v":"new"}]}]}]}"#

        let result = try answer(refresh, body)

        XCTAssertEqual(result["/steps/0/before"], #"{"items":[{"id":"1","v":"old"}],"cursor":"c0","lastSuccessAt":50}"#)
        XCTAssertEqual((0..<3).map { result["/steps/\($0)/nextEarliestBeginAt"] }, ["105", "113", "260"])
        XCTAssertEqual(result["/final"], #"{"items":[{"id":"1","v":"new"}],"cursor":"c0","lastSuccessAt":200}"#)
    }

    // MARK: Diagnostics

    func testRunBeforeTheEarliestBeginTimeWarnsWithBothTimes() throws {
        let result = try answer(refresh, #"{"runs":[{"at":0},{"at":900},{"at":1799.5}]}"#)

        XCTAssertEqual(result["/diagnostics"], #"[{"index":2,"severity":"warning","code":"ranBeforeEarliestBegin","message":"This run started at 1799.5, before the earliest begin time 1800 the app had requested; BGTaskScheduler never starts a task that early."}]"#)
    }

    func testPageHoldingAnIdTwiceWarnsNamingThePageAndTheId() throws {
        let body = #"{"runs":[{"at":0,"pages":[{"items":[{"id":"1"}]},{"items":[{"id":"2","v":1},{"id":"3"},{"id":"2","v":2}]}]}]}"#

        let result = try answer(refresh, body)

        XCTAssertEqual(result["/diagnostics"], #"[{"index":0,"severity":"warning","code":"duplicateIdInPage","message":"Page 1 holds the id '2' more than once; the later item replaced the earlier at the earlier one's position."}]"#)
        XCTAssertEqual(result["/final/items"], #"[{"id":"1"},{"id":"2","v":2},{"id":"3"}]"#)
    }

    func testStartingStoreHoldingAnIdTwiceWarnsOnceForTheWholeRequest() throws {
        let body = #"{"store":{"items":[{"id":"a","v":1},{"id":"b"},{"id":"a","v":2},{"id":"b"}]},"runs":[{"at":5},{"at":1}]}"#

        let result = try answer(refresh, body)

        XCTAssertEqual(result["/final/items"], #"[{"id":"a","v":2},{"id":"b"}]"#)
        XCTAssertEqual(result["/diagnostics/0/code"], #""outOfOrder""#)
        XCTAssertEqual(result["/diagnostics/1/code"], #""ranBeforeEarliestBegin""#)
        XCTAssertEqual(result["/diagnostics/2"], #"{"index":null,"severity":"warning","code":"duplicateIdInStore","message":"The starting store holds the ids 'a', 'b' more than once; the later item replaced the earlier at the earlier one's position."}"#)
    }

    func testOutOfOrderComparesEachRunsAtWithThePreviousOne() throws {
        let result = try answer(refresh, #"{"schedule":{"intervalSeconds":0},"runs":[{"at":2000},{"at":2000},{"at":1000}]}"#)

        XCTAssertEqual(result["/diagnostics/0"], #"{"index":2,"severity":"warning","code":"outOfOrder","message":"This event's 'at' is earlier than the previous event's: the log did not reach one serial owner in time order; the rules applied it in array order."}"#)
        XCTAssertEqual(result["/diagnostics/1/code"], #""ranBeforeEarliestBegin""#)
        XCTAssertNil(result["/diagnostics/2"])
    }

    // MARK: configCheck: the Info.plist in every form

    func testInfoPlistAsAJSONObject() throws {
        let result = try answer(refresh, configRequest(infoPlist: #"{"BGTaskSchedulerPermittedIdentifiers":["com.example.app.refresh","com.example.app.cleanup"],"UIBackgroundModes":["fetch"]}"#))

        XCTAssertEqual(result["/configCheck"], processingModeMissing)
        XCTAssertEqual(result.verdict, .fail)
        XCTAssertEqual(result["/mismatches"], "[]")
    }

    func testInfoPlistAsXMLText() throws {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
            \t<key>BGTaskSchedulerPermittedIdentifiers</key>
            \t<array>
            \t\t<string>com.example.app.refresh</string>
            \t\t<string>com.example.app.cleanup</string>
            \t</array>
            \t<key>UIBackgroundModes</key>
            \t<array>
            \t\t<string>fetch</string>
            \t</array>
            </dict>
            </plist>
            """

        let result = try answer(refresh, configRequest(infoPlist: Self.jsonString(xml)))

        XCTAssertEqual(result["/configCheck"], processingModeMissing)
    }

    func testInfoPlistAsOpenStepText() throws {
        let openStep = #"{ BGTaskSchedulerPermittedIdentifiers = ("com.example.app.refresh", com.example.app.cleanup); UIBackgroundModes = (fetch); }"#

        let result = try answer(refresh, configRequest(infoPlist: Self.jsonString(openStep)))

        XCTAssertEqual(result["/configCheck"], processingModeMissing)
    }

    func testInfoPlistAsBase64OfABinaryPropertyList() throws {
        let result = try answer(refresh, configRequest(infoPlist: Self.jsonString(builtInfoPlist)))

        XCTAssertEqual(result["/configCheck"], processingModeMissing)
        XCTAssertEqual(result.verdict, .fail)
    }

    func testPassingConfigCheckDecidesAVerdictWithoutObserved() throws {
        let result = try answer(refresh, configRequest(infoPlist: #"{"BGTaskSchedulerPermittedIdentifiers":["com.example.app.refresh","com.example.app.cleanup"],"UIBackgroundModes":["fetch","processing"]}"#))

        XCTAssertEqual(result["/configCheck/verdict"], #""pass""#)
        XCTAssertEqual(result.verdict, .pass)
    }

    func testMissingKeysFailTheirChecksSayingTheKeyIsMissing() throws {
        let result = try answer(refresh, configRequest(infoPlist: #"{"CFBundleIdentifier":"com.example.app","UIBackgroundModes":null}"#))

        XCTAssertEqual(result["/configCheck/checks/0/detail"], #""the Info.plist has no BGTaskSchedulerPermittedIdentifiers key""#)
        XCTAssertEqual(result["/configCheck/checks/1/detail"], #""the Info.plist has no UIBackgroundModes key""#)
    }

    func testKeyThatIsNotAnArrayFailsItsChecks() throws {
        let result = try answer(refresh, configRequest(infoPlist: #"{"BGTaskSchedulerPermittedIdentifiers":"com.example.app.refresh","UIBackgroundModes":{"fetch":true}}"#))

        XCTAssertEqual(result["/configCheck/checks/0/detail"], #""BGTaskSchedulerPermittedIdentifiers in the Info.plist is not an array""#)
        XCTAssertEqual(result["/configCheck/checks/1/detail"], #""UIBackgroundModes in the Info.plist is not an array""#)
    }

    func testUnpermittedIdentifierNamesItsNearMiss() throws {
        let result = try answer(refresh, configRequest(infoPlist: #"{"BGTaskSchedulerPermittedIdentifiers":[1,"com.example.app.Refresh","com.example.app.cleanup"],"UIBackgroundModes":["fetch","processing"]}"#))

        XCTAssertEqual(result["/configCheck/checks/0"], #"{"check":"permittedIdentifier","identifier":"com.example.app.refresh","pass":false,"detail":"'com.example.app.refresh' is not in BGTaskSchedulerPermittedIdentifiers; near miss: 'com.example.app.Refresh'"}"#)
        XCTAssertEqual(result.verdict, .fail)
    }

    func testRegistrationsAddARegisteredCheckPerTask() throws {
        let registrations = #"[{"identifier":"com.example.app.refresh","ok":true,"ts":"2026-11-29T10:00:00Z"},{"identifier":"com.example.app.cleanup","ok":false}]"#

        let result = try answer(refresh, configRequest(infoPlist: "{}", registrations: registrations))

        XCTAssertEqual(result["/configCheck/checks/2"], #"{"check":"registered","identifier":"com.example.app.refresh","pass":true,"detail":null}"#)
        XCTAssertEqual(result["/configCheck/checks/5"], #"{"check":"registered","identifier":"com.example.app.cleanup","pass":false,"detail":"register(forTaskWithIdentifier:) returned false for 'com.example.app.cleanup'"}"#)
    }

    func testRepeatedTaskIdentifierFailsUniqueIdentifiers() throws {
        let body = #"{"config":{"tasks":[{"identifier":"a","kind":"appRefresh"},{"identifier":"a","kind":"processing"}],"infoPlist":{"BGTaskSchedulerPermittedIdentifiers":["a"],"UIBackgroundModes":["fetch","processing"]}}}"#

        let result = try answer(refresh, body)

        XCTAssertEqual(result["/configCheck/checks/4"], #"{"check":"uniqueIdentifiers","identifier":null,"pass":false,"detail":"'a' appears more than once in tasks"}"#)
    }

    // MARK: Observed

    func testMatchingObservedPasses() throws {
        let body = #"{"runs":[{"at":0,"pages":[{"items":[{"id":"1","v":1}],"nextCursor":"c1"}],"observed":{"outcome":"succeeded","taskCompleted":true,"pagesCommitted":1,"commits":1.0,"tempFilesLeft":0,"cursor":"c1","lastSuccessAt":0,"nextEarliestBeginAt":900,"items":[{"v":1,"id":"1"}]}}],"observedFinal":{"items":["1"],"cursor":"c1","lastSuccessAt":0,"commits":1}}"#

        let result = try answer(refresh, body)

        XCTAssertEqual(result.verdict, .pass)
        XCTAssertEqual(result["/mismatches"], "[]")
    }

    func testEachDifferingFieldIsOneMismatch() throws {
        let body = #"{"runs":[{"at":0,"pages":[{"items":[{"id":"1"}],"nextCursor":"c1"}],"fault":{"kind":"crash","stage":"cursor","page":0},"observed":{"outcome":"failed","taskCompleted":false,"commits":0,"cursor":"c1","nextEarliestBeginAt":60,"tempFilesLeft":"0"}}]}"#

        let result = try answer(refresh, body)

        XCTAssertEqual(result.verdict, .fail)
        XCTAssertEqual(result["/mismatches"], #"[{"index":0,"field":"outcome","expected":"crashed","observed":"failed"},{"index":0,"field":"taskCompleted","expected":null,"observed":false},{"index":0,"field":"commits","expected":1,"observed":0},{"index":0,"field":"cursor","expected":null,"observed":"c1"},{"index":0,"field":"nextEarliestBeginAt","expected":null,"observed":60},{"index":0,"field":"tempFilesLeft","expected":0,"observed":"0"}]"#)
    }

    func testMismatchesKeepTheOrderObservedNamesTheFieldsIn() throws {
        let body = #"{"runs":[{"at":0,"pages":[{"items":[{"id":"1"}]}],"observed":{"commits":2,"items":[],"outcome":"failed"}}],"observedFinal":{"items":["1"]}}"#

        let result = try answer(refresh, body)

        XCTAssertEqual(result["/mismatches"], #"[{"index":0,"field":"commits","expected":1,"observed":2},{"index":0,"field":"items","expected":["1"],"observed":[],"detail":"missing '1'"},{"index":0,"field":"outcome","expected":"succeeded","observed":"failed"}]"#)
    }

    func testObservedItemsAloneCountAsCarried() throws {
        let body = #"{"runs":[{"at":0,"pages":[{"items":[{"id":"1"}]}],"observed":{"items":["1"]}}]}"#

        XCTAssertEqual(try answer(refresh, body).verdict, .pass)
    }

    func testObservedIdsCompareAsASetWhateverTheirOrder() throws {
        let body = #"{"store":{"items":[{"id":"1"},{"id":"2"},{"id":"3"}]},"runs":[],"observedFinal":{"items":["3","1","2"]}}"#

        XCTAssertEqual(try answer(refresh, body).verdict, .pass)
    }

    func testObservedIdsNameTheMissingAndExtraOnesAndExpectIds() throws {
        let body = #"{"store":{"items":[{"id":"1","v":1},{"id":"2"},{"id":"3"}]},"runs":[],"observedFinal":{"items":["3","9","1"]}}"#

        let result = try answer(refresh, body)

        XCTAssertEqual(result["/mismatches"], #"[{"index":null,"field":"final.items","expected":["1","2","3"],"observed":["3","9","1"],"detail":"missing '2'; extra '9'"}]"#)
    }

    func testObservedItemsAsObjectsCompareByContentAndExpectObjects() throws {
        let body = #"{"runs":[{"at":0,"pages":[{"items":[{"id":"1","v":1},{"id":"2","v":2}]}],"observed":{"items":[{"id":"2","v":2},{"id":"1","v":"one"}]}}]}"#

        let result = try answer(refresh, body)

        XCTAssertEqual(result["/mismatches"], #"[{"index":0,"field":"items","expected":[{"id":"1","v":1},{"id":"2","v":2}],"observed":[{"id":"2","v":2},{"id":"1","v":"one"}],"detail":"different content '1'"}]"#)
    }

    func testDuplicateObservedIdIsAlwaysAMismatchNamingIt() throws {
        let body = #"{"runs":[{"at":0,"pages":[{"items":[{"id":"42"}]}],"observed":{"items":["42","42"]}}],"observedFinal":{"items":[{"id":"42"},{"id":"42"}]}}"#

        let result = try answer(refresh, body)

        XCTAssertEqual(result["/mismatches"], #"[{"index":0,"field":"items","expected":["42"],"observed":["42","42"],"detail":"duplicate '42'"},{"index":null,"field":"final.items","expected":[{"id":"42"}],"observed":[{"id":"42"},{"id":"42"}],"detail":"duplicate '42'"}]"#)
    }

    func testObservedItemsThatAreNoIdsOrItemsAreAMismatch() throws {
        let body = #"{"store":{"items":[{"id":"1"}]},"runs":[{"at":0,"observed":{"items":3}},{"at":1,"observed":{"items":["1",2]}},{"at":2,"observed":{"items":[{"id":"1"},{"name":"x"}]}}]}"#

        let result = try answer(refresh, body)

        XCTAssertEqual(result["/mismatches/0"], #"{"index":0,"field":"items","expected":["1"],"observed":3,"detail":"expected an array of ids or of items; missing '1'"}"#)
        XCTAssertEqual(result["/mismatches/1/detail"], #""1 element is not an id (a string)""#)
        XCTAssertEqual(result["/mismatches/2/detail"], #""1 element is not an item with a string id""#)
    }

    func testNullObservedValueIsNotChecked() throws {
        let body = #"{"runs":[{"at":0,"observed":{"cursor":null,"items":null}}]}"#

        let result = try answer(refresh, body)

        XCTAssertEqual(result.verdict, .pass)
    }

    func testObservedFinalComparesCursorLastSuccessAndTotalCommits() throws {
        let body = #"{"runs":[{"at":0,"pages":[{},{}]},{"at":900}],"observedFinal":{"cursor":"x","lastSuccessAt":0,"commits":2}}"#

        let result = try answer(refresh, body)

        XCTAssertEqual(result["/mismatches"], #"[{"index":null,"field":"final.cursor","expected":null,"observed":"x"},{"index":null,"field":"final.lastSuccessAt","expected":900,"observed":0},{"index":null,"field":"final.commits","expected":3,"observed":2}]"#)
    }

    // MARK: 422

    func testHeadProblemsAreListedInTheRequestsOrderWhicheverPartReadsThem() {
        // `schedule` and `config` are refresh's settings, `store` and `initial` its start,
        // read apart from them: the list follows the request, not the reading.
        XCTAssertEqual(problems(#"{"schedule":{"intervalSeconds":-1},"store":{"items":[{"id":1}]},"initial":"unknown","observedFinal":{"cursr":"c"},"config":{"tasks":7}}"#), [
            "/schedule/intervalSeconds: expected a number ≥ 0, got -1",
            "/store/items/0/id: expected a string, got a number",
            #"/initial: refresh/1's start includes a store and a config, so it cannot be "unknown": give 'store' and 'config' as the log found them"#,
            "/observedFinal/cursr: unknown observedFinal field 'cursr'; did you mean 'cursor'?",
            "/config/tasks: expected an array, got a number",
            "/config/infoPlist: required object or string is missing",
        ])
    }

    func testRequestWithNeitherConfigNorRunsIsRejected() {
        XCTAssertEqual(problems("{}"), ["/runs: a request needs 'runs', 'config' or both"])
        XCTAssertEqual(problems(#"{"config":null,"runs":null,"store":{}}"#), ["/runs: a request needs 'runs', 'config' or both"])
    }

    func testRunWithoutAtIsRejected() {
        XCTAssertEqual(problems(#"{"runs":[{"id":"r1"},{"at":null},{"at":"noon"}]}"#), [
            "/runs/0/at: required number is missing",
            "/runs/1/at: required number is missing",
            "/runs/2/at: expected a number, got a string",
        ])
    }

    func testItemWithoutAStringIdIsRejected() {
        XCTAssertEqual(problems(#"{"store":{"items":[{"title":"a"}]},"runs":[{"at":0,"pages":[{"items":[{"id":"1"},{"name":"x"},{"id":42},"7"]}]}]}"#), [
            "/store/items/0/id: required string is missing",
            "/runs/0/pages/0/items/1/id: required string is missing",
            "/runs/0/pages/0/items/2/id: expected a string, got a number",
            "/runs/0/pages/0/items/3: expected an object, got a string",
        ])
    }

    func testFaultPageBeyondTheRunsPagesIsRejected() {
        XCTAssertEqual(problems(#"{"runs":[{"at":0,"pages":[{},{}],"fault":{"kind":"error","stage":"write","page":2}},{"at":0,"fault":{"kind":"crash","stage":"download","page":0}},{"at":0,"pages":[{}],"fault":{"kind":"crash","stage":"download","page":1e300}}]}"#), [
            "/runs/0/fault/page: page 2 is beyond the run's pages: it has 2",
            "/runs/1/fault/page: page 0 is beyond the run's pages: it has 0",
            "/runs/2/fault/page: page 1e+300 is beyond the run's pages: it has 1",
        ])
    }

    func testFaultPageIsAnIntegerAmongTheFirstSixtyFourPages() {
        let pages = Array(repeating: "{}", count: 70).joined(separator: ",")

        XCTAssertEqual(problems(#"{"runs":[{"at":0,"pages":[\#(pages)],"fault":{"kind":"error","stage":"write","page":64}},{"at":0,"pages":[{},{}],"fault":{"kind":"error","stage":"write","page":0.5}},{"at":0,"pages":[{}],"fault":{"kind":"error","stage":"write","page":-1}},{"at":0,"pages":[\#(pages)],"fault":{"kind":"error","stage":"write","page":63.0}}]}"#), [
            "/runs/0/fault/page: a fault names one of the first 64 pages of its run (0–63), got 64",
            "/runs/1/fault/page: expected an integer ≥ 0, got 0.5",
            "/runs/2/fault/page: expected an integer ≥ 0, got -1",
        ])
    }

    func testUnknownFaultKindOrStageIsRejectedWithADidYouMean() {
        XCTAssertEqual(problems(#"{"runs":[{"at":0,"pages":[{}],"fault":{"kind":"expired","stage":"writ","page":0}},{"at":0,"pages":[{}],"fault":{"kind":"timeout","stage":"Download","page":0}}]}"#), [
            "/runs/0/fault/kind: unknown fault kind 'expired'; did you mean 'expire'?",
            "/runs/0/fault/stage: unknown fault stage 'writ'; did you mean 'write'?",
            "/runs/1/fault/kind: unknown fault kind 'timeout'",
            "/runs/1/fault/stage: unknown fault stage 'Download'; did you mean 'download'?",
        ])
    }

    func testFaultNeedsKindStageAndPageAndNothingElse() {
        XCTAssertEqual(problems(#"{"runs":[{"at":0,"pages":[{}],"fault":{"stge":"write"}}]}"#), [
            "/runs/0/fault/stge: unknown fault member 'stge'; did you mean 'stage'?",
            "/runs/0/fault/kind: required string is missing",
            "/runs/0/fault/stage: required string is missing",
            "/runs/0/fault/page: required number is missing",
        ])
    }

    func testStringThatIsNoPropertyListIsRejectedAtInfoPlist() {
        XCTAssertEqual(problems(configRequest(infoPlist: #""hello world""#)), [
            "/config/infoPlist: not a property list: expected XML or OpenStep property-list text, or base64 of a binary property list",
        ])
        XCTAssertEqual(problems(configRequest(infoPlist: #""""#)), [
            "/config/infoPlist: not a property list: expected XML or OpenStep property-list text, or base64 of a binary property list",
        ])
    }

    func testPropertyListWhoseRootIsNotADictionaryIsRejected() {
        XCTAssertEqual(problems(configRequest(infoPlist: Self.jsonString("<plist><array><string>fetch</string></array></plist>"))),
                       ["/config/infoPlist: the property list's root is an array, not a dictionary"])
        XCTAssertEqual(problems(configRequest(infoPlist: #""fetch""#)),
                       ["/config/infoPlist: the property list's root is a string, not a dictionary"])
        XCTAssertEqual(problems(configRequest(infoPlist: #""YnBsaXN0MDAJCAAAAAAAAAEBAAAAAAAAAAEAAAAAAAAAAAAAAAAAAAAJ""#)),
                       ["/config/infoPlist: the property list's root is a boolean, not a dictionary"])
    }

    /// Found by fuzzing: Foundation's PropertyListSerialization leaked about 1 KB on
    /// every text that is no property list, so repeated bad requests grew the server.
    func testRejectingInfoPlistTextLeaksNoMemory() throws {
        // AddressSanitizer keeps freed memory in quarantine, so resident memory grows
        // anyway; the fuzz target's LeakSanitizer checks the same path there.
        try XCTSkipIf(dlsym(nil, "__asan_init") != nil, "resident memory is meaningless under AddressSanitizer")
        let notAPlist = ["{ a = ", "<plist><dict><key>a</key>", "YnBsaXN0MDAAAAAA"]
        func rejectAll() {
            for _ in 0..<4_000 {
                for text in notAPlist { XCTAssertThrowsError(try InfoPlistRegistration(text: text)) }
            }
        }
        rejectAll()  // warms up caches and the allocator
        let before = try XCTUnwrap(residentKilobytes())
        rejectAll()
        let grown = try XCTUnwrap(residentKilobytes()) - before
        XCTAssertLessThan(grown, 2_048, "12 000 rejections grew the process by \(grown) KiB")
    }

    /// VmRSS of this process, where /proc has it.
    private func residentKilobytes() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return nil }
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
    }

    func testBinaryPropertyListWhoseArrayHoldsItselfIsReadWithoutWalkingTheCycle() throws {
        // {"UIBackgroundModes": [<this array>, "fetch"]}, written by hand: no tool writes a cycle.
        let cyclic = "YnBsaXN0MDDRAQJfEBFVSUJhY2tncm91bmRNb2Rlc6ICA1VmZXRjaAgLHyIAAAAAAAABAQAAAAAAAAAEAAAAAAAAAAAAAAAAAAAAKA=="
        let registration = try InfoPlistRegistration(text: cyclic)
        XCTAssertEqual(registration.backgroundModes, .strings(["fetch"]))
        XCTAssertEqual(registration.permittedIdentifiers, .missing)
    }

    // MARK: Nesting, bounded before Foundation parses (PropertyListNesting)

    private static let notAPropertyList = ["/config/infoPlist: not a property list: expected XML or OpenStep property-list text, or base64 of a binary property list"]

    /// `depth` nested arrays, each opened by `open` and closed by `close`, inside `<plist>`.
    private static func nestedXML(_ depth: Int, open: String = "<array>", close: String = "</array>") -> String {
        "<plist>" + String(repeating: open, count: depth) + String(repeating: close, count: depth) + "</plist>"
    }

    /// 10 000 levels: past the depth at which Foundation's XML scanner overflows an 8 MiB stack.
    private static let crashDepth = 10_000

    func testXMLNestedDeeperThanTheLimitIsRefusedBeforeParsing() {
        // `<plist>` is one level, so the limit leaves room for limit − 1 arrays.
        XCTAssertFalse(PropertyListNesting.exceedsLimit(Array(Self.nestedXML(PropertyListNesting.limit - 1).utf8)))
        XCTAssertTrue(PropertyListNesting.exceedsLimit(Array(Self.nestedXML(PropertyListNesting.limit).utf8)))
        XCTAssertFalse(PropertyListNesting.exceedsLimit(Array(("<plist>" + String(repeating: "<array/>", count: 10_000) + "</plist>").utf8)),
                       "empty elements open nothing")
    }

    func testInfoPlistNestingHiddenBehindCommentsIsRefused() {
        let xml = Self.nestedXML(Self.crashDepth, open: "<array><!-- </array> -->")

        XCTAssertEqual(problems(configRequest(infoPlist: Self.jsonString(xml))), Self.notAPropertyList)
    }

    func testInfoPlistNestingHiddenBehindCDATAIsRefused() {
        let xml = Self.nestedXML(Self.crashDepth, open: "<array><string><![CDATA[</array>]]></string>")

        XCTAssertEqual(problems(configRequest(infoPlist: Self.jsonString(xml))), Self.notAPropertyList)
    }

    func testInfoPlistNestingHiddenBehindProcessingInstructionsIsRefused() {
        let xml = Self.nestedXML(Self.crashDepth, open: "<array><?pi </array> ?>")

        XCTAssertEqual(problems(configRequest(infoPlist: Self.jsonString(xml))), Self.notAPropertyList)
    }

    func testInfoPlistNestingHiddenBehindADoctypeIsRefused() {
        // The scanner ends a DOCTYPE at its first `>`, quotes or not.
        let xml = #"<!DOCTYPE plist ""# + String(repeating: "</array>", count: Self.crashDepth) + #"">"# + Self.nestedXML(Self.crashDepth)

        XCTAssertEqual(problems(configRequest(infoPlist: Self.jsonString(xml))), Self.notAPropertyList)
    }

    func testInfoPlistNestingAfterAnUnclosedQuoteInATagIsRefused() {
        // The scanner ends a tag at its first `>`: a quote opens no attribute value.
        let xml = #"<plist><array x=">"# + Self.nestedXML(Self.crashDepth) + "</array></plist>"

        XCTAssertEqual(problems(configRequest(infoPlist: Self.jsonString(xml))), Self.notAPropertyList)
    }

    func testInfoPlistNestingInDictsIsRefused() {
        // A `<dict>` level takes the most stack: about 1 KB in a release build.
        let xml = Self.nestedXML(Self.crashDepth, open: "<dict><key>a</key>", close: "</dict>").replacingOccurrences(of: "</dict></plist>", with: "<true/></dict></plist>")

        XCTAssertEqual(problems(configRequest(infoPlist: Self.jsonString(xml))), Self.notAPropertyList)
    }

    func testInfoPlistNestingInUTF16IsRefused() {
        let hidden = Self.nestedXML(Self.crashDepth, open: "<array><!-- </array> -->")
        // A JSON string holds characters, so UTF-16 arrives as its bytes spelt as
        // characters (NUL included) and never with a UTF-16 byte order mark.
        let utf16LE = String(String.UnicodeScalarView(([0xFF, 0xFE] + hidden.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })
            .map(UnicodeScalar.init)))
        let declared = #"<?xml version="1.0" encoding="UTF-16"?>"# + hidden

        XCTAssertEqual(problems(configRequest(infoPlist: Self.jsonString(utf16LE))), Self.notAPropertyList)
        XCTAssertEqual(problems(configRequest(infoPlist: Self.jsonString(declared))), Self.notAPropertyList)
        XCTAssertTrue(PropertyListNesting.exceedsLimit(Array(#"<?xml version="1.0" encoding='utf-16'?><plist><dict/></plist>"#.utf8)),
                      "bytes in another declared encoding are never read as UTF-8")
        XCTAssertFalse(PropertyListNesting.exceedsLimit(Array(#"<?xml version="1.0" encoding='Utf-8'?><plist><dict/></plist>"#.utf8)))
    }

    func testInfoPlistOpenStepNestingHiddenBehindCommentsAndStringsIsRefused() {
        // Deeper than the limit, within the 513 levels Foundation's reader allows itself.
        let depth = PropertyListNesting.limit * 2
        let comments = "{UIBackgroundModes = (fetch); x = " + String(repeating: "( /* ) */ // )\n", count: depth) + String(repeating: ")", count: depth) + ";}"
        let strings = "{UIBackgroundModes = (fetch); x = " + String(repeating: #"(")", "#, count: depth) + String(repeating: ")", count: depth) + ";}"
        let unterminatedString = #"{UIBackgroundModes = (fetch); x = {a=b;"}; y = "# + String(repeating: "(", count: depth) + String(repeating: ")", count: depth) + ";}"

        XCTAssertEqual(problems(configRequest(infoPlist: Self.jsonString(comments))), Self.notAPropertyList)
        XCTAssertEqual(problems(configRequest(infoPlist: Self.jsonString(strings))), Self.notAPropertyList)
        XCTAssertEqual(problems(configRequest(infoPlist: Self.jsonString(unterminatedString))), Self.notAPropertyList)
    }

    func testALongOpenStepTextThatFailsInsideOpenArraysIsRefusedBeforeItsRescans() {
        // 1 MB of padding inside 64 open arrays, never closed: Foundation's failed parse
        // would rescan the megabyte once per open array.
        let depth = 64
        let openStep = "{UIBackgroundModes = (fetch); x = " + String(repeating: "(", count: depth)
            + String(repeating: "a, ", count: 350_000)

        XCTAssertTrue(PropertyListNesting.exceedsLimit(Array(openStep.utf8)))
        XCTAssertEqual(problems(configRequest(infoPlist: Self.jsonString(openStep))), Self.notAPropertyList)
    }

    func testInfoPlistOpenStepNestingWithinTheLimitIsStillRead() throws {
        let depth = PropertyListNesting.limit - 1
        let openStep = "{ BGTaskSchedulerPermittedIdentifiers = (com.example.app.refresh, com.example.app.cleanup); UIBackgroundModes = (fetch); x = "
            + String(repeating: "( /* ) */ ", count: depth) + String(repeating: ")", count: depth) + "; }"

        let result = try answer(refresh, configRequest(infoPlist: Self.jsonString(openStep)))

        XCTAssertEqual(result["/configCheck"], processingModeMissing)
    }

    func testInfoPlistBinaryNestingIsNeverWalked() {
        // Array i holds array i + 1, 100 000 deep: the decoder reads the root only.
        let depth = 100_000
        var plist = Array("bplist00".utf8), offsets: [Int] = []
        func bigEndian(_ value: Int, _ size: Int) -> [UInt8] { (0..<size).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        for index in 0..<depth {
            offsets.append(plist.count)
            plist += [0xA1] + bigEndian(index + 1, 4)
        }
        offsets.append(plist.count)
        plist.append(0xA0)
        let offsetTable = plist.count
        plist += offsets.flatMap { bigEndian($0, 4) } + [0, 0, 0, 0, 0, 0, 4, 4] + bigEndian(depth + 1, 8) + bigEndian(0, 8) + bigEndian(offsetTable, 8)

        XCTAssertEqual(problems(configRequest(infoPlist: Self.jsonString(Data(plist).base64EncodedString()))),
                       ["/config/infoPlist: the property list's root is an array, not a dictionary"])
    }

    func testTypicalXcodeInfoPlistWithNestedDictsIsRead() throws {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
            \t<key>BGTaskSchedulerPermittedIdentifiers</key>
            \t<array>
            \t\t<string>com.example.app.refresh</string>
            \t\t<string><![CDATA[com.example.app.cleanup]]></string>
            \t</array>
            \t<!-- written by Xcode -->
            \t<key>UIApplicationSceneManifest</key>
            \t<dict>
            \t\t<key>UIApplicationSupportsMultipleScenes</key>
            \t\t<false/>
            \t\t<key>UISceneConfigurations</key>
            \t\t<dict>
            \t\t\t<key>UIWindowSceneSessionRoleApplication</key>
            \t\t\t<array>
            \t\t\t\t<dict>
            \t\t\t\t\t<key>UISceneConfigurationName</key>
            \t\t\t\t\t<string>Default Configuration</string>
            \t\t\t\t\t<key>UISceneDelegateClassName</key>
            \t\t\t\t\t<string>$(PRODUCT_MODULE_NAME).SceneDelegate</string>
            \t\t\t\t</dict>
            \t\t\t</array>
            \t\t</dict>
            \t</dict>
            \t<key>UIBackgroundModes</key>
            \t<array>
            \t\t<string>fetch</string>
            \t</array>
            </dict>
            </plist>
            """

        let result = try answer(refresh, configRequest(infoPlist: Self.jsonString(xml)))

        XCTAssertEqual(result["/configCheck"], processingModeMissing)
    }

    func testBase64OfABrokenBinaryPropertyListIsRejected() {
        XCTAssertEqual(problems(configRequest(infoPlist: #""YnBsaXN0MDAAAAAA""#)),
                       ["/config/infoPlist: base64 of a binary property list ('bplist') that cannot be read"])
    }

    func testABinaryPropertyListWhoseRootNamesAKeyTwiceIsRejected() {
        // Found by the fuzzer: two of the root's key references point at one
        // `UIBackgroundModes`, and Foundation kept either value from call to call.
        let plist = "YnBsaXN0MDDTAQIDBAYHXxAjQkdUYXNrU2RpZ2llcnNfEBJDRkJ1bmRsZUlkZW50aWZpZXJfEBFVSUJhY2tncm91bmRNb2Rlc6JfEBFVSUJhY2tncm91bmRNb2Rlc6EFXxAXY29tLmV4YW1wbGUuYXBwLnJlZnJlc2hfEA9jb20uZXhhbXBsZS5hcHChCFVmZXRjaAgPNUpeYHqMjgAAAAAAAAEBAAAAAAAAAAkAAAAAAAAAAAAAAAAAAACU"

        XCTAssertEqual(problems(configRequest(infoPlist: "\"\(plist)\"")),
                       ["/config/infoPlist: base64 of a binary property list ('bplist') whose root dictionary names a key twice (or whose keys overlap)"])
    }

    func testHostileInfoPlistTextIsRejectedNotACrash() {
        let deepXML = "<plist>" + String(repeating: "<array>", count: 100_000) + String(repeating: "</array>", count: 100_000) + "</plist>"
        let deepOpenStep = String(repeating: "{a=", count: 100_000) + "b" + String(repeating: ";}", count: 100_000)

        XCTAssertEqual(problems(configRequest(infoPlist: Self.jsonString(deepXML))).count, 1)
        XCTAssertEqual(problems(configRequest(infoPlist: Self.jsonString(deepOpenStep))).count, 1)
    }

    func testConfigNeedsTasksAndInfoPlistOfTheRightKinds() {
        XCTAssertEqual(problems(#"{"config":{}}"#), [
            "/config/tasks: required array is missing",
            "/config/infoPlist: required object or string is missing",
        ])
        XCTAssertEqual(problems(#"{"config":{"tasks":{},"infoPlist":[],"registrations":{}}}"#), [
            "/config/tasks: expected an array, got an object",
            "/config/infoPlist: expected an object or a string, got an array",
            "/config/registrations: expected an array, got an object",
        ])
    }

    func testTasksAndRegistrationsNeedTheirMembers() {
        XCTAssertEqual(problems(#"{"config":{"tasks":[{"identifer":"a","kind":"appRefrsh"},{"identifier":7}],"infoPlist":{},"registrations":[{"identifier":"a","ok":"yes"},{}]}}"#), [
            "/config/tasks/0/identifer: unknown task member 'identifer'; did you mean 'identifier'?",
            "/config/tasks/0/kind: unknown task kind 'appRefrsh'; did you mean 'appRefresh'?",
            "/config/tasks/0/identifier: required string is missing",
            "/config/tasks/1/identifier: expected a string, got a number",
            "/config/tasks/1/kind: required string is missing",
            "/config/registrations/0/ok: expected a boolean, got a string",
            "/config/registrations/1/identifier: required string is missing",
            "/config/registrations/1/ok: required boolean is missing",
        ])
    }

    func testStoreScheduleAndConfigAreClosedWithADidYouMean() {
        XCTAssertEqual(problems(#"{"config":{"task":[],"tasks":[],"infoPlist":{}},"store":{"cursr":"c"},"schedule":{"intervalSecond":60},"runs":[]}"#), [
            "/config/task: unknown config member 'task'; did you mean 'tasks'?",
            "/store/cursr: unknown store member 'cursr'; did you mean 'cursor'?",
            "/schedule/intervalSecond: unknown schedule member 'intervalSecond'; did you mean 'intervalSeconds'?",
        ])
    }

    func testScheduleValuesAreNumbersNotBelowZero() {
        XCTAssertEqual(problems(#"{"schedule":{"intervalSeconds":-1,"backoffBaseSeconds":"60","backoffMaxSeconds":0},"runs":[]}"#), [
            "/schedule/intervalSeconds: expected a number ≥ 0, got -1",
            "/schedule/backoffBaseSeconds: expected a number, got a string",
        ])
    }

    func testStoreMembersHaveTheirTypes() {
        XCTAssertEqual(problems(#"{"store":{"items":{},"cursor":1,"lastSuccessAt":"x"},"runs":[]}"#), [
            "/store/items: expected an array, got an object",
            "/store/cursor: expected a string, got a number",
            "/store/lastSuccessAt: expected a number, got a string",
        ])
    }

    func testRunMembersHaveTheirTypes() {
        XCTAssertEqual(problems(#"{"runs":[{"at":0,"id":1,"pages":{},"fault":[],"observed":[]},{"at":0,"pages":[1,{"items":{},"nextCursor":2}]}]}"#), [
            "/runs/0/id: expected a string, got a number",
            "/runs/0/pages: expected an array, got an object",
            "/runs/0/fault: expected an object, got an array",
            "/runs/0/observed: expected an object, got an array",
            "/runs/1/pages/0: expected an object, got a number",
            "/runs/1/pages/1/items: expected an array, got an object",
            "/runs/1/pages/1/nextCursor: expected a string, got a number",
        ])
    }

    func testTasksAndRegistrationsThatAreNotObjectsAreEachReported() {
        XCTAssertEqual(problems(#"{"config":{"tasks":[1,{"identifier":"a","kind":"appRefresh"},"s"],"infoPlist":{},"registrations":[true,{"identifier":"a","ok":1}]}}"#), [
            "/config/tasks/0: expected an object, got a number",
            "/config/tasks/2: expected an object, got a string",
            "/config/registrations/0: expected an object, got a boolean",
            "/config/registrations/1/ok: expected a boolean, got a number",
        ])
    }

    func testObservedAndObservedFinalNameOnlyKnownFields() {
        XCTAssertEqual(problems(#"{"runs":[{"at":0,"observed":{"outcom":"succeeded","pages":1}}],"observedFinal":{"outcome":"succeeded","item":[]}}"#), [
            "/runs/0/observed/outcom: unknown observed field 'outcom'; did you mean 'outcome'?",
            "/runs/0/observed/pages: unknown observed field 'pages'",
            "/observedFinal/outcome: unknown observedFinal field 'outcome'",
            "/observedFinal/item: unknown observedFinal field 'item'; did you mean 'items'?",
        ])
    }

    func testOnlyRefreshVersionOneIsServed() {
        XCTAssertEqual(problems(#"{"ruleset":"refresh/2","runs":[]}"#),
                       ["/ruleset: ruleset 'refresh/2' is not served here; this endpoint serves 'refresh/1'"])
    }

    func testAnswerThatWouldRepeatAHugeStoreTooOftenIsRejected() throws {
        let items = (0..<2000).map { #"{"id":"\#($0)","payload":"\#(String(repeating: "x", count: 100))"}"# }
        let runs = Array(repeating: #"{"at":0}"#, count: 300).joined(separator: ",")
        let body = #"{"store":{"items":[\#(items.joined(separator: ","))]},"runs":[\#(runs)]}"#

        let rejection = try XCTUnwrap(rejection(refresh, body))

        XCTAssertEqual(rejection.problems.count, 1)
        XCTAssertEqual(rejection.problems.first?.pointer.hasPrefix("/runs/"), true)
        XCTAssertEqual(rejection.problems.first?.detail, "the answer would exceed 64 MiB: every step repeats the store before and after its run; send fewer runs or a smaller store per request")
    }

    func testARunThatIsNotAnObjectAfterTheBudgetRunsOutIsReportedInsteadOfTheBudget() throws {
        let items = (0..<2000).map { #"{"id":"\#($0)","payload":"\#(String(repeating: "x", count: 100))"}"# }
        let runs = Array(repeating: #"{"at":0}"#, count: 300) + ["7", #"{"at":"later"}"#]
        let body = #"{"store":{"items":[\#(items.joined(separator: ","))]},"runs":[\#(runs.joined(separator: ","))]}"#

        // As when the number comes first: every run is validated and none is run.
        XCTAssertEqual(problems(body), [
            "/runs/300: expected an object, got a number",
            "/runs/301/at: expected a number, got a string",
        ])
    }

    // MARK: Discovery

    func testRefreshIsListedAfterHapticsAndFoundByShortName() {
        XCTAssertEqual(Rulesets.all.map(\.name).prefix(3), ["playback/1", "haptics/1", "refresh/1"])
        XCTAssertEqual(Rulesets.named("refresh")?.path, "/refresh/run")
        XCTAssertEqual(Rulesets.named("refresh/1")?.name, "refresh/1")
    }

    /// `text` as a JSON string literal.
    private static func jsonString(_ text: String) -> String {
        var writer = JSONWriter()
        writer.string(escaping: text)
        return String(decoding: writer.finish(), as: UTF8.self)
    }
}
