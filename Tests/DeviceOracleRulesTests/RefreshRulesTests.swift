import XCTest
import DeviceOracleRules

/// One test per rule of `refresh.md`, named after the behaviour. Item content is
/// a plain string here: the rules never look into it.
final class RefreshRulesTests: XCTestCase {
    private typealias Store = RefreshStore<String>
    private typealias Page = RefreshPage<String>
    private typealias Run = RefreshRun<String>
    private typealias Machine = RefreshMachine<String>

    private func item(_ id: String, _ content: String) -> RefreshItem<String> {
        RefreshItem(id: id, content: content)
    }

    /// The store every "keeps the old data readable" test starts from.
    private var synced: Store {
        Store(items: [item("1", "old one"), item("2", "old two")], cursor: "c0", lastSuccessAt: 100)
    }

    private let updatePage = RefreshPage(items: [RefreshItem(id: "2", content: "new two"),
                                                 RefreshItem(id: "3", content: "new three")],
                                         nextCursor: "c1")

    /// `synced`'s items after `updatePage` was written.
    private var updatedItems: [RefreshItem<String>] {
        [item("1", "old one"), item("2", "new two"), item("3", "new three")]
    }

    // MARK: Success

    func testSuccessCommitsCursorItemsAndRefreshTimeTogether() throws {
        var machine = Machine(state: RefreshState(store: synced))

        let decision = machine.apply(try Run(at: 1000, pages: [updatePage]))

        XCTAssertEqual(decision, RefreshDecision(outcome: .succeeded, taskCompleted: true, pagesCommitted: 1, commits: 1,
                                                 tempFilesLeft: 0, actions: [.completeSuccess],
                                                 nextEarliestBeginAt: 1900))
        XCTAssertEqual(machine.state.store, Store(items: updatedItems, cursor: "c1", lastSuccessAt: 1000))
    }

    func testEachPageCommitsItsOwnTransactionAndTheCursorEndsAtTheLastPage() throws {
        var machine = Machine()

        let decision = machine.apply(try Run(at: 0, pages: [Page(items: [item("a", "1")], nextCursor: "p1"),
                                                        Page(items: [item("b", "2")], nextCursor: "p2")]))

        XCTAssertEqual(decision.pagesCommitted, 2)
        XCTAssertEqual(decision.commits, 2)
        XCTAssertEqual(machine.state.store, Store(items: [item("a", "1"), item("b", "2")], cursor: "p2",
                                                  lastSuccessAt: 0))
    }

    func testUpsertReplacesAnExistingIdInPlaceAndAppendsNewOnes() throws {
        var machine = Machine(state: RefreshState(store: Store(items: [item("1", "a"), item("2", "b"), item("3", "c")])))

        _ = machine.apply(try Run(at: 0, pages: [Page(items: [item("4", "d"), item("1", "A")])]))

        XCTAssertEqual(machine.state.store.items, [item("1", "A"), item("2", "b"), item("3", "c"), item("4", "d")])
    }

    func testNullNextCursorKeepsTheStoredCursor() throws {
        var machine = Machine(state: RefreshState(store: Store(cursor: "c0")))

        _ = machine.apply(try Run(at: 0, pages: [Page(items: [item("1", "a")], nextCursor: nil)]))

        XCTAssertEqual(machine.state.store.cursor, "c0")
    }

    func testRunWithoutPagesSucceedsWithOneCommitForItsSuccessMarker() throws {
        var machine = Machine(state: RefreshState(store: synced))

        let decision = machine.apply(try Run(at: 500))

        XCTAssertEqual(decision, RefreshDecision(outcome: .succeeded, taskCompleted: true, pagesCommitted: 0, commits: 1,
                                                 tempFilesLeft: 0, actions: [.completeSuccess],
                                                 nextEarliestBeginAt: 1400))
        XCTAssertEqual(machine.state.store, Store(items: synced.items, cursor: "c0", lastSuccessAt: 500))
    }

