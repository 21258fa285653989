import DeviceOracleJSON

extension Verdict {
    /// `unchecked` when nothing was observed and no static check ran; otherwise
    /// `fail` on any mismatch or failed static check, else `pass`.
    init(mismatches: MismatchList, staticCheckPassed: Bool? = nil) {
        self.init(mismatchCount: mismatches.entries.count, carried: mismatches.carried, staticCheckPassed: staticCheckPassed)
    }

    /// The same, from totals: an NDJSON log's mismatches are not all kept.
    init(mismatchCount: Int, carried: Bool, staticCheckPassed: Bool?) {
        if staticCheckPassed == false || mismatchCount > 0 {
            self = .fail
        } else if carried || staticCheckPassed != nil {
            self = .pass
        } else {
            self = .unchecked
        }
    }

    /// `rawValue`, for a writer that copies it without looking for what to escape.
    var name: StaticString {
        switch self {
        case .pass: "pass"
        case .fail: "fail"
        case .unchecked: "unchecked"
        case .inconclusive: "inconclusive"
        }
    }

    /// An answer's last members when it has no mismatch and no diagnostic.
    var membersOfAnswerWithoutFindings: StaticString {
        switch self {
        case .pass: #""verdict":"pass","mismatches":[],"diagnostics":[]"#
        case .fail: #""verdict":"fail","mismatches":[],"diagnostics":[]"#
        case .unchecked: #""verdict":"unchecked","mismatches":[],"diagnostics":[]"#
        case .inconclusive: #""verdict":"inconclusive","mismatches":[],"diagnostics":[]"#
        }
    }
}

/// What a ruleset writes of its answer: its members before `steps` (`final`, …),
/// each step, and its members after (`summary`). Pure: the answer can be written
/// whole, or piece by piece while it is sent, and the bytes are the same.
protocol SteppedAnswer: Sendable {
    /// The request the answer is of (its values are written from it).
    var document: JSONDocument { get }
    var stepCount: Int { get }
    func writeHead(to writer: inout JSONWriter)
    func writeStep(_ index: Int, to writer: inout JSONWriter)
    func writeTail(to writer: inout JSONWriter)
    /// Writes steps from `first` on until `writer` holds `minimum` bytes or the steps
    /// end; returns the index of the next step to write.
    func writeSteps(from first: Int, to writer: inout JSONWriter, minimum: Int) -> Int
    /// Step `index` as values (`StepValues`): what the model routes read.
    func values(ofStep index: Int) -> StepValues
    /// The state the answer's `final` shows.
    var finalState: ShownState { get }
    /// With `"initial": "unknown"`: the state a request without `initial` starts in.
    var usualStart: ShownState? { get }
    /// What failed of the static check (`patternCheck`, `configCheck`), a line each.
    var staticCheckFailures: [String] { get }
    /// What the answer holds to write its steps from, in bytes (about).
    var heldBytes: Int { get }
}

extension SteppedAnswer {
    func writeTail(to writer: inout JSONWriter) {}
    var usualStart: ShownState? { nil }

    // A requirement with this default, so each answer type gets its own specialized
    // loop: one dynamic call per piece of the answer rather than one per step.
    func writeSteps(from first: Int, to writer: inout JSONWriter, minimum: Int) -> Int {
        var index = first
        while index < stepCount, writer.byteCount < minimum {
            writeStep(index, to: &writer)
            index += 1
        }
        return index
    }
}

/// The members every ruleset answer shares, around the ruleset's own:
/// `{"ruleset", …head…, "steps", …tail…, "verdict", "mismatches", "diagnostics"}`.
struct AnswerEnvelope: Sendable {
    let ruleset: StaticString
    let verdict: Verdict
    let mismatches: [Mismatch]
    let diagnostics: [Diagnostic]

    /// `stepped` is taken, not copied, into the answer.
    func answer(_ stepped: consuming some SteppedAnswer) -> RulesetAnswer {
        RulesetAnswer(verdict: verdict, text: AnswerText(envelope: self, stepped: consume stepped))
    }

