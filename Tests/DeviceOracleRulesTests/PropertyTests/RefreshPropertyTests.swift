import DeviceOracleRules
import Foundation
import PropertyChecking
import XCTest

/// `refresh.md` part 2 as properties over thousands of random run sequences: stores
/// with colliding ids, pages repeated, every fault kind at every stage and page.
/// Item content is a version number; the rules never look into it.
final class RefreshPropertyTests: XCTestCase {
    private typealias Run = RefreshRun<Int>
    private typealias Setup = RefreshSetup
    private typealias RefreshSample = Sample<Setup, Run>

    private static func generate(_ random: inout SplitMix64) -> RefreshSample {
        // Few distinct ids, so pages keep writing over each other.
        func item() -> RefreshItem<Int> {
            RefreshItem(id: "\(Int.random(in: 1...8, using: &random))", content: Int.random(in: 0...3, using: &random))
        }
        func page() -> RefreshPage<Int> {
            RefreshPage(items: (0..<Int.random(in: 0...4, using: &random)).map { _ in item() },
                        nextCursor: random.chance(30) ? nil : "c\(Int.random(in: 0...5, using: &random))")
        }
        var at = Double(Int.random(in: 0...1000, using: &random))
        func run(faults: Bool) -> Run {
            // Mostly later than the previous run, sometimes earlier (out of order or early).
            at += Double(Int.random(in: random.chance(15) ? -900...0 : 0...4000, using: &random))
            let pages = (0..<Int.random(in: 0...4, using: &random)).map { _ in page() }
            guard faults, !pages.isEmpty, random.chance(50) else { return try! Run(at: at, pages: pages) }
            let fault = RefreshFault(kind: random.pick(RefreshFaultKind.allCases), stage: random.pick(RefreshStage.allCases),
                                     page: Int.random(in: 0..<pages.count, using: &random))
            return try! Run(at: at, pages: pages, fault: fault)
        }
        let store = RefreshStore(items: (0..<Int.random(in: 0...5, using: &random)).map { _ in item() },
                                 cursor: random.chance(50) ? nil : "c0",
                                 lastSuccessAt: random.chance(50) ? nil : Double(Int.random(in: 0...500, using: &random)))
        let state = RefreshState(store: store, earliestBeginAt: random.chance(50) ? nil : at + 100,
                                 consecutiveFailures: Int.random(in: 0...3, using: &random),
                                 staleTempFiles: random.chance(20) ? 1 : 0)
        let schedule = RefreshSchedule(intervalSeconds: Double(Int.random(in: 0...1800, using: &random)),
                                       backoffBaseSeconds: Double(Int.random(in: 1...120, using: &random)),
                                       backoffMaxSeconds: Double(Int.random(in: 0...7200, using: &random)))
        let runs = (0..<Int.random(in: 0...12, using: &random)).map { _ in run(faults: true) }
        return Sample(setup: Setup(state: state, schedule: schedule, successfulRun: run(faults: false)), events: runs)
    }

    private typealias Step = AppliedStep<RefreshMachine<Int>>

    private static func steps(_ sample: RefreshSample) -> [Step] {
        var machine = RefreshMachine(state: sample.setup.state, schedule: sample.setup.schedule)
        return machine.steps(sample.events)
    }

    private static func violation(_ sample: RefreshSample, _ rule: (Step) -> String?) -> String? {
        firstViolation(steps(sample), rule)
    }

    // MARK: The store

    func testStoreNeverHoldsAnIdTwice() {
        // Commit: "upsert every item by id …, so the store never holds an id twice".
        checkProperty("unique ids", generate: Self.generate) { sample in
            Self.violation(sample) { step in
                let ids = step.after.store.items.map(\.id)
                return Set(ids).count == ids.count ? nil : "ids \(ids)"
            }
        }
    }

    func testLastSuccessAtMovesOnlyWhenARunSucceedsAndThenToItsTime() {
        // "lastSuccessAt never changes on a run that did not succeed"; a success sets it to `at`.
        checkProperty("lastSuccessAt", generate: Self.generate) { sample in
            Self.violation(sample) { step in
                let expected = step.decision.outcome == .succeeded ? step.event.at : step.before.store.lastSuccessAt
                return step.after.store.lastSuccessAt == expected
                    ? nil : "\(step.decision.outcome) moved lastSuccessAt to \(String(describing: step.after.store.lastSuccessAt))"
            }
        }
    }

    func testRepeatingASuccessfulRunLeavesItemsAndCursorUnchanged() {
        // "the next run fetches that page again from the old cursor, and the upsert makes that harmless".
        checkProperty("a repeated run is harmless", generate: Self.generate) { sample in
            var machine = RefreshMachine(state: sample.setup.state, schedule: sample.setup.schedule)
            for run in sample.events { _ = machine.apply(run) }
            _ = machine.apply(sample.setup.successfulRun)
            let once = machine.state.store
            _ = machine.apply(sample.setup.successfulRun)
            let twice = machine.state.store
            return once.items == twice.items && once.cursor == twice.cursor
                ? nil : "items \(once.items.map(\.id)) → \(twice.items.map(\.id)), cursor \(once.cursor ?? "nil") → \(twice.cursor ?? "nil")"
        }
    }

    func testEachRunWritesExactlyThePagesBeforeItsFault() {
        // Pages before `page` stay committed; at `download`/`write` nothing of the faulted page is
        // written; at `cursor` its items are and its cursor is not.
        checkProperty("pages written up to the fault", generate: Self.generate) { sample in
            var model = RefreshModel(sample.setup)
            return Self.violation(sample) { step in
                let expected = model.apply(step.event)
                if step.after.store != model.store { return "store \(step.after.store), expected \(model.store)" }
                return (step.decision.pagesCommitted, step.decision.commits) == (expected.pagesCommitted, expected.commits)
                    ? nil : "pagesCommitted/commits \(step.decision.pagesCommitted)/\(step.decision.commits)"
            }
        }
    }

