/// How a run ended.
public enum RefreshOutcome: String, CaseIterable, Sendable {
    case succeeded, failed, expired, crashed
}

/// The app's calls, in the order it makes them.
public enum RefreshAction: String, CaseIterable, Sendable {
    /// A crash left a temporary file; the next run removes it first.
    case removeStaleTemp
    /// The expiration handler cancelled the job.
    case cancelJob
    /// `setTaskCompleted(success: true)`.
    case completeSuccess
    /// `setTaskCompleted(success: false)`.
    case completeFailure
}

/// Things a person should look at that do not change the decision (warnings).
public enum RefreshDiagnostic: Equatable, Sendable {
    /// The run started before the earliest begin time the app had requested.
    case ranBeforeEarliestBegin(earliestBeginAt: Double)
    /// A page holds these ids more than once (in order of first repetition); the
    /// later item replaced the earlier at the earlier one's position.
    case duplicateIdInPage(page: Int, ids: [String])
}

public struct RefreshDecision: Equatable, Sendable {
    public var outcome: RefreshOutcome
    /// The `success` of `setTaskCompleted(success:)`; `nil` after a crash, when
    /// nobody completes the task.
    public var taskCompleted: Bool?
    /// Pages whose items and cursor were both written.
    public var pagesCommitted: Int
    /// Transactions in this run: one per page whose items were written, or one
    /// for an empty successful run.
    public var commits: Int
    /// Temporary files the run left behind (a crash while staging leaves one).
    public var tempFilesLeft: Int
    public var actions: [RefreshAction]
    /// When the submitted request may begin; `nil` after a crash (none submitted).
    public var nextEarliestBeginAt: Double?
    public var diagnostics: [RefreshDiagnostic]

    @inlinable
    public init(outcome: RefreshOutcome, taskCompleted: Bool?, pagesCommitted: Int, commits: Int, tempFilesLeft: Int,
                actions: [RefreshAction], nextEarliestBeginAt: Double?, diagnostics: [RefreshDiagnostic] = []) {
        self.outcome = outcome
        self.taskCompleted = taskCompleted
        self.pagesCommitted = pagesCommitted
        self.commits = commits
        self.tempFilesLeft = tempFilesLeft
        self.actions = actions
        self.nextEarliestBeginAt = nextEarliestBeginAt
        self.diagnostics = diagnostics
    }
}

/// A `RefreshDecision` whose actions (at most three) are held inline: a long log
/// keeps a step per run, and an array each was an allocation per run.
@_spi(Engine) public struct RefreshStep: Equatable, Sendable {
    /// Everything but the actions, which it lists as none.
    public var decision: RefreshDecision
    public var actions: ShortList<RefreshAction>

    @inlinable
    public init(decision: RefreshDecision, actions: ShortList<RefreshAction>) {
        self.decision = decision
        self.actions = actions
    }
}

/// Everything the job carries from one run to the next.
public struct RefreshState<Content> {
    public var store: RefreshStore<Content>
    /// The earliest begin time of the pending request; `nil` when none is pending.
    public var earliestBeginAt: Double?
    /// Failed or expired runs since the last success; a crash neither counts nor resets.
    public var consecutiveFailures: Int
    /// Temporary files a crash left behind.
    public var staleTempFiles: Int

    public init(store: RefreshStore<Content> = RefreshStore(), earliestBeginAt: Double? = nil,
                consecutiveFailures: Int = 0, staleTempFiles: Int = 0) {
        self.store = store
        self.earliestBeginAt = earliestBeginAt
        self.consecutiveFailures = consecutiveFailures
        self.staleTempFiles = staleTempFiles
    }
}

extension RefreshState: Equatable where Content: Equatable {}
extension RefreshState: Sendable where Content: Sendable {}

/// `refresh/1`: the canonical background refresh job. For each page in order it
/// downloads, stages the items in a temporary file, and commits one short
/// transaction (upsert by id, then the cursor, then the temporary file is
/// removed), so an expiry never leaves a long transaction open and a repeated page
/// is harmless. Afterwards the app submits its next request, backing off after
/// failures. Feed it the runs in the order the system delivered them; it returns
/// what the job did and what the app must call.
public struct RefreshMachine<Content> {
    // Inlinable, so a caller in another module (the wire's `StoredItem` store)
    // gets a copy specialized for its content instead of generic code that asks
    // the runtime for metadata at every item.
    @usableFromInline var current: RefreshState<Content>
    public let schedule: RefreshSchedule

    public var state: RefreshState<Content> { current }

    public init(state: RefreshState<Content> = RefreshState(), schedule: RefreshSchedule = RefreshSchedule()) {
        current = state
        self.schedule = schedule
    }

    // Not inlinable, unlike `decide`: it reads the engine's SPI. The wire module runs
    // `decide`, specialized for its items; an app's test gets this generic copy.
    public mutating func apply(_ run: RefreshRun<Content>) -> RefreshDecision {
        let step = decide(run)
        var decision = step.decision
        decision.actions = step.actions.array
        return decision
    }

