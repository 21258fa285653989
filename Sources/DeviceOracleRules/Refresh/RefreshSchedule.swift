/// When the app asks to run next (`BGTaskRequest.earliestBeginDate`), in seconds.
public struct RefreshSchedule: Equatable, Sendable {
    /// After a success.
    public var intervalSeconds: Double
    /// After the first failure in a row; doubled for each further one.
    public var backoffBaseSeconds: Double
    /// The longest backoff.
    public var backoffMaxSeconds: Double

    public init(intervalSeconds: Double = 900, backoffBaseSeconds: Double = 60, backoffMaxSeconds: Double = 3600) {
        self.intervalSeconds = intervalSeconds
        self.backoffBaseSeconds = backoffBaseSeconds
        self.backoffMaxSeconds = backoffMaxSeconds
    }

    /// `min(backoffBaseSeconds · 2^(n−1), backoffMaxSeconds)` for the n-th failed
    /// or expired run in a row; 0 before any failure (n < 1).
    public func backoffSeconds(consecutiveFailures n: Int) -> Double {
        guard n >= 1 else { return 0 }
        // Scaling by a power of two through the exponent is exact and needs no
        // libm `pow`; a huge n gives infinity, which the cap turns back into a time.
        return min(Double(sign: .plus, exponent: n - 1, significand: backoffBaseSeconds), backoffMaxSeconds)
    }

    /// `at` plus a delay, kept finite: a time past the largest double is the
    /// largest double (JSON has no infinity).
    @usableFromInline
    static func time(_ at: Double, after delay: Double) -> Double {
        let time = at + delay
        return time.isFinite ? time : .greatestFiniteMagnitude
    }
}