    func testPageWithoutItemsStillCommitsItsCursorAndSuccessMarker() throws {
        var machine = Machine(state: RefreshState(store: synced))

        let decision = machine.apply(try Run(at: 500, pages: [Page(items: [], nextCursor: "c9")]))

        XCTAssertEqual(decision.commits, 1)
        XCTAssertEqual(decision.pagesCommitted, 1)
        XCTAssertEqual(machine.state.store, Store(items: synced.items, cursor: "c9", lastSuccessAt: 500))
    }

    func testSameInputTwiceLeavesNoDuplicatesAndCountsTwoCommits() throws {
        let run = try Run(at: 0, pages: [Page(items: [item("42", "a")], nextCursor: "c1")])
        var machine = Machine()
        var summary = RefreshSummary()

        summary.count(machine.apply(run))
        summary.count(machine.apply(try Run(at: 900, pages: run.pages)))

        XCTAssertEqual(machine.state.store, Store(items: [item("42", "a")], cursor: "c1", lastSuccessAt: 900))
        XCTAssertEqual(summary.commits, 2)
    }

    func testAFaultNamingAPageTheRunDoesNotHaveIsThrownNotATrap() {
        XCTAssertThrowsError(try Run(at: 0, pages: [updatePage], fault: RefreshFault(kind: .crash, stage: .write, page: 1))) {
            XCTAssertEqual($0 as? RefreshFaultOutsideRun, RefreshFaultOutsideRun(page: 1, pageCount: 1))
        }
    }

    // MARK: Faults: an error in download or write keeps the old data readable

    func testErrorInDownloadKeepsTheOldDataReadable() throws {
        var machine = Machine(state: RefreshState(store: synced))

        let decision = machine.apply(try Run(at: 1000, pages: [updatePage],
                                         fault: RefreshFault(kind: .error, stage: .download, page: 0)))

        XCTAssertEqual(decision, RefreshDecision(outcome: .failed, taskCompleted: false, pagesCommitted: 0, commits: 0,
                                                 tempFilesLeft: 0, actions: [.completeFailure],
                                                 nextEarliestBeginAt: 1060))
        XCTAssertEqual(machine.state.store, synced)
    }

    func testErrorInWriteKeepsTheOldDataReadableAndRemovesTheTemporaryFile() throws {
        var machine = Machine(state: RefreshState(store: synced))

        let decision = machine.apply(try Run(at: 1000, pages: [updatePage],
                                         fault: RefreshFault(kind: .error, stage: .write, page: 0)))

        XCTAssertEqual(decision.outcome, .failed)
        XCTAssertEqual(decision.tempFilesLeft, 0)
        XCTAssertEqual(machine.state.store, synced)
        XCTAssertEqual(machine.state.staleTempFiles, 0)
    }

    func testErrorAtTheCursorStageWritesTheItemsButNotTheCursor() throws {
        var machine = Machine(state: RefreshState(store: synced))

        let decision = machine.apply(try Run(at: 1000, pages: [updatePage],
                                         fault: RefreshFault(kind: .error, stage: .cursor, page: 0)))

        XCTAssertEqual(decision, RefreshDecision(outcome: .failed, taskCompleted: false, pagesCommitted: 0, commits: 1,
                                                 tempFilesLeft: 0, actions: [.completeFailure],
                                                 nextEarliestBeginAt: 1060))
        XCTAssertEqual(machine.state.store, Store(items: updatedItems, cursor: "c0", lastSuccessAt: 100))
    }

    func testPagesBeforeTheFaultedPageStayCommitted() throws {
        var machine = Machine()

        let decision = machine.apply(try Run(at: 0, pages: [Page(items: [item("a", "1")], nextCursor: "p1"),
                                                        Page(items: [item("b", "2")], nextCursor: "p2")],
                                         fault: RefreshFault(kind: .error, stage: .download, page: 1)))

        XCTAssertEqual(decision.pagesCommitted, 1)
        XCTAssertEqual(decision.commits, 1)
        XCTAssertEqual(machine.state.store, Store(items: [item("a", "1")], cursor: "p1", lastSuccessAt: nil))
    }

    // MARK: Faults: an expiry cleans temporary files and sets no success marker