    /// The diagnostics as the answer lists them: by step, whole-request ones (index
    /// null) last.
    func forEachDiagnosticInAnswerOrder(_ body: (Diagnostic) -> Void) {
        for diagnostic in diagnostics where diagnostic.index != nil { body(diagnostic) }
        for diagnostic in diagnostics where diagnostic.index == nil { body(diagnostic) }
    }

    func writeHead(_ stepped: some SteppedAnswer, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("ruleset")
        writer.string(ruleset)
        stepped.writeHead(to: &writer)
        writer.key("steps")
        writer.beginArray()
    }

    /// The mismatches' values are read from `stepped`'s document, asked for only when there are any.
    func writeTail(_ stepped: some SteppedAnswer, to writer: inout JSONWriter) {
        writer.endArray()
        stepped.writeTail(to: &writer)
        guard !mismatches.isEmpty || !diagnostics.isEmpty else {
            // Most answers found nothing: their last members are one of four texts.
            let members = verdict.membersOfAnswerWithoutFindings
            writer.members(UnsafeBufferPointer(start: members.utf8Start, count: members.utf8CodeUnitCount))
            writer.endObject()
            return
        }
        writer.key("verdict")
        writer.string(verdict.name)
        writer.key("mismatches")
        writer.beginArray()
        if !mismatches.isEmpty {
            let document = stepped.document
            for mismatch in mismatches { mismatch.write(to: &writer, document: document) }
        }
        writer.endArray()
        writer.key("diagnostics")
        writer.beginArray()
        forEachDiagnosticInAnswerOrder { $0.write(to: &writer) }
        writer.endArray()
        writer.endObject()
    }
}

/// An answer's JSON text, not yet written: whole on demand (`bytes`), or in
/// pieces (`pieces()`) so a long log's answer never sits in memory whole.
///
/// Three words and the listing: what the text is written from is one object
/// (`AnswerSource`), so an answer moves between the ruleset and the socket as a few
/// words, a copy is one retain, and it ends with one release. Held inline, the
/// envelope, the steps and the document were ~100 bytes copied and destroyed field by
/// field, the steps in a box of their own.
struct AnswerText: Sendable {
    let source: any WritesAnswer
    /// The steps `?steps=` keeps: the one place an answer's steps are chosen.
    var listing = StepListing.all

    init(envelope: AnswerEnvelope, stepped: consuming some SteppedAnswer) {
        source = AnswerSource(envelope: envelope, stepped: consume stepped)
    }

    var envelope: AnswerEnvelope { source.envelope }
    var document: JSONDocument { source.document }
    /// The ruleset's part, for the routes that read its steps as values (a copy each time).
    var stepped: any SteppedAnswer { source.steppedAnswer }

    /// How many steps the text lists.
    var listedCount: Int {
        switch listing {
        case .all: source.stepCount
        case .only(let indexes): indexes.count
        }
    }

    /// What the text holds until it has been written, in bytes (about).
    var heldBytes: Int { source.heldBytes }

    /// Writes listed steps from the `position`th on until `writer` holds `minimum`
    /// bytes or they end; returns the position of the next one.
    func writeListedSteps(from position: Int, to writer: inout JSONWriter, minimum: Int) -> Int {
        switch listing {
        case .all:
            return source.writeSteps(from: position, to: &writer, minimum: minimum)
        case .only(let indexes):
            var position = position
            while position < indexes.count, writer.byteCount < minimum {
                source.writeStep(indexes[position], to: &writer)
                position += 1
            }
            return position
        }
    }

    var bytes: [UInt8] {
        // An answer of a few steps (about a kilobyte) is written on the stack and copied
        // once, into its array: in memory of its own, the writer's allocation and its
        // release cost ~600 instructions a request (past 1032 bytes malloc leaves its
        // per-thread cache). A longer answer moves to the heap, sized by its step count.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 1024) { stack in
            var writer = JSONWriter(lentMemory: stack, spillCapacity: 1024 + listedCount * 160)
            source.writeHead(to: &writer)
            _ = writeListedSteps(from: 0, to: &writer, minimum: .max)
            source.writeTail(to: &writer)
            return writer.finish()
        }
    }
}