    // MARK: Completion and scheduling

    func testOutcomeCompletionAndActionsFollowFromTheFault() {
        // Fault table: error → failed/false, expire → expired/false with cancelJob, crash → crashed/null
        // with no completion; no fault → succeeded/true. A stale temporary file is removed first.
        checkProperty("outcome from the fault", generate: Self.generate) { sample in
            var model = RefreshModel(sample.setup)
            return Self.violation(sample) { step in
                let expected = model.apply(step.event)
                let decided = (step.decision.outcome, step.decision.taskCompleted, step.decision.actions)
                return decided == (expected.outcome, expected.taskCompleted, expected.actions)
                    ? nil : "decided \(decided), expected \((expected.outcome, expected.taskCompleted, expected.actions))"
            }
        }
    }

    func testACrashWhileStagingLeavesOneTemporaryFileAndNothingElseDoes() {
        // "a crash at stage write leaves one (tempFilesLeft: 1)"; error and expire remove it.
        checkProperty("temporary files", generate: Self.generate) { sample in
            Self.violation(sample) { step in
                let crashedStaging = step.event.fault.map { $0.kind == .crash && $0.stage == .write } ?? false
                return step.decision.tempFilesLeft == (crashedStaging ? 1 : 0) ? nil : "tempFilesLeft \(step.decision.tempFilesLeft)"
            }
        }
    }

    func testNextRequestFollowsTheIntervalOrTheBackoff() {
        // Scheduling: success → at + interval; failed/expired → at + min(base·2^(n−1), max) with n the
        // failures in a row (a crash neither counts nor resets); crash → nothing submitted.
        checkProperty("next earliest begin", generate: Self.generate) { sample in
            var model = RefreshModel(sample.setup)
            return Self.violation(sample) { step in
                let expected = model.apply(step.event)
                return step.decision.nextEarliestBeginAt == expected.nextEarliestBeginAt
                    ? nil : "\(String(describing: step.decision.nextEarliestBeginAt)), expected \(String(describing: expected.nextEarliestBeginAt))"
            }
        }
    }

    func testOnlyARunBeforeThePendingTimeIsFlaggedEarly() {
        // `ranBeforeEarliestBegin` when `at` is earlier than the pending earliest begin time; equal is on time.
        checkProperty("ranBeforeEarliestBegin", generate: Self.generate) { sample in
            Self.violation(sample) { step in
                let early = step.decision.diagnostics.contains {
                    if case .ranBeforeEarliestBegin = $0 { return true } else { return false }
                }
                let expected = step.before.earliestBeginAt.map { step.event.at < $0 } ?? false
                return early == expected ? nil : "flagged \(early) with pending \(String(describing: step.before.earliestBeginAt))"
            }
        }
    }
}

private struct RefreshSetup {
    var state: RefreshState<Int>
    var schedule: RefreshSchedule
    /// A run without a fault, for the property that repeats one.
    var successfulRun: RefreshRun<Int>
}

/// The job as refresh.md words it, written out plainly to compare the machine with.
private struct RefreshModel {
    struct Expected {
        var outcome: RefreshOutcome
        var taskCompleted: Bool?
        var actions: [RefreshAction] = []
        var pagesCommitted = 0
        var commits = 0
        var nextEarliestBeginAt: Double?
    }

    var store: RefreshStore<Int>
    let schedule: RefreshSchedule
    var failuresInARow: Int
    var staleTemporaryFiles: Int

    init(_ setup: RefreshSetup) {
        store = setup.state.store
        schedule = setup.schedule
        failuresInARow = setup.state.consecutiveFailures
        staleTemporaryFiles = setup.state.staleTempFiles
    }

    mutating func apply(_ run: RefreshRun<Int>) -> Expected {
        var expected = Expected(outcome: .succeeded, taskCompleted: true)
        if staleTemporaryFiles > 0 { expected.actions.append(.removeStaleTemp) }
        staleTemporaryFiles = 0
        if run.pages.isEmpty {
            store.lastSuccessAt = run.at
            expected.commits = 1
        }
        for (index, page) in run.pages.enumerated() {
            if let fault = run.fault, fault.page == index {
                if fault.stage == .cursor {
                    for item in page.items { store.upsert(item) }
                    expected.commits += 1
                }
                if fault.kind == .crash, fault.stage == .write { staleTemporaryFiles = 1 }
                break
            }
            for item in page.items { store.upsert(item) }
            expected.commits += 1
            if let cursor = page.nextCursor { store.cursor = cursor }
            expected.pagesCommitted += 1
            if index == run.pages.count - 1 { store.lastSuccessAt = run.at }
        }
        switch run.fault?.kind {
        case nil:
            expected.actions.append(.completeSuccess)
            failuresInARow = 0
            expected.nextEarliestBeginAt = run.at + schedule.intervalSeconds
        case .crash?:
            expected.outcome = .crashed
            expected.taskCompleted = nil
        case let kind?:
            expected.outcome = kind == .expire ? .expired : .failed
            expected.taskCompleted = false
            if kind == .expire { expected.actions.append(.cancelJob) }
            expected.actions.append(.completeFailure)
            failuresInARow += 1
            let backoff = min(schedule.backoffBaseSeconds * pow(2, Double(failuresInARow - 1)), schedule.backoffMaxSeconds)
            expected.nextEarliestBeginAt = run.at + backoff
        }
        return expected
    }
}
