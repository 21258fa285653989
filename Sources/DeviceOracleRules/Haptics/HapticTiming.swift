/// How far apart the visible confirmation and its haptic may be on the device
/// clock (haptics.md, Observed): the haptic confirms what the screen shows, so it
/// must land with it.
public struct HapticTiming: Equatable, Sendable {
    public static let defaultToleranceMs = 50.0

    /// The largest accepted |hapticAt − visibleAt|, in milliseconds.
    public var toleranceMs: Double

    public init(toleranceMs: Double = HapticTiming.defaultToleranceMs) {
        self.toleranceMs = toleranceMs
    }

    /// |hapticAt − visibleAt|; infinite when the difference is beyond a double.
    public static func gap(visibleAt: Double, hapticAt: Double) -> Double {
        (hapticAt - visibleAt).magnitude
    }

    public func accepts(visibleAt: Double, hapticAt: Double) -> Bool {
        Self.gap(visibleAt: visibleAt, hapticAt: hapticAt) <= toleranceMs
    }
}
