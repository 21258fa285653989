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
    }

    enum Role: Equatable {
        /// The request's top-level members other than the sequence.
        case head
        /// Element `index` of the sequence.
        case element(index: Int)
        /// `observedFinal`; `repeatsHead` when the head gave one too (a problem of this line).
        case tail(repeatsHead: Bool)
    }

    /// The members a head may name: `ruleset`, `initial`, `observedFinal` and the
    /// ruleset's own, everything of its JSON body but the sequence.
    let headMembers: Set<String>
    private var sawFirst = false
    private var headGaveObservedFinal = false
    private var held: Line?
    private var elementCount = 0

    init(headMembers: Set<String>) {
        self.headMembers = headMembers
    }

    /// Hands over the lines whose roles are now known, in body order: the held one's,
    /// then `line`'s (a closure, not an array: this runs once per line of a long log).
    mutating func next(_ line: Line, _ decided: (Line, Role) -> Void) {
        if let previous = held {
            held = nil
            decided(previous, element())
        }
        let document = line.document
        if !sawFirst {
            sawFirst = true
            if document.kind(document.root) == .object,
               document.members(document.root).allSatisfy({ headMembers.contains(document.string($0.key) ?? "") }) {
                headGaveObservedFinal = document.members(document.root).contains {
                    document.string($0.key, equals: "observedFinal") && document.kind($0.value) != .null
                }
                decided(line, .head)
                return
            }
        }
        if Self.mayBeTail(document) {
            held = line
        } else {
            decided(line, element())
        }
    }

    /// The memory of the line held back (it may be the tail): its bytes and its tape.
    var heldBytes: Int { held.map { $0.document.input.count + $0.document.nodeCount * 16 } ?? 0 }

    /// The body has ended: the held line, if any, was the tail.
    mutating func end() -> [(Line, Role)] {
        defer { held = nil }
        return held.map { [($0, .tail(repeatsHead: headGaveObservedFinal))] } ?? []
    }

    private mutating func element() -> Role {
        defer { elementCount += 1 }
        return .element(index: elementCount)
    }

    private static func mayBeTail(_ document: JSONDocument) -> Bool {
        guard document.kind(document.root) == .object, document.count(document.root) == 1 else { return false }
        return document.members(document.root).allSatisfy { document.string($0.key, equals: "observedFinal") }
    }
}

extension RulesetEndpoint {
    /// The JSON request an NDJSON body is written as (streaming.md: the same request,
    /// one line per element), for what needs the whole log at once (a repro of a
    /// final-state divergence). The body is checked first, so its problems are the
    /// NDJSON form's, with their lines.
    func jsonRequest(ndjson body: [UInt8]) -> Result<[UInt8], RequestRejection> {
        if case .failure(let rejection) = answerNDJSON(body, detail: .none) { return .failure(rejection) }
        var lines = NDJSONLines(maxLineBytes: NDJSONCheck.defaultMaxLineBytes)
        var layout = NDJSONLayout(headMembers: headMembers)
        var request = JSONRequestParts(capacity: body.count)
        for element in lines.feed(body) + lines.finish() {
            guard case .line(let number, let bytes) = element, let document = try? JSONReader.parse(bytes) else {
                preconditionFailure("a body the NDJSON form accepted has only lines of JSON")
            }
            layout.next(NDJSONLayout.Line(number: number, document: document)) { request.take($0, $1) }
        }
        for (line, role) in layout.end() { request.take(line, role) }
        return .success(request.finish(sequence: sequence))
    }
}

/// The members of the head and the tail and the elements, each written as its lines
/// arrive, with their commas.
private struct JSONRequestParts: ~Copyable {
    private var head = JSONWriter(capacity: 256), tail = JSONWriter(capacity: 256)
    private var elements: JSONWriter

    init(capacity: Int) {
        elements = JSONWriter(capacity: capacity)
    }

    mutating func take(_ line: NDJSONLayout.Line, _ role: NDJSONLayout.Role) {
        let document = line.document
        switch role {
        case .head:
            Self.copyMembers(of: document, to: &head)
        case .tail:
            Self.copyMembers(of: document, to: &tail)
        case .element:
            elements.value(document.root, of: document)
        }
    }

    private static func copyMembers(of document: JSONDocument, to writer: inout JSONWriter) {
        for member in document.members(document.root) {
            guard let name = document.string(member.key) else { continue }
            writer.key(escaping: name)
            writer.value(member.value, of: document)
        }
    }

    consuming func finish(sequence: String) -> [UInt8] {
        let head = head.finish(), elements = elements.finish(), tail = tail.finish()
        var writer = JSONWriter(capacity: head.count + elements.count + tail.count + 64)
        writer.beginObject()
        if !head.isEmpty { head.withUnsafeBufferPointer { writer.members($0) } }
        writer.key(escaping: sequence)
        writer.beginArray()
        if !elements.isEmpty { elements.withUnsafeBufferPointer { writer.members($0) } }
        writer.endArray()
        if !tail.isEmpty { tail.withUnsafeBufferPointer { writer.members($0) } }
        writer.endObject()
        return writer.finish()
    }
}
