/// One field of a ruleset's state: its name as requests and answers spell it, every
/// value it takes, and where it lives in the state (a key path). Declared once, in
/// the ruleset's `StateFieldTable`.
public struct StateField<State>: Sendable {
    public let name: String
    /// Every value the field takes, in order: `false, true` for a flag, `allCases` for a name.
    public let values: [ModelField.Value]
    /// Where the field lives: its identity (`StateFieldTable.position(of:)`).
    public let keyPath: PartialKeyPath<State> & Sendable
    private let read: @Sendable (State) -> ModelField.Value
    private let write: @Sendable (inout State, ModelField.Value) -> Void

    /// A flag (`isPlaying`).
    public static func flag(_ name: String, _ keyPath: WritableKeyPath<State, Bool> & Sendable) -> Self {
        Self(name: name, values: [.bool(false), .bool(true)], keyPath: keyPath,
             read: { .bool($0[keyPath: keyPath]) },
             write: { state, value in if case .bool(let flag) = value { state[keyPath: keyPath] = flag } })
    }

    /// A name from a closed set, spelled as its raw value (`phase`: `idle`, `saving`, …).
    public static func name<Value>(_ name: String, _ keyPath: WritableKeyPath<State, Value> & Sendable) -> Self
        where Value: CaseIterable & RawRepresentable<String> & Sendable {
        Self(name: name, values: Value.allCases.map { .name($0.rawValue) }, keyPath: keyPath,
             read: { .name($0[keyPath: keyPath].rawValue) },
             write: { state, value in
                 guard case .name(let spelling) = value, let named = Value(rawValue: spelling) else { return }
                 state[keyPath: keyPath] = named
             })
    }

    /// The field's value in `state`.
    public func value(of state: State) -> ModelField.Value { read(state) }

    /// Sets the field in `state` to `value`, one of `values`.
    public func set(_ value: ModelField.Value, in state: inout State) { write(&state, value) }

    /// The spellings of a named field's values; `nil` for a flag.
    public var names: [String]? {
        let names = values.compactMap { value in if case .name(let name) = value { name } else { nil } }
        return names.isEmpty ? nil : names
    }
}

/// A ruleset's state declared field by field, once: what a request's `initial`,
/// `observed` and `observedFinal` may name, what an answer's `before`, `after` and
/// `final` show, every state the tables are computed for, and the state model's
/// nodes all come from here.
public struct StateFieldTable<State: Sendable>: Sendable {
    /// How `allStates` numbers the states. Which of two equally short routes through
    /// the graph of every state a repro takes depends on it, so it is declared.
    public enum Numbering: Sendable {
        /// As nested loops over the fields in order: the last field varies fastest.
        case lastFieldFastest
        /// As the bits of a number, the first field the lowest: it varies fastest.
        case firstFieldFastest
    }

    /// The fields, in the order answers write them.
    public let fields: [StateField<State>]
    /// The state a request starts in when its `initial` names no field.
    public let initial: State
    public let numbering: Numbering

    public init(initial: State, numbering: Numbering = .lastFieldFastest, _ fields: StateField<State>...) {
        self.initial = initial
        self.numbering = numbering
        self.fields = fields
    }

    /// Every state, numbered as `numbering` says: `initial` with each field set to
    /// each of its values.
    public var allStates: [State] {
        let slowestFirst = numbering == .lastFieldFastest ? fields : fields.reversed()
        return slowestFirst.reduce([initial]) { states, field in
            states.flatMap { state in
                field.values.map { value in
                    var state = state
                    field.set(value, in: &state)
                    return state
                }
            }
        }
    }

    /// The fields of `state`, in order: a node of the state model.
    public func modelFields(of state: State) -> [ModelField] {
        fields.map { ModelField($0.name, $0.value(of: state)) }
    }

    /// The position of the field that lives at `keyPath`.
    public func position(of keyPath: PartialKeyPath<State>) -> Int? {
        fields.firstIndex { $0.keyPath == keyPath }
    }
}
