import DeviceOracleJSON

/// The body of `POST /rulesets/{name}/plan`. Every member is optional, and an
/// empty body asks for the defaults: the transition-covering plan.
struct PlanRequest: Sendable {
    enum Coverage: String, CaseIterable, Sendable {
        /// Every reachable transition, in as few steps as possible.
        case transitions
        /// Seeded random walks.
        case random
    }

    /// Bounds that keep a plan's answer to a few megabytes: every step of every
    /// sequence carries its request event and its whole canonical step. Each is
    /// a bound of its own (a random plan takes at most 10 × 1000 steps), so the
    /// request schema states them exactly.
    static let maxLengthLimit = 1000
    static let countLimit = 10
    /// The largest integer a JSON number carries exactly.
    static let seedLimit = (1 << 53) - 1
    static let defaultRandomLength = 20

    var coverage = Coverage.transitions
    /// For `transitions` the longest a sequence may be; for `random` each walk's length.
    var maxLength: Int
    var seed: UInt64 = 0
    var count = 1

    init(coverage: Coverage = .transitions, maxLength: Int? = nil, seed: UInt64 = 0, count: Int = 1) {
        self.coverage = coverage
        self.maxLength = maxLength ?? (coverage == .random ? Self.defaultRandomLength : Self.maxLengthLimit)
        self.seed = seed
        self.count = count
    }

    static func decode(_ body: [UInt8]) -> Result<PlanRequest, RequestRejection> {
        guard !body.isEmpty else { return .success(PlanRequest()) }
        return RequestBody.object(body, members: members) { decoder, given in
            let coverage = given[.coverage].flatMap { decoder.name($0, in: coverages) } ?? .transitions
            let maxLength = given[.maxLength].flatMap { decoder.integer($0, in: 1...maxLengthLimit) }
            let seed = given[.seed].flatMap { decoder.integer($0, in: 0...seedLimit) }
            let count = given[.count].flatMap { decoder.integer($0, in: 1...countLimit) }
            if coverage == .transitions {
                // A transitions plan is deterministic and has as many sequences as it needs.
                for member in [Member.seed, .count] {
                    if let value = given[member] { decoder.report("'\(member.rawValue)' applies to random plans only", at: value) }
                }
            }
            return PlanRequest(coverage: coverage, maxLength: maxLength, seed: UInt64(seed ?? 0), count: count ?? 1)
        }.map(\.read)
    }

    private enum Member: String, CaseIterable, Sendable {
        case coverage, maxLength, seed, count
    }

    private static let members = ClosedNames<Member>("member")
    private static let coverages = ClosedNames<Coverage>("coverage")
}

extension RequestDecoder {
    /// An integral number within `range`; reports anything else.
    mutating func integer(_ value: JSONValue, in range: ClosedRange<Int>) -> Int? {
        guard let number = number(value) else { return nil }
        guard let integer = document.integer(value), range.contains(integer) else {
            report("expected an integer from \(range.lowerBound) to \(range.upperBound), got \(canonicalText(number))",
                   at: value)
            return nil
        }
        return integer
    }
}