    func testExpiryMidWriteLeavesTheOldDataReadable() throws {
        var machine = Machine(state: RefreshState(store: synced))

        let decision = machine.apply(try Run(at: 1000, pages: [updatePage],
                                         fault: RefreshFault(kind: .expire, stage: .write, page: 0)))

        XCTAssertEqual(decision, RefreshDecision(outcome: .expired, taskCompleted: false, pagesCommitted: 0, commits: 0,
                                                 tempFilesLeft: 0, actions: [.cancelJob, .completeFailure],
                                                 nextEarliestBeginAt: 1060))
        XCTAssertEqual(machine.state.store, synced)
    }

    func testExpiryCleansTemporaryFilesAndSetsNoSuccessMarker() throws {
        var machine = Machine(state: RefreshState(store: Store()))

        let decision = machine.apply(try Run(at: 1000, pages: [updatePage, updatePage],
                                         fault: RefreshFault(kind: .expire, stage: .write, page: 1)))

        XCTAssertEqual(decision.tempFilesLeft, 0)
        XCTAssertEqual(machine.state.staleTempFiles, 0)
        XCTAssertEqual(machine.state.store.lastSuccessAt, nil)
        XCTAssertEqual(machine.state.store.cursor, "c1")
    }

    func testExpiryAtTheCursorStageKeepsTheItemsWrittenAndTheOldCursor() throws {
        var machine = Machine(state: RefreshState(store: synced))

        let decision = machine.apply(try Run(at: 1000, pages: [updatePage],
                                         fault: RefreshFault(kind: .expire, stage: .cursor, page: 0)))

        XCTAssertEqual(decision.commits, 1)
        XCTAssertEqual(decision.pagesCommitted, 0)
        XCTAssertEqual(machine.state.store.cursor, "c0")
        XCTAssertEqual(machine.state.store.lastSuccessAt, 100)
        XCTAssertEqual(machine.state.store.items.map(\.id), ["1", "2", "3"])
    }

    // MARK: Faults: a crash completes nothing

    func testCrashDuringDownloadCompletesNothingAndLeavesNoTemporaryFile() throws {
        var machine = Machine(state: RefreshState(store: synced))

        let decision = machine.apply(try Run(at: 1000, pages: [updatePage],
                                         fault: RefreshFault(kind: .crash, stage: .download, page: 0)))

        XCTAssertEqual(decision, RefreshDecision(outcome: .crashed, taskCompleted: nil, pagesCommitted: 0, commits: 0,
                                                 tempFilesLeft: 0, actions: [], nextEarliestBeginAt: nil))
        XCTAssertEqual(machine.state.store, synced)
    }

    func testCrashMidWriteLeavesOneTemporaryFile() throws {
        var machine = Machine(state: RefreshState(store: synced))

        let decision = machine.apply(try Run(at: 1000, pages: [updatePage],
                                         fault: RefreshFault(kind: .crash, stage: .write, page: 0)))

        XCTAssertEqual(decision.tempFilesLeft, 1)
        XCTAssertEqual(machine.state.staleTempFiles, 1)
        XCTAssertEqual(machine.state.store, synced)
    }

    func testNextRunRemovesTheStaleTemporaryFileFirst() throws {
        var machine = Machine(state: RefreshState(store: synced, staleTempFiles: 1))

        let decision = machine.apply(try Run(at: 1000, pages: [updatePage],
                                         fault: RefreshFault(kind: .expire, stage: .download, page: 0)))

        XCTAssertEqual(decision.actions, [.removeStaleTemp, .cancelJob, .completeFailure])
        XCTAssertEqual(machine.state.staleTempFiles, 0)
    }

