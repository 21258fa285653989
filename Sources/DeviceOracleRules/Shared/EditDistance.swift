/// Optimal string alignment distance (Damerau–Levenshtein without repeated edits
/// of one substring): insertions, deletions, substitutions and transpositions of
/// neighbours. One implementation for the wire layer's did-you-mean and the
/// refresh rules' near-miss identifiers.
package enum EditDistance {
    /// The distance from `a` to `b`, or `limit + 1` when it is larger than `limit`.
    /// Only the band of cells within `limit` of the diagonal is computed, so a
    /// small limit keeps two long inputs linear instead of quadratic.
    package static func optimalStringAlignment<T: Equatable>(_ a: [T], _ b: [T], limit: Int = .max) -> Int {
        // The distance never exceeds the longer length, so this bound loses nothing.
        let bound = min(max(limit, 0), max(a.count, b.count))
        let beyond = bound + 1
        if abs(a.count - b.count) > bound { return beyond }
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        // Three rolling rows: two back for transpositions. Cells outside the band
        // hold `beyond`, so reading one never lowers a result.
        var previousPrevious = [Int](repeating: beyond, count: b.count + 1)
        var previous = (0...b.count).map { min($0, beyond) }
        var current = [Int](repeating: beyond, count: b.count + 1)
        for i in 1...a.count {
            let first = max(1, i - bound), last = min(b.count, i + bound)
            current[0] = min(i, beyond)
            current[first - 1] = first == 1 ? current[0] : beyond
            var rowMinimum = current[first - 1]
            for j in first...last {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var cell = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    cell = min(cell, previousPrevious[j - 2] + 1)
                }
                current[j] = min(cell, beyond)
                rowMinimum = min(rowMinimum, current[j])
            }
            if last < b.count { current[last + 1] = beyond }
            // Every later cell descends from this row: none can come back under the bound.
            if rowMinimum > bound { return beyond }
            (previousPrevious, previous, current) = (previous, current, previousPrevious)
        }
        return previous[b.count]
    }
}
