/// One server answer the job fetched: its items and the cursor for the next request.
public struct RefreshPage<Content> {
    public var items: [RefreshItem<Content>]
    /// `nil` when the server sent none (or `null`): the stored cursor stays.
    public var nextCursor: String?

    @inlinable
    public init(items: [RefreshItem<Content>] = [], nextCursor: String? = nil) {
        self.items = items
        self.nextCursor = nextCursor
    }
}

extension RefreshPage: Equatable where Content: Equatable {}
extension RefreshPage: Sendable where Content: Sendable {}

/// How a run was stopped.
public enum RefreshFaultKind: String, CaseIterable, Sendable {
    /// The download or the write threw.
    case error
    /// The expiration handler ran and cancelled the job.
    case expire
    /// The process died.
    case crash
}

/// Where in a page's processing a fault strikes.
public enum RefreshStage: String, CaseIterable, Sendable {
    /// Fetching the page.
    case download
    /// Staging its items in a temporary file.
    case write
    /// Between the item write and the cursor update of the page's transaction.
    case cursor
}

public struct RefreshFault: Equatable, Sendable {
    public var kind: RefreshFaultKind
    public var stage: RefreshStage
    /// The index of the page in its run.
    public var page: Int

    @inlinable
    public init(kind: RefreshFaultKind, stage: RefreshStage, page: Int) {
        self.kind = kind
        self.stage = stage
        self.page = page
    }
}

/// One run the system delivered: when it started, the pages the server answered
/// with, and the fault that stopped it, if any.
public struct RefreshRun<Content> {
    /// The manual clock in seconds at which the system started the run.
    public let at: Double
    public let pages: [RefreshPage<Content>]
    public let fault: RefreshFault?

    /// A fault names one of the run's pages (the service answers a request whose
    /// fault does not with a `422`).
    @inlinable
    public init(at: Double, pages: [RefreshPage<Content>] = [], fault: RefreshFault? = nil) throws(RefreshFaultOutsideRun) {
        if let fault, !pages.indices.contains(fault.page) {
            throw RefreshFaultOutsideRun(page: fault.page, pageCount: pages.count)
        }
        self.at = at
        self.pages = pages
        self.fault = fault
    }
}

extension RefreshRun: Sendable where Content: Sendable {}

/// A fault naming a page its run does not have.
public struct RefreshFaultOutsideRun: Error, Equatable, Sendable {
    public let page: Int
    public let pageCount: Int

    @inlinable
    public init(page: Int, pageCount: Int) {
        self.page = page
        self.pageCount = pageCount
    }
}
