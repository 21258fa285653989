/// `haptics/1`, part 1: the pattern the app's `confirmationEvents()` must build —
/// one transient haptic at time 0 with the contract's intensity and sharpness.
public enum HapticParameterID: String, CaseIterable, Sendable {
    case hapticIntensity, hapticSharpness

    /// `CHHapticEvent.ParameterID`'s raw value, which a test may export instead of
    /// the Swift case name.
    public var coreHapticsRawValue: String {
        switch self {
        case .hapticIntensity: "HapticIntensity"
        case .hapticSharpness: "HapticSharpness"
        }
    }

    /// The parameter a Swift case name or a CoreHaptics raw value spells.
    public init?(name: String) {
        guard let parameter = Self.allCases.first(where: { $0.rawValue == name || $0.coreHapticsRawValue == name }) else {
            return nil
        }
        self = parameter
    }

    // By case, not by spelling: a String-backed enum's default hash hashes its raw
    // value, and a pattern event's parameters are keyed by this on every request.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .hapticIntensity: hasher.combine(0 as UInt8)
        case .hapticSharpness: hasher.combine(1 as UInt8)
        }
    }
}

/// One value for each parameter, by name or by `HapticParameterID`: the contract's
/// expected values (`HapticParameters`), what an event gave (`HapticEventParameters`),
/// or the request values behind them. Kept inline: every request's pattern event
/// builds one, and a dictionary cost an allocation and a hash per parameter.
public struct HapticParameterValues<Element> {
    public var hapticIntensity: Element
    public var hapticSharpness: Element

    public init(hapticIntensity: Element, hapticSharpness: Element) {
        self.hapticIntensity = hapticIntensity
        self.hapticSharpness = hapticSharpness
    }

    public subscript(_ parameter: HapticParameterID) -> Element {
        get {
            switch parameter {
            case .hapticIntensity: hapticIntensity
            case .hapticSharpness: hapticSharpness
            }
        }
        set {
            switch parameter {
            case .hapticIntensity: hapticIntensity = newValue
            case .hapticSharpness: hapticSharpness = newValue
            }
        }
    }
}

extension HapticParameterValues: Equatable where Element: Equatable {}
extension HapticParameterValues: Sendable where Element: Sendable {}

extension HapticParameterValues {
    /// Neither parameter given.
    public init<Wrapped>() where Element == Wrapped? {
        self.init(hapticIntensity: nil, hapticSharpness: nil)
    }
}

/// Intensity and sharpness: the contract's expected values.
public typealias HapticParameters = HapticParameterValues<Double>

extension HapticParameterValues where Element == Double {
    public static var canonical: Self { HapticParameters(hapticIntensity: 0.65, hapticSharpness: 0.35) }
}

/// The parameters an event gave, each `nil` when absent; written like a dictionary
/// (`[.hapticIntensity: 0.65]`).
public typealias HapticEventParameters = HapticParameterValues<Double?>

extension HapticParameterValues: ExpressibleByDictionaryLiteral where Element == Double? {
    public init(dictionaryLiteral elements: (HapticParameterID, Double)...) {
        // Not `self.init()`: with no arguments that names this initializer again.
        self.init(hapticIntensity: nil, hapticSharpness: nil)
        for (parameter, value) in elements { self[parameter] = value }
    }
}

/// One event of a pattern as the app built it. A `nil` event type or time, or a
/// parameter absent from `parameters`, is missing or not of its type (a
/// non-string event type, a non-numeric time or value): either way the contract
/// cannot read it, which is a violation.
public struct HapticPatternEvent: Equatable, Sendable {
    public var eventType: String?
    public var relativeTime: Double?
    public var parameters: HapticEventParameters

    public init(eventType: String?, relativeTime: Double?, parameters: HapticEventParameters) {
        self.eventType = eventType
        self.relativeTime = relativeTime
        self.parameters = parameters
    }
}

/// The rules of the pattern contract, in the order violations are listed.
public enum HapticPatternRule: String, CaseIterable, Sendable {
    /// The pattern has exactly one event.
    case count
    /// Each event is a transient haptic.
    case eventType
    /// Each event starts at 0.
    case relativeTime
    /// Intensity and sharpness are within [0, 1].
    case parameterRange
    /// Intensity and sharpness are present and within the tolerance of the contract's values.
    case parameterValue
}

/// A broken rule, with where in the pattern: the event's position and, for the
/// parameter rules, which parameter.
public enum HapticPatternViolation: Equatable, Sendable {
    case count
    case eventType(event: Int)
    case relativeTime(event: Int)
    case parameterRange(event: Int, parameter: HapticParameterID)
    case parameterValue(event: Int, parameter: HapticParameterID)

    public var rule: HapticPatternRule {
        switch self {
        case .count: .count
        case .eventType: .eventType
        case .relativeTime: .relativeTime
        case .parameterRange: .parameterRange
        case .parameterValue: .parameterValue
        }
    }
}

/// The confirmation pattern contract: the canonical pattern, with intensity and
/// sharpness a team may have tuned on a device.
public struct HapticPatternContract: Equatable, Sendable {
    public static let eventCount = 1
    public static let eventType = "hapticTransient"
    /// The spellings of a transient event: the Swift case name and
    /// `CHHapticEvent.EventType.hapticTransient.rawValue`.
    public static let transientSpellings: [String] = [eventType, "HapticTransient"]
    public static let relativeTime = 0.0
    public static let parameterRange: ClosedRange<Double> = 0...1
    /// A value passes when |value − expected| ≤ 0.001, with room for the value's
    /// decimal-to-binary rounding (0.651 − 0.65 is slightly over 0.001 in doubles).
    public static let tolerance = 0.001 + 1e-9

    /// What `confirmationEvents()` must return, whatever the tuned values: the
    /// answer always shows this one.
    public static let canonicalPattern = [
        HapticPatternEvent(eventType: eventType, relativeTime: relativeTime,
                           parameters: [.hapticIntensity: HapticParameters.canonical.hapticIntensity,
                                        .hapticSharpness: HapticParameters.canonical.hapticSharpness]),
    ]

    public var expected: HapticParameters

    public init(expected: HapticParameters = .canonical) {
        self.expected = expected
    }

    /// Every rule on every event: `count` first, then event by event in rule order,
    /// intensity before sharpness. A value outside [0, 1] breaks both
    /// `parameterRange` and `parameterValue`.
    public func violations(of pattern: [HapticPatternEvent]) -> [HapticPatternViolation] {
        var violations: [HapticPatternViolation] = []
        if pattern.count != Self.eventCount { violations.append(.count) }
        for (index, event) in pattern.enumerated() {
            if !Self.transientSpellings.contains(where: { $0 == event.eventType }) {
                violations.append(.eventType(event: index))
            }
            if event.relativeTime != Self.relativeTime {
                violations.append(.relativeTime(event: index))
            }
            for parameter in HapticParameterID.allCases {
                if let value = event.parameters[parameter], !Self.parameterRange.contains(value) {
                    violations.append(.parameterRange(event: index, parameter: parameter))
                }
            }
            for parameter in HapticParameterID.allCases where !accepts(event.parameters[parameter], for: parameter) {
                violations.append(.parameterValue(event: index, parameter: parameter))
            }
        }
        return violations
    }

    /// Whether `value` is present and within the tolerance of the expected one.
    public func accepts(_ value: Double?, for parameter: HapticParameterID) -> Bool {
        guard let value else { return false }
        return (value - expected[parameter]).magnitude <= Self.tolerance
    }
}