    /// `apply` with the actions in a `ShortList` (`RefreshStep`): what the oracle's
    /// engine runs, keeping every run's step with no array of its own.
    @inlinable
    @_spi(Engine) public mutating func decide(_ run: RefreshRun<Content>) -> RefreshStep {
        var diagnostics: [RefreshDiagnostic] = []
        // At the pending time exactly is on time; with nothing pending (the start,
        // or after a crash) no run is early.
        if let pending = current.earliestBeginAt, run.at < pending {
            diagnostics.append(.ranBeforeEarliestBegin(earliestBeginAt: pending))
        }
        for (index, page) in run.pages.enumerated() {
            let repeated = Self.repeatedIDs(in: page)
            if !repeated.isEmpty { diagnostics.append(.duplicateIdInPage(page: index, ids: repeated)) }
        }

        var actions = ShortList<RefreshAction>()
        if current.staleTempFiles > 0 {
            actions.append(.removeStaleTemp)
            current.staleTempFiles = 0
        }
        let written = writePages(of: run)

        let outcome: RefreshOutcome, taskCompleted: Bool?, nextEarliestBeginAt: Double?
        switch written.stoppedBy?.kind {
        case nil:
            outcome = .succeeded
            taskCompleted = true
            actions.append(.completeSuccess)
            current.consecutiveFailures = 0
            nextEarliestBeginAt = RefreshSchedule.time(run.at, after: schedule.intervalSeconds)
        case .error?, .expire?:
            let expired = written.stoppedBy?.kind == .expire
            outcome = expired ? .expired : .failed
            taskCompleted = false
            if expired { actions.append(.cancelJob) }
            actions.append(.completeFailure)
            current.consecutiveFailures += 1
            let backoff = schedule.backoffSeconds(consecutiveFailures: current.consecutiveFailures)
            nextEarliestBeginAt = RefreshSchedule.time(run.at, after: backoff)
        case .crash?:
            outcome = .crashed
            taskCompleted = nil
            nextEarliestBeginAt = nil
        }
        current.staleTempFiles = written.tempFilesLeft
        current.earliestBeginAt = nextEarliestBeginAt
        let decision = RefreshDecision(outcome: outcome, taskCompleted: taskCompleted,
                                       pagesCommitted: written.pagesCommitted, commits: written.commits,
                                       tempFilesLeft: written.tempFilesLeft, actions: [],
                                       nextEarliestBeginAt: nextEarliestBeginAt, diagnostics: diagnostics)
        return RefreshStep(decision: decision, actions: actions)
    }

    @usableFromInline
    struct WrittenPages {
        @usableFromInline var pagesCommitted = 0
        @usableFromInline var commits = 0
        @usableFromInline var tempFilesLeft = 0
        @usableFromInline var stoppedBy: RefreshFault?

        @inlinable init() {}
    }

    /// Downloads, stages and commits each page in order until the fault, if any.
    @inlinable
    mutating func writePages(of run: RefreshRun<Content>) -> WrittenPages {
        var written = WrittenPages()
        guard !run.pages.isEmpty else {
            // An empty successful run still commits its success marker.
            current.store.lastSuccessAt = run.at
            written.commits = 1
            return written
        }
        for (index, page) in run.pages.enumerated() {
            let fault = run.fault.flatMap { $0.page == index ? $0 : nil }
            if let fault, fault.stage != .cursor {
                // Nothing of this page reached the store. error and expire clean up
                // the staged file; a crash while staging leaves it.
                if fault.kind == .crash, fault.stage == .write { written.tempFilesLeft = 1 }
                written.stoppedBy = fault
                return written
            }
            // One transaction: the items, then the cursor; the temporary file is
            // removed with it, so even a crash at `cursor` leaves none.
            for item in page.items { current.store.upsert(item) }
            written.commits += 1
            if let fault {
                // Between the item write and the cursor update: the next run fetches
                // this page again from the old cursor, and the upsert makes that harmless.
                written.stoppedBy = fault
                return written
            }
            if let next = page.nextCursor { current.store.cursor = next }
            written.pagesCommitted += 1
            if index == run.pages.count - 1 { current.store.lastSuccessAt = run.at }
        }
        return written
    }

    /// Ids a page holds more than once, in order of their first repetition.
    @inlinable
    static func repeatedIDs(in page: RefreshPage<Content>) -> [String] {
        let items = page.items
        // A server page is a few dozen items at most: comparing each id with the
        // ones before it costs less than hashing them all (and answers the same).
        if items.count <= LiteralKey.linearSearchLimit {
            var repeated: [String] = []
            for later in items.indices {
                let id = LiteralKey(items[later].id)
                // Reported once, at its first repetition: when exactly one earlier item has it.
                var earlier = 0
                for index in 0..<later where LiteralKey(items[index].id) == id { earlier += 1 }
                if earlier == 1 { repeated.append(items[later].id) }
            }
            return repeated
        }
        return LiteralKeySet.repeats(in: items.lazy.map(\.id))
    }
}

extension RefreshMachine: Equatable where Content: Equatable {}
extension RefreshMachine: Sendable where Content: Sendable {}

/// Counts over all runs, for the answer's `summary`.
public struct RefreshSummary: Equatable, Sendable {
    public var runs = 0
    public var commits = 0
    public var succeeded = 0
    public var failed = 0
    public var expired = 0
    public var crashed = 0

    public init() {}

    public mutating func count(_ decision: RefreshDecision) {
        runs += 1
        commits += decision.commits
        switch decision.outcome {
        case .succeeded: succeeded += 1
        case .failed: failed += 1
        case .expired: expired += 1
        case .crashed: crashed += 1
        }
    }
}
