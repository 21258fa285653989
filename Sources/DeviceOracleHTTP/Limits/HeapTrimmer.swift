import CSyscalls

/// When to give the heap's free memory back to the system once large work has stopped:
/// one of each loop's timers, on the loop's monotonic clock (`now`), so tests drive it
/// with numbers instead of waiting.
///
/// The server keeps what it frees (`csyscalls_keep_freed_memory`), so a large request's
/// body, parse and answer buffers are reused by the next one instead of being mapped,
/// page-faulted in and unmapped every time: that was a quarter of the time of the
/// 100k-event log. Kept for good, they would leave an idle sidecar tens of MiB larger,
/// so a quiet period after the last large piece of work gives them back.
struct HeapTrimmer {
    /// Blocks up to this size come from the heap and are kept; larger ones are still
    /// mapped on their own (glibc's ceiling for its threshold on 64-bit).
    static let largestKeptBlock: Int32 = 32 * 1024 * 1024

    /// Nanoseconds without large work before a trim.
    let quietPeriod: Int64
    /// When the trim is due; nil when none is.
    private(set) var deadline: Int64?

    /// `trimsAtStart`: once a quiet period after start too, so what setting up left free
    /// goes back (one loop of a server does this, the heap being the process's).
    init(quietPeriod: Int64, now: Int64, trimsAtStart: Bool) {
        self.quietPeriod = quietPeriod
        deadline = trimsAtStart ? now + quietPeriod : nil
    }

    /// Work that used large blocks has ended: trim once `quietPeriod` passes without more.
    mutating func largeWorkEnded(now: Int64) {
        deadline = now + quietPeriod
    }

    /// True once, when the quiet period has passed: the caller trims then.
    mutating func expire(now: Int64) -> Bool {
        guard let deadline, deadline <= now else { return false }
        self.deadline = nil
        return true
    }
}

/// How a server gives memory back: after how long, and with what (tests count instead).
struct HeapTrimming: Sendable {
    var quietPeriod: Int64 = 1_000_000_000
    var trim: @Sendable () -> Void = { _ = csyscalls_trim_heap() }
}
