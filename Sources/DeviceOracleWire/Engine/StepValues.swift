import DeviceOracleRules

/// One step of an evaluation as values: what coverage, a repro and generated tests
/// read of it. The answer's JSON step is another rendering of the same values, so
/// nothing reads a step back from text the program wrote.
struct StepValues: Sendable {
    /// The state the step started from, as its `before` shows it.
    var before: ShownState
    /// The canonical event that reached a machine (the ruleset's `Event`); `nil` when
    /// none did (an unknown notification).
    var event: (any Sendable)?
    /// Every field a step's `observed` may name that the step shows as a plain value
    /// (no object, no array of containers), with the canonical value, in the order the
    /// ruleset lists them: what a generated test observes.
    var canonicalObserved: [(name: String, value: FieldValue)]
    /// Refresh's run: what its repro rebuilds of the runs before.
    var run: RunValues?
}

/// A state as an answer shows it (`before`, `final`): its fields for a ruleset whose
/// state is finite; for refresh, the store (its text, as the answer writes it) and
/// its last success.
struct ShownState: Sendable {
    var fields: [ModelField] = []
    var store: [UInt8]?
    var lastSuccessAt: Double?
}

/// What refresh's repro reads of the run it reproduces.
struct RunValues: Sendable {
    /// The run began by removing a stale temporary file (its first action).
    var removesStaleTemp: Bool
    /// Its transactions.
    var commits: Int
}

extension FieldValue {
    /// Compared as it is by a generated test: not an object, and no array of containers.
    var isPlain: Bool {
        switch self {
        case .null, .bool, .number, .string: true
        case .array(let values): values.allSatisfy { if case .array = $0 { false } else { $0.isPlain } }
        case .requestValue, .value: false
        }
    }

    /// A state field's value: a flag, or a name as a string.
    init(_ value: ModelField.Value) {
        switch value {
        case .bool(let flag): self = .bool(flag)
        case .name(let name): self = .string(name)
        }
    }
}
