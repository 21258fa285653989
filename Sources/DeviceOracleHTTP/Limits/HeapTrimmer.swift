import CSyscalls
import Dispatch

/// Gives the heap's free memory back to the system once large work has stopped.
///
/// The server keeps what it frees (`csyscalls_keep_freed_memory`), so a large request's
/// body, parse and answer buffers are reused by the next one instead of being mapped,
/// page-faulted in and unmapped every time: that was a quarter of the time of the
/// 100k-event log. Kept for good, they would leave an idle sidecar tens of MiB larger,
/// so a quiet period after the last large piece of work gives them back.
final class HeapTrimmer: @unchecked Sendable {
    // @unchecked: a Dispatch timer source may be rescheduled from any thread.

    /// Blocks up to this size come from the heap and are kept; larger ones are still
    /// mapped on their own (glibc's ceiling for its threshold on 64-bit).
    static let largestKeptBlock: Int32 = 32 * 1024 * 1024

    private let timer: DispatchSourceTimer
    private let quietPeriod: DispatchTimeInterval

    init(quietPeriod: DispatchTimeInterval = .seconds(1),
         trim: @escaping @Sendable () -> Void = { _ = csyscalls_trim_heap() }) {
        self.quietPeriod = quietPeriod
        timer = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
        timer.setEventHandler(handler: trim)
        // Once at start too: what setting up left free goes back, and the timer's kernel
        // resources (a timerfd) exist from the start, not from the first large request.
        timer.schedule(deadline: .now() + quietPeriod)
        timer.activate()
    }

    deinit {
        timer.cancel()
    }

    /// Work that used large blocks has ended: trim once `quietPeriod` passes without more.
    func largeWorkEnded() {
        timer.schedule(deadline: .now() + quietPeriod)
    }
}