    func testCrashBetweenItemWriteAndCursorUpdateThenRefetchOfTheSamePageIsHarmless() throws {
        var machine = Machine(state: RefreshState(store: synced))

        let crashed = machine.apply(try Run(at: 1000, pages: [updatePage],
                                        fault: RefreshFault(kind: .crash, stage: .cursor, page: 0)))
        let storeAfterCrash = machine.state.store
        let refetched = machine.apply(try Run(at: 1100, pages: [updatePage]))

        XCTAssertEqual(crashed, RefreshDecision(outcome: .crashed, taskCompleted: nil, pagesCommitted: 0, commits: 1,
                                                tempFilesLeft: 0, actions: [], nextEarliestBeginAt: nil))
        XCTAssertEqual(storeAfterCrash, Store(items: updatedItems, cursor: "c0", lastSuccessAt: 100))
        XCTAssertEqual(refetched.actions, [.completeSuccess])
        XCTAssertEqual(machine.state.store, Store(items: storeAfterCrash.items, cursor: "c1", lastSuccessAt: 1100))
    }

    func testEveryFaultKindAtEveryStageHasItsOutcome() throws {
        typealias Row = (kind: RefreshFaultKind, stage: RefreshStage, outcome: RefreshOutcome, taskCompleted: Bool?,
                         commits: Int, tempFilesLeft: Int, actions: [RefreshAction])
        let table: [Row] = [
            (.error, .download, .failed, false, 0, 0, [.completeFailure]),
            (.error, .write, .failed, false, 0, 0, [.completeFailure]),
            (.error, .cursor, .failed, false, 1, 0, [.completeFailure]),
            (.expire, .download, .expired, false, 0, 0, [.cancelJob, .completeFailure]),
            (.expire, .write, .expired, false, 0, 0, [.cancelJob, .completeFailure]),
            (.expire, .cursor, .expired, false, 1, 0, [.cancelJob, .completeFailure]),
            (.crash, .download, .crashed, nil, 0, 0, []),
            (.crash, .write, .crashed, nil, 0, 1, []),
            (.crash, .cursor, .crashed, nil, 1, 0, []),
        ]
        for row in table {
            var machine = Machine(state: RefreshState(store: synced))

            let decision = machine.apply(try Run(at: 1000, pages: [updatePage],
                                             fault: RefreshFault(kind: row.kind, stage: row.stage, page: 0)))

            let label = "\(row.kind) at \(row.stage)"
            XCTAssertEqual(decision.outcome, row.outcome, label)
            XCTAssertEqual(decision.taskCompleted, row.taskCompleted, label)
            XCTAssertEqual(decision.pagesCommitted, 0, label)
            XCTAssertEqual(decision.commits, row.commits, label)
            XCTAssertEqual(decision.tempFilesLeft, row.tempFilesLeft, label)
            XCTAssertEqual(decision.actions, row.actions, label)
            XCTAssertEqual(machine.state.store.cursor, "c0", label)
            XCTAssertEqual(machine.state.store.lastSuccessAt, 100, label)
        }
    }

    // MARK: Scheduling with backoff

    func testSuccessSchedulesTheNextRunOneIntervalLater() throws {
        var machine = Machine()

        XCTAssertEqual(machine.apply(try Run(at: 100)).nextEarliestBeginAt, 1000)
    }

    func testBackoffDoublesWithEachFailureInARowUpToTheMaximum() throws {
        var machine = Machine()
        let error = RefreshFault(kind: .error, stage: .download, page: 0)
        let page = Page(items: [], nextCursor: nil)

        let delays = try (0..<8).map { _ in
            machine.apply(try Run(at: 0, pages: [page], fault: error)).nextEarliestBeginAt
        }

        XCTAssertEqual(delays, [60, 120, 240, 480, 960, 1920, 3600, 3600])
        XCTAssertEqual(machine.state.consecutiveFailures, 8)
    }

    func testExpiryCountsTowardsTheBackoffLikeAFailure() throws {
        var machine = Machine()
        let page = Page(items: [], nextCursor: nil)

        _ = machine.apply(try Run(at: 0, pages: [page], fault: RefreshFault(kind: .error, stage: .write, page: 0)))
        let expired = machine.apply(try Run(at: 100, pages: [page], fault: RefreshFault(kind: .expire, stage: .write, page: 0)))

        XCTAssertEqual(expired.nextEarliestBeginAt, 220)
    }

