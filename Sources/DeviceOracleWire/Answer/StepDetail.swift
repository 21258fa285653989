/// Which steps an answer lists (`?steps=`, streaming.md "Detail"). Everything
/// else in the answer is the same whatever it says, and the JSON form keeps
/// `"steps"` even when it lists none, so the answer's shape never changes.
public enum StepDetail: String, CaseIterable, Sendable {
    /// Every step: the answer as it always was.
    case all
    /// Only the steps with a mismatch or a diagnostic, each with its own `index`.
    case failing
    /// No steps.
    case none

    /// The detail a name spells, or a sentence saying which names there are.
    public static func named(_ name: String) -> Result<StepDetail, UnknownName> {
        details.named(name, listing: "values")
    }

    private static let details = ClosedNames<StepDetail>("'steps' value")
}

/// The steps an answer writes, by index, in order.
enum StepListing: Sendable {
    case all
    case only([Int])

    /// The steps `detail` keeps of an answer with these mismatches and diagnostics.
    init(_ detail: StepDetail, mismatches: [Mismatch], diagnostics: [Diagnostic]) {
        switch detail {
        case .all:
            self = .all
        case .none:
            self = .only([])
        case .failing:
            // Each list is in step order on its own; merged, a step may appear in both.
            let indexes = Set(mismatches.lazy.compactMap(\.index)).union(diagnostics.lazy.compactMap(\.index))
            self = .only(indexes.sorted())
        }
    }
}
