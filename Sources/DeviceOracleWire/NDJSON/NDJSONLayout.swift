import DeviceOracleJSON

/// What each line of an NDJSON body is (streaming.md, "Request"). The first line is
/// the head when every member it names is one of the ruleset's head members; a last
/// line whose only member is `observedFinal` is the tail; every other line is an
/// element of the sequence, counted from 0 so that element `k` is step `k`. A line
/// that may be the tail is held until the next line, or the end, says which it was:
/// at most one line is held.
struct NDJSONLayout {
    /// One parsed line of the body; `number` is 1-based over every line.
    struct Line {
        let number: Int
        let document: JSONDocument
        /// The unified-log form: what an element of this message takes from its record.
        var fill: OSLogInput.Fill? = nil
    }

    enum Role: Equatable {
        /// The request's top-level members other than the sequence.
        case head
        /// Element `index` of the sequence.
        case element(index: Int)
        /// `observedFinal`; `repeatsHead` when the head gave one too (a problem of this line).
        case tail(repeatsHead: Bool)
        /// The unified-log form: a head-shaped first message after a head line (a problem of this line).
        case secondHead
    }

    /// The members a head may name: `ruleset`, `initial`, `observedFinal` and the
    /// ruleset's own, everything of its JSON body but the sequence.
    let headMembers: Set<String>
    private var sawFirst = false
    private var headGaveObservedFinal = false
    private var held: Line?
    /// The held line is the first: a head unless it is the last (the unified-log form).
    private var heldIsFirst = false
    private var elementCount = 0
    /// The unified-log form: the first message may be the head unless the body's first
    /// line was; a first message that may be the tail is the tail when it is the last.
    private let tailWinsOverHead: Bool

    init(headMembers: Set<String>, tailWinsOverHead: Bool = false) {
        self.headMembers = headMembers
        self.tailWinsOverHead = tailWinsOverHead
    }

    /// The unified-log form: the body's first line, a head the user prepended.
    mutating func headLine(_ line: Line, _ decided: (Line, Role) -> Void) {
        decided(line, head(line))
    }

    /// Hands over the lines whose roles are now known, in body order: the held one's,
    /// then `line`'s (a closure, not an array: this runs once per line of a long log).
    mutating func next(_ line: Line, _ decided: (Line, Role) -> Void) {
        if let previous = held {
            held = nil
            decided(previous, heldIsFirst ? head(previous) : element())
            heldIsFirst = false
        }
        // `line.document` read in place: a copy of it was a retain and a release a line.
        if !sawFirst {
            sawFirst = true
            if isHeadShaped(line.document) {
                if tailWinsOverHead, Self.mayBeTail(line.document) {
                    held = line
                    heldIsFirst = true
                } else {
                    decided(line, head(line))
                }
                return
            }
        }
        if Self.mayBeTail(line.document) {
            held = line
        } else {
            decided(line, element())
        }
    }

    private func isHeadShaped(_ document: JSONDocument) -> Bool {
        document.kind(document.root) == .object
            && document.members(document.root).allSatisfy({ headMembers.contains(document.string($0.key) ?? "") })
    }

    /// A head line's role: the head, or a second one.
    private mutating func head(_ line: Line) -> Role {
        if headGiven { return .secondHead }
        headGiven = true
        let document = line.document
        headGaveObservedFinal = document.members(document.root).contains {
            document.string($0.key, equals: "observedFinal") && document.kind($0.value) != .null
        }
        return .head
    }

    private var headGiven = false

    /// The memory of the line held back (it may be the tail): its bytes and its tape.
    var heldBytes: Int { held.map { $0.document.heldBytes } ?? 0 }

    /// The body has ended: the held line, if any, was the tail.
    mutating func end() -> [(Line, Role)] {
        defer { held = nil; heldIsFirst = false }
        return held.map { [($0, .tail(repeatsHead: headGaveObservedFinal))] } ?? []
    }

    private mutating func element() -> Role {
        defer { elementCount += 1 }
        return .element(index: elementCount)
    }

    private static func mayBeTail(_ document: JSONDocument) -> Bool {
        document.isObject(document.root, withOnlyMember: "observedFinal")
    }
}
