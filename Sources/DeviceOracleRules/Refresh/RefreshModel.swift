/// `refresh/1`'s job as a state model. The store itself is unbounded, so the node
/// is what one run leaves the next (refresh.md, part 2): a temporary file from a
/// crash while staging, which the next run removes first; or a page whose items
/// were written without its cursor (a fault at stage `cursor`), which the next run
/// fetches again — the repeated run the upsert makes harmless. The event classes
/// are every fault kind × stage × first, middle or last page of a three-page run,
/// a run without a fault, and an empty run. Covering every transition therefore
/// covers every fault case after a clean run, after a stale temporary file and
/// after a page to repeat.
///
/// The walk runs the real machine against a server whose page `k` holds one item,
/// `item-(k mod 8)` at revision `k`, with `nextCursor` `c(k+1)`: a run fetches from
/// the page after the last committed cursor, so a page to repeat really is fetched
/// again, and the store stays at eight items however long the walk. Each run
/// starts at the earliest begin time the previous one asked for (after a crash,
/// the interval later). How many failures precede a run changes only its backoff,
/// not its decision, so it is no part of the node.
public struct RefreshModel: StateModel {
    public struct Node: Hashable, Sendable {
        /// A crash while staging left a temporary file.
        public var staleTempFile: Bool
        /// The last run wrote a page's items but not its cursor.
        public var pageToRepeat: Bool

        public init(staleTempFile: Bool, pageToRepeat: Bool) {
            self.staleTempFile = staleTempFile
            self.pageToRepeat = pageToRepeat
        }
    }

    /// The job and the server it syncs from.
    public struct Job: Sendable {
        public internal(set) var machine = RefreshMachine<Int>()
        /// The server's page at the store's cursor: where the next run starts.
        var nextPage = 0
        /// When the next run starts, in seconds.
        var nextRunAt = 0.0
        var pageToRepeat = false
    }

    /// Where in its run a fault strikes.
    enum PagePosition: String, CaseIterable {
        case first, middle, last
    }

    /// A run the model can deliver: how many pages, and the fault.
    private struct RunClass {
        let name: String
        let pageCount: Int
        let fault: (kind: RefreshFaultKind, stage: RefreshStage, position: PagePosition)?
    }

    static let faultedRunPages = 3
    /// Distinct item ids on the model's server: the store never holds more.
    static let distinctItems = 8

    private static let classes: [RunClass] = [
        RunClass(name: "run(noFault)", pageCount: faultedRunPages, fault: nil),
        RunClass(name: "run(noPages)", pageCount: 0, fault: nil),
    ] + RefreshFaultKind.allCases.flatMap { kind in
        RefreshStage.allCases.flatMap { stage in
            PagePosition.allCases.map { position in
                RunClass(name: "\(kind.rawValue)(stage=\(stage.rawValue),page=\(position.rawValue))",
                         pageCount: faultedRunPages, fault: (kind, stage, position))
            }
        }
    }

    public init() {}

    public var starts: [Job] { [Job()] }

    public var eventClasses: [String] { Self.classes.map(\.name) }

    public func node(of job: Job) -> Node {
        Node(staleTempFile: job.machine.state.staleTempFiles > 0, pageToRepeat: job.pageToRepeat)
    }

    public func apply(eventClass: Int, to job: inout Job) -> (event: RefreshRun<Int>, decision: RefreshDecision) {
        let runClass = Self.classes[eventClass]
        let pages = (0..<runClass.pageCount).map { offset in
            let page = job.nextPage + offset
            return RefreshPage(items: [RefreshItem(id: "item-\(page % Self.distinctItems)", content: page)],
                               nextCursor: "c\(page + 1)")
        }
        let fault = runClass.fault.map { fault in
            RefreshFault(kind: fault.kind, stage: fault.stage,
                         page: PagePosition.allCases.firstIndex(of: fault.position)!)
        }
        // A class's fault names one of its own pages (first, middle or last of three).
        let run = try! RefreshRun(at: job.nextRunAt, pages: pages, fault: fault)
        let decision = job.machine.apply(run)
        job.nextPage += decision.pagesCommitted
        // A fault at stage `cursor` wrote the page's items but not its cursor.
        job.pageToRepeat = fault?.stage == .cursor
        job.nextRunAt = decision.nextEarliestBeginAt ?? run.at + job.machine.schedule.intervalSeconds
        return (run, decision)
    }

    public func label(of decision: RefreshDecision) -> String {
        // No colon: Mermaid, one of the diagram formats, ends a label at one.
        decision.actions.isEmpty ? decision.outcome.rawValue
            : "\(decision.outcome.rawValue) (\(actionsLabel(decision.actions)))"
    }

    /// A run with a fault by its kind, stage and the page's place in the run (a
    /// fault on page 0 is on the first page even when it is also the last); a run
    /// without one by whether it has pages.
    public func eventClass(of run: RefreshRun<Int>) -> Int {
        guard let fault = run.fault else { return run.pages.isEmpty ? 1 : 0 }
        let position: PagePosition = fault.page == 0 ? .first : fault.page == run.pages.count - 1 ? .last : .middle
        let kind = RefreshFaultKind.allCases.firstIndex(of: fault.kind)!
        let stage = RefreshStage.allCases.firstIndex(of: fault.stage)!
        let place = PagePosition.allCases.firstIndex(of: position)!
        return 2 + (kind * RefreshStage.allCases.count + stage) * PagePosition.allCases.count + place
    }

    public func fields(of node: Node) -> [ModelField] {
        [ModelField("staleTempFile", .bool(node.staleTempFile)), ModelField("pageToRepeat", .bool(node.pageToRepeat))]
    }
}