    func testSuccessResetsTheBackoff() throws {
        var machine = Machine(state: RefreshState(consecutiveFailures: 5))
        let page = Page(items: [], nextCursor: nil)

        _ = machine.apply(try Run(at: 0))
        let failed = machine.apply(try Run(at: 1000, pages: [page], fault: RefreshFault(kind: .error, stage: .write, page: 0)))

        XCTAssertEqual(failed.nextEarliestBeginAt, 1060)
    }

    func testCrashNeitherCountsTowardsNorResetsTheBackoff() throws {
        var machine = Machine()
        let page = Page(items: [], nextCursor: nil)

        _ = machine.apply(try Run(at: 0, pages: [page], fault: RefreshFault(kind: .error, stage: .write, page: 0)))
        let crashed = machine.apply(try Run(at: 100, pages: [page], fault: RefreshFault(kind: .crash, stage: .write, page: 0)))
        let failed = machine.apply(try Run(at: 200, pages: [page], fault: RefreshFault(kind: .error, stage: .write, page: 0)))

        XCTAssertNil(crashed.nextEarliestBeginAt)
        XCTAssertEqual(failed.nextEarliestBeginAt, 320)
        XCTAssertEqual(machine.state.consecutiveFailures, 2)
    }

    func testScheduleOverridesReplaceTheDefaults() throws {
        var machine = Machine(schedule: RefreshSchedule(intervalSeconds: 3600, backoffBaseSeconds: 10,
                                                        backoffMaxSeconds: 25))
        let page = Page(items: [], nextCursor: nil)
        let error = RefreshFault(kind: .error, stage: .write, page: 0)

        let succeeded = machine.apply(try Run(at: 0))
        let failures = try (0..<3).map { _ in machine.apply(try Run(at: 0, pages: [page], fault: error)).nextEarliestBeginAt }

        XCTAssertEqual(succeeded.nextEarliestBeginAt, 3600)
        XCTAssertEqual(failures, [10, 20, 25])
    }

    func testBackoffAfterAnyNumberOfFailuresIsAtMostTheMaximum() throws {
        let schedule = RefreshSchedule()

        XCTAssertEqual(schedule.backoffSeconds(consecutiveFailures: 0), 0)
        XCTAssertEqual(schedule.backoffSeconds(consecutiveFailures: 1), 60)
        XCTAssertEqual(schedule.backoffSeconds(consecutiveFailures: 5000), 3600)
        XCTAssertEqual(schedule.backoffSeconds(consecutiveFailures: .max), 3600)
        XCTAssertEqual(RefreshSchedule(backoffBaseSeconds: 0).backoffSeconds(consecutiveFailures: 99), 0)
    }

    func testNextTimeBeyondTheLargestDoubleIsTheLargestDouble() throws {
        var machine = Machine(schedule: RefreshSchedule(intervalSeconds: .greatestFiniteMagnitude))

        XCTAssertEqual(machine.apply(try Run(at: .greatestFiniteMagnitude)).nextEarliestBeginAt, .greatestFiniteMagnitude)
    }

    // MARK: Warnings

    func testRunBeforeTheEarliestBeginTimeWarns() throws {
        var machine = Machine()
        _ = machine.apply(try Run(at: 0))

        let early = machine.apply(try Run(at: 899))

        XCTAssertEqual(early.diagnostics, [.ranBeforeEarliestBegin(earliestBeginAt: 900)])
        XCTAssertEqual(early.outcome, .succeeded)
    }

    func testRunAtExactlyTheEarliestBeginTimeIsOnTime() throws {
        var machine = Machine()
        _ = machine.apply(try Run(at: 0))

        XCTAssertEqual(machine.apply(try Run(at: 900)).diagnostics, [])
    }

    func testFirstRunIsNeverEarly() throws {
        var machine = Machine()

        XCTAssertEqual(machine.apply(try Run(at: -5)).diagnostics, [])
    }

    func testRunAfterACrashIsNeverEarlyBecauseNothingIsPending() throws {
        var machine = Machine()
        let page = Page(items: [], nextCursor: nil)
        _ = machine.apply(try Run(at: 0))
        _ = machine.apply(try Run(at: 900, pages: [page], fault: RefreshFault(kind: .crash, stage: .download, page: 0)))
        let pendingAfterCrash = machine.state.earliestBeginAt

        let next = machine.apply(try Run(at: 901))

        XCTAssertNil(pendingAfterCrash)
        XCTAssertEqual(next.diagnostics, [])
    }

