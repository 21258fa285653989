/// Every step repeats the store twice (`before`, `after`), so a small request can
/// ask for an answer thousands of times its size: 100 000 empty runs over a store
/// of 100 000 items. The budget turns that into a `422` before memory runs out.
struct AnswerBudget {
    static let refreshBytes = 64 << 20

    let limit: Int
    private(set) var spent = 0

    /// Whether the answer still fits after `bytes` more.
    mutating func spend(_ bytes: Int) -> Bool {
        spent += bytes
        return spent <= limit
    }

    var limitDescription: String { "\(limit >> 20) MiB" }
}
