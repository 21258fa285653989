/// Seeded random walks: each path starts at a start drawn at random and takes
/// `length` event classes drawn at random, all from one `SplitMix64` stream, so
/// a seed gives the same paths on every platform and toolchain.
public enum RandomWalk {
    public static func paths<Model: StateModel>(_ model: Model, count: Int, length: Int, seed: UInt64) -> [ModelPath] {
        var generator = SplitMix64(seed: seed)
        let startCount = model.starts.count, classCount = model.eventClasses.count
        return (0..<count).map { _ in
            let start = generator.next(below: startCount)
            return ModelPath(start: start, eventClasses: (0..<length).map { _ in generator.next(below: classCount) })
        }
    }
}

/// SplitMix64 (Steele, Lea and Flood, 2014): a tiny, fast generator whose output
/// is fixed by its seed. Written out here, with its own bounded draw, because the
/// standard library promises neither its generators nor `random(in:using:)`'s
/// algorithm across releases, and a plan's seed must reproduce its walk.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform integer in `0..<bound`, by Lemire's multiply-and-reject method; 0
    /// for an empty range (`bound` ≤ 0), which has nothing else to draw.
    public mutating func next(below bound: Int) -> Int {
        guard bound > 0 else { return 0 }
        let range = UInt64(bound)
        var product = next().multipliedFullWidth(by: range)
        if product.low < range {
            // Reject the few products that would make small results likelier.
            let threshold = (0 &- range) % range
            while product.low < threshold { product = next().multipliedFullWidth(by: range) }
        }
        return Int(product.high)
    }
}