/// What an answer's text is written from, behind one reference (`AnswerSource`).
protocol WritesAnswer: AnyObject, Sendable {
    var envelope: AnswerEnvelope { get }
    var document: JSONDocument { get }
    var steppedAnswer: any SteppedAnswer { get }
    var stepCount: Int { get }
    var heldBytes: Int { get }
    /// The envelope's head and the ruleset's, up to the `steps` array's `[`.
    func writeHead(to writer: inout JSONWriter)
    func writeStep(_ index: Int, to writer: inout JSONWriter)
    /// `SteppedAnswer.writeSteps`.
    func writeSteps(from first: Int, to writer: inout JSONWriter, minimum: Int) -> Int
    /// From the `steps` array's `]` to the end.
    func writeTail(to writer: inout JSONWriter)
}

/// The envelope and the ruleset's part (stored in place, of its own type), which
/// holds the request's document: everything an answer's text is written from.
final class AnswerSource<Stepped: SteppedAnswer>: WritesAnswer {
    let envelope: AnswerEnvelope
    let stepped: Stepped

    init(envelope: AnswerEnvelope, stepped: consuming Stepped) {
        self.envelope = envelope
        self.stepped = consume stepped
    }

    /// The stepped answer's: one reference to it, not one more here.
    var document: JSONDocument { stepped.document }

    var steppedAnswer: any SteppedAnswer { stepped }
    var stepCount: Int { stepped.stepCount }
    var heldBytes: Int { document.heldBytes + stepped.heldBytes }

    func writeHead(to writer: inout JSONWriter) { envelope.writeHead(stepped, to: &writer) }

    func writeStep(_ index: Int, to writer: inout JSONWriter) { stepped.writeStep(index, to: &writer) }

    func writeSteps(from first: Int, to writer: inout JSONWriter, minimum: Int) -> Int {
        stepped.writeSteps(from: first, to: &writer, minimum: minimum)
    }

    func writeTail(to writer: inout JSONWriter) { envelope.writeTail(stepped, to: &writer) }
}

/// Hands out an answer's text in pieces of a chosen size, in order.
public final class AnswerPieces: @unchecked Sendable {
    // @unchecked: used by one owner at a time (whoever sends the answer); for the
    // same reason its vars are `@exclusivity(unchecked)`: the runtime's access
    // tracking showed in profiles of writing a long log's steps.
    private let text: AnswerText
    @exclusivity(unchecked) private var writer = JSONWriter(capacity: 1 << 16)
    private enum Phase { case head, steps(next: Int), done }
    @exclusivity(unchecked) private var phase = Phase.head

    init(_ text: AnswerText) {
        self.text = text
    }

    /// The answer's length: written once more, piece by piece, into one reused buffer.
    public func byteCount() -> Int {
        let counter = AnswerPieces(text)
        let piece = WrittenBytes()
        var total = 0
        var more = true
        while more {
            piece.removeAll()
            more = counter.next(into: piece, minimum: 1 << 20)
            total += piece.count
        }
        return total
    }

    /// Appends the next piece — at least `minimum` bytes unless the answer ends
    /// first — to `piece`; an empty one takes the writer's memory, uncopied (see
    /// `JSONWriter.move(into:)`). Returns false once the whole answer has been appended.
    public func next(into piece: WrittenBytes, minimum: Int) -> Bool {
        while writer.byteCount < minimum {
            switch phase {
            case .head:
                text.source.writeHead(to: &writer)
                phase = .steps(next: 0)
            case .steps(let next) where next < text.listedCount:
                phase = .steps(next: text.writeListedSteps(from: next, to: &writer, minimum: minimum))
            case .steps:
                text.source.writeTail(to: &writer)
                phase = .done
            case .done:
                writer.move(into: piece)
                return false
            }
        }
        writer.move(into: piece)
        if case .done = phase { return false }
        return true
    }
}

extension JSONWriter {
    /// `"summary":{"saves":1,…}`: a ruleset's totals, in the order given.
    mutating func counts(_ key: StaticString, _ counts: [(name: StaticString, count: Int)]) {
        self.key(key)
        beginObject()
        for (name, count) in counts {
            self.key(name)
            integer(count)
        }
        endObject()
    }
}
