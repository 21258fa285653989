import DeviceOracleRules
import Foundation
import XCTest

// Seeded property checking, shared by the rules' and the wire's property tests:
// many random event sequences per rule, reproducible from a printed seed. The
// generator is the rules' own SplitMix64, so a seed replays on every platform.

extension SplitMix64 {
    public mutating func chance(_ percent: Int) -> Bool {
        next(below: 100) < percent
    }

    public mutating func pick<T>(_ choices: [T]) -> T {
        choices[next(below: choices.count)]
    }
}

/// How many cases each property tries, and from which seed. `PROPERTY_RUNS=100000`
/// searches longer; `PROPERTY_SEED=<printed seed> PROPERTY_RUNS=1` replays a failure.
public enum PropertyRuns {
    public static let count = environment("PROPERTY_RUNS") ?? 1_000
    public static let replayedSeed = ProcessInfo.processInfo.environment["PROPERTY_SEED"].flatMap { UInt64($0) }

    /// Each property starts from its own seed, so the properties of a ruleset try
    /// different sequences; FNV-1a of the name, because `hashValue` changes per process.
    public static func firstSeed(_ property: String) -> UInt64 {
        if let replayedSeed { return replayedSeed }
        return property.utf8.reduce(0xCBF2_9CE4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01B3 }
    }

    private static func environment(_ name: String) -> Int? {
        ProcessInfo.processInfo.environment[name].flatMap { Int($0) }
    }
}

/// A generated case: a setup (initial state, configuration) and the events.
public struct Sample<Setup, Event> {
    public var setup: Setup
    public var events: [Event]

    public init(setup: Setup, events: [Event]) {
        self.setup = setup
        self.events = events
    }
}

/// Checks `property` on `runs` generated samples; it returns `nil` when it holds,
/// or what went wrong. The first failing sample is shrunk — events dropped one at
/// a time while it still fails — and reported with the seed that replays it.
public func checkProperty<Setup, Event>(
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

/// One event applied to a machine: the state before and after, and the decision.
public struct AppliedStep<Machine: StateMachine> {
    public let before: Machine.State
    public let event: Machine.Event
    public let decision: Machine.Decision
    public let after: Machine.State
}

extension StateMachine {
    /// Applies `events` in order, recording each step.
    public mutating func steps(_ events: [Event]) -> [AppliedStep<Self>] {
        events.map { event in
            let before = state
            let decision = apply(event)
            return AppliedStep(before: before, event: event, decision: decision, after: state)
        }
    }
}

/// The first step that breaks `rule` (which says what is wrong, or nil), described.
public func firstViolation<Machine>(_ steps: [AppliedStep<Machine>], _ rule: (AppliedStep<Machine>) -> String?) -> String? {
    for (index, step) in steps.enumerated() {
        if let broken = rule(step) { return "step \(index) (\(step.event)) from \(step.before): \(broken)" }
    }
    return nil
}