    func testPageHoldingAnIdTwiceWarnsAndTheLaterItemTakesTheEarlierPosition() throws {
        var machine = Machine()

        let decision = machine.apply(try Run(at: 0, pages: [Page(items: [item("1", "first"), item("2", "b"),
                                                                     item("1", "second"), item("1", "third")])]))

        XCTAssertEqual(decision.diagnostics, [.duplicateIdInPage(page: 0, ids: ["1"])])
        XCTAssertEqual(machine.state.store.items, [item("1", "third"), item("2", "b")])
    }

    func testDuplicateIdsAreReportedForEveryPageAsGivenEvenAfterTheFault() throws {
        var machine = Machine()
        let doubled = Page(items: [item("x", "1"), item("x", "2"), item("y", "1"), item("y", "2")])

        let decision = machine.apply(try Run(at: 0, pages: [doubled, Page(), doubled],
                                         fault: RefreshFault(kind: .crash, stage: .download, page: 0)))

        XCTAssertEqual(decision.diagnostics, [.duplicateIdInPage(page: 0, ids: ["x", "y"]),
                                              .duplicateIdInPage(page: 2, ids: ["x", "y"])])
    }

    func testALongPageReportsEachRepeatedIdOnceInOrderOfFirstRepetition() throws {
        var machine = Machine()
        // Longer than a short page, which is searched pairwise: the hashed search answers the same.
        let ids = (0..<40).map(String.init) + ["7", "30", "7", "0"]

        let decision = machine.apply(try Run(at: 0, pages: [Page(items: ids.map { item($0, "v") })]))

        XCTAssertEqual(decision.diagnostics, [.duplicateIdInPage(page: 0, ids: ["7", "30", "0"])])
        XCTAssertEqual(machine.state.store.items.count, 40)
    }

    // MARK: Store and summary

    func testALargeStoreReplacesARepeatedIdInPlaceAsASmallOneDoes() throws {
        // Past the items a store searches one by one, it finds them by hash.
        var store = Store(items: (0..<40).map { item(String($0), "old") })

        XCTAssertTrue(store.upsert(item("3", "new")))
        XCTAssertTrue(store.upsert(item("39", "new")))
        XCTAssertFalse(store.upsert(item("40", "added")))

        XCTAssertEqual(store.items.count, 41)
        XCTAssertEqual(store.items[3], item("3", "new"))
        XCTAssertEqual(store.items[39], item("39", "new"))
        XCTAssertEqual(store.item(withID: "40"), item("40", "added"))
        XCTAssertEqual(store.item(withID: "16"), item("16", "old"))
    }

    func testIdsCompareLiterallyNotByUnicodeEquivalence() throws {
        var store = Store(items: [item("caf\u{E9}", "precomposed")])

        let replaced = store.upsert(item("cafe\u{301}", "decomposed"))

        XCTAssertFalse(replaced)
        XCTAssertEqual(store.items.count, 2)
    }

    func testSummaryCountsRunsCommitsAndEachOutcome() throws {
        var machine = Machine()
        var summary = RefreshSummary()
        let page = Page(items: [item("1", "a")])
        let runs = [try Run(at: 0, pages: [page, page]),
                    try Run(at: 1, pages: [page], fault: RefreshFault(kind: .error, stage: .cursor, page: 0)),
                    try Run(at: 2, pages: [page], fault: RefreshFault(kind: .expire, stage: .download, page: 0)),
                    try Run(at: 3, pages: [page], fault: RefreshFault(kind: .crash, stage: .write, page: 0)),
                    try Run(at: 4)]

        for run in runs { summary.count(machine.apply(run)) }

        var expected = RefreshSummary()
        (expected.runs, expected.commits, expected.succeeded, expected.failed, expected.expired, expected.crashed)
            = (5, 4, 2, 1, 1, 1)
        XCTAssertEqual(summary, expected)
    }

    // MARK: Static configuration

