import Foundation
import XCTest

// Seeded property checking: many random event sequences per rule, reproducible
// from a printed seed. (The wire tests hold a copy of this file: test targets
// share no code, and a shared target is not worth it for these few lines.)

/// SplitMix64 (Steele, Lea and Flood, 2014): a few lines, fast, and the same
/// numbers for a seed on every platform, so a failing seed replays anywhere.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func chance(_ percent: Int) -> Bool {
        Int.random(in: 0..<100, using: &self) < percent
    }

    mutating func pick<T>(_ choices: [T]) -> T {
        choices.randomElement(using: &self)!
    }
}

/// How many cases each property tries, and from which seed. `PROPERTY_RUNS=100000`
/// searches longer; `PROPERTY_SEED=<printed seed> PROPERTY_RUNS=1` replays a failure.
enum PropertyRuns {
    static let count = environment("PROPERTY_RUNS") ?? 1_000
    static let replayedSeed = ProcessInfo.processInfo.environment["PROPERTY_SEED"].flatMap { UInt64($0) }

    /// Each property starts from its own seed, so the properties of a ruleset try
    /// different sequences; FNV-1a of the name, because `hashValue` changes per process.
    static func firstSeed(_ property: String) -> UInt64 {
        if let replayedSeed { return replayedSeed }
        return property.utf8.reduce(0xCBF2_9CE4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01B3 }
    }

    private static func environment(_ name: String) -> Int? {
        ProcessInfo.processInfo.environment[name].flatMap { Int($0) }
    }
}

/// A generated case: a setup (initial state, configuration) and the events.
struct Sample<Setup, Event> {
    var setup: Setup
    var events: [Event]
}

/// Checks `property` on `runs` generated samples; it returns `nil` when it holds,
/// or what went wrong. The first failing sample is shrunk — events dropped one at
/// a time while it still fails — and reported with the seed that replays it.
func checkProperty<Setup, Event>(
    _ name: String, runs: Int = PropertyRuns.count,
    generate: (inout SplitMix64) -> Sample<Setup, Event>,
    file: StaticString = #filePath, line: UInt = #line,
    _ property: (Sample<Setup, Event>) -> String?
) {
    let firstSeed = PropertyRuns.firstSeed(name)
    for run in 0..<UInt64(max(runs, 1)) {
        let seed = firstSeed &+ run
        var generator = SplitMix64(seed: seed)
        var sample = generate(&generator)
        guard var failure = property(sample) else { continue }
        var shrunk = true
        while shrunk {
            shrunk = false
            for index in sample.events.indices.reversed() {
                var smaller = sample
                smaller.events.remove(at: index)
                if let smallerFailure = property(smaller) {
                    (sample, failure, shrunk) = (smaller, smallerFailure, true)
                    break
                }
            }
        }
        let events = sample.events.enumerated().map { "  \($0.offset): \($0.element)" }.joined(separator: "\n")
        XCTFail("""
            \(name) failed: \(failure)
            replay: PROPERTY_SEED=\(seed) PROPERTY_RUNS=1
            setup: \(sample.setup)
            shortest failing sequence (\(sample.events.count) events):
            \(events)
            """, file: file, line: line)
        return
    }
}

/// Random sequences are this long: long enough to reach every state, short
/// enough that thousands run in well under a second.
let sequenceLengths = 0...40