    private let refresh = BackgroundTask(identifier: "com.example.app.refresh", kind: .appRefresh)
    private let cleanup = BackgroundTask(identifier: "com.example.app.cleanup", kind: .processing)

    private func config(tasks: [BackgroundTask]? = nil, permitted: InfoPlistList = .strings(["com.example.app.refresh"]),
                        modes: InfoPlistList = .strings(["fetch"]),
                        registrations: [TaskRegistration]? = nil) -> RefreshConfig {
        RefreshConfig(tasks: tasks ?? [refresh], permittedIdentifiers: permitted, backgroundModes: modes,
                      registrations: registrations)
    }

    func testChecksArePerTaskInTaskOrderThenUniqueIdentifiersOnce() throws {
        let checks = config(tasks: [refresh, cleanup], registrations: []).checks()

        XCTAssertEqual(checks.map(\.check), [.permittedIdentifier, .backgroundMode, .registered,
                                             .permittedIdentifier, .backgroundMode, .registered, .uniqueIdentifiers])
        XCTAssertEqual(checks.map(\.identifier), [refresh.identifier, refresh.identifier, refresh.identifier,
                                                  cleanup.identifier, cleanup.identifier, cleanup.identifier, nil])
    }

    func testExactlyPermittedIdentifierPassesWithoutDetail() throws {
        let check = config().checks()[0]

        XCTAssertTrue(check.passed)
        XCTAssertNil(check.detail)
    }

    func testIdentifierDifferingOnlyInCaseIsNotPermittedAndNamedAsNearMiss() throws {
        let check = config(permitted: .strings(["COM.EXAMPLE.APP.REFRESH"])).checks()[0]

        XCTAssertEqual(check.failure, .notPermitted(nearMiss: "COM.EXAMPLE.APP.REFRESH"))
        XCTAssertEqual(check.detail,
                       "'com.example.app.refresh' is not in BGTaskSchedulerPermittedIdentifiers; near miss: 'COM.EXAMPLE.APP.REFRESH'")
    }

    func testIdentifierTwoEditsAwayIsNamedAsNearMiss() throws {
        let check = config(permitted: .strings(["com.other.app", "com.exmaple.app.refesh"])).checks()[0]

        XCTAssertEqual(check.failure, .notPermitted(nearMiss: "com.exmaple.app.refesh"))
    }

    func testIdentifierThreeEditsAwayIsNotPermittedWithoutNearMiss() throws {
        let check = config(permitted: .strings(["com.example.app.ref"])).checks()[0]

        XCTAssertEqual(check.failure, .notPermitted(nearMiss: nil))
        XCTAssertEqual(check.detail, "'com.example.app.refresh' is not in BGTaskSchedulerPermittedIdentifiers")
    }

    func testNearMissIsTheFirstInListOrder() throws {
        let check = config(permitted: .strings(["com.example.app.refresh2", "Com.Example.App.Refresh"])).checks()[0]

        XCTAssertEqual(check.failure, .notPermitted(nearMiss: "com.example.app.refresh2"))
    }

    func testIdentifiersArePermittedOnlyByTheirExactBytes() throws {
        let task = BackgroundTask(identifier: "com.example.caf\u{E9}", kind: .appRefresh)

        let check = config(tasks: [task], permitted: .strings(["com.example.cafe\u{301}"])).checks()[0]

        XCTAssertEqual(check.failure, .notPermitted(nearMiss: "com.example.cafe\u{301}"))
    }

    func testALongPermittedListPermitsByExactBytesAsAShortOneDoes() throws {
        let others = (0..<40).map { "com.example.other\($0)" }
        let permitted = config(permitted: .strings(others + [refresh.identifier])).checks()[0]
        let decomposed = BackgroundTask(identifier: "com.example.caf\u{E9}", kind: .appRefresh)
        let refused = config(tasks: [decomposed], permitted: .strings(others + ["com.example.cafe\u{301}"])).checks()[0]

        XCTAssertTrue(permitted.passed)
        XCTAssertEqual(refused.failure, .notPermitted(nearMiss: "com.example.cafe\u{301}"))
    }

    func testMissingPermittedIdentifiersKeyFailsSayingTheKeyIsMissing() throws {
        let check = config(permitted: .missing).checks()[0]

        XCTAssertEqual(check.detail, "the Info.plist has no BGTaskSchedulerPermittedIdentifiers key")
    }

    func testPermittedIdentifiersThatIsNotAnArrayFails() throws {
        let check = config(permitted: .notAnArray).checks()[0]

        XCTAssertEqual(check.detail, "BGTaskSchedulerPermittedIdentifiers in the Info.plist is not an array")
    }

    func testAppRefreshTaskNeedsTheFetchBackgroundMode() throws {
        let passing = config(modes: .strings(["fetch"])).checks()[1]
        let failing = config(modes: .strings(["processing", "audio"])).checks()[1]

        XCTAssertTrue(passing.passed)
        XCTAssertEqual(failing.detail, "UIBackgroundModes has no 'fetch', which appRefresh tasks need")
    }

    func testProcessingTaskNeedsTheProcessingBackgroundMode() throws {
        let passing = config(tasks: [cleanup], modes: .strings(["processing"])).checks()[1]
        let failing = config(tasks: [cleanup], modes: .strings(["fetch"])).checks()[1]

        XCTAssertTrue(passing.passed)
        XCTAssertEqual(failing.failure, .backgroundModeMissing(mode: "processing", kind: .processing))
    }

    func testMissingOrMalformedBackgroundModesFailTheModeCheck() throws {
        XCTAssertEqual(config(modes: .missing).checks()[1].detail, "the Info.plist has no UIBackgroundModes key")
        XCTAssertEqual(config(modes: .notAnArray).checks()[1].detail, "UIBackgroundModes in the Info.plist is not an array")
    }

    func testRegisteredPassesWhenAnyEntryForTheIdentifierSaysOk() throws {
        let registrations = [TaskRegistration(identifier: refresh.identifier, ok: false),
                             TaskRegistration(identifier: refresh.identifier, ok: true)]

        XCTAssertTrue(config(registrations: registrations).checks()[2].passed)
    }

    func testRegisteredFailsWithoutAnEntryOrWhenEveryEntryFailed() throws {
        let unregistered = config(registrations: [TaskRegistration(identifier: "other", ok: true)]).checks()[2]
        let refused = config(registrations: [TaskRegistration(identifier: refresh.identifier, ok: false)]).checks()[2]

        XCTAssertEqual(unregistered.detail, "registrations has no entry for 'com.example.app.refresh'")
        XCTAssertEqual(refused.detail, "register(forTaskWithIdentifier:) returned false for 'com.example.app.refresh'")
    }

    func testWithoutRegistrationsThereIsNoRegisteredCheck() throws {
        XCTAssertFalse(config().checks().contains { $0.check == .registered })
    }

    func testRepeatedIdentifierFailsUniqueIdentifiersOnceNamingIt() throws {
        let checks = config(tasks: [refresh, cleanup, refresh, refresh]).checks()

        XCTAssertEqual(checks.filter { $0.check == .uniqueIdentifiers },
                       [ConfigCheck(check: .uniqueIdentifiers, identifier: nil,
                                    failure: .repeatedIdentifiers([refresh.identifier]))])
        XCTAssertEqual(checks.last?.detail, "'com.example.app.refresh' appears more than once in tasks")
    }

    func testRepeatedIdentifiersAmongManyTasksAreEachNamedOnceInOrderOfRepetition() throws {
        let tasks = (0..<40).map { BackgroundTask(identifier: "com.example.task\($0)", kind: .appRefresh) }
        let checks = config(tasks: tasks + [tasks[30], tasks[2], tasks[30]],
                            permitted: .strings(tasks.map(\.identifier))).checks()

        XCTAssertEqual(checks.last?.failure, .repeatedIdentifiers(["com.example.task30", "com.example.task2"]))
    }

    func testDistinctIdentifiersPassUniqueIdentifiers() throws {
        XCTAssertEqual(config(tasks: [refresh, cleanup]).checks().last,
                       ConfigCheck(check: .uniqueIdentifiers, identifier: nil))
    }
}
