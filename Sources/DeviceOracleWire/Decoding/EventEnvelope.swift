import DeviceOracleJSON

/// The members any event (or refresh run) may carry besides its own: `id`
/// (echoed in its step), `at` (the device clock), `session`, `observed`.
struct EventEnvelope {
    var id: JSONValue?
    var at: Double?
    var session: JSONValue?
    var observed: JSONValue?
}

private enum EnvelopeMember: String, CaseIterable, Sendable {
    case id, at, session, observed
}

private let envelopeMembers = ClosedNames<EnvelopeMember>("event member")

extension RequestDecoder {
    /// Reads an event object's shared members and hands every member named in
    /// `own` (non-null) to `found`; other members are ignored, since device logs
    /// carry more than the rules read. `session` is read only where the ruleset
    /// has sessions; `atRequired` where the ruleset's clock is not optional
    /// (refresh runs). `document` is this decoder's, lent by a caller that holds it
    /// (a long log's walk): walking a copy of `self.document` while `found` may change
    /// `self` took a retain and a release per event.
    @inline(__always)
    mutating func envelope<Member>(of event: JSONValue, in document: JSONDocument, own: ClosedNames<Member>,
                                   sessions: Bool = false, atRequired: Bool = false,
                                   _ found: (inout RequestDecoder, Member, JSONValue) -> Void) -> EventEnvelope {
        var envelope = EventEnvelope()
        var atGiven = false
        for member in document.members(event) {
            // The ruleset's own names first: every event has a `type` or `notification`.
            if let name = own.match(member.key, in: document) {
                if let value = present(member.value) { found(&self, name, value) }
            } else if let name = envelopeMembers.match(member.key, in: document) {
                switch name {
                case .id: envelope.id = value(member.value, of: .string)
                case .at:
                    atGiven = present(member.value) != nil
                    envelope.at = number(member.value)
                case .session where sessions: envelope.session = value(member.value, of: .string)
                case .session: break
                case .observed: envelope.observed = value(member.value, of: .object)
                }
            }
        }
        if atRequired, !atGiven { reportMissing("at", in: event, "required number is missing") }
        return envelope
    }

    /// The elements of an array that are objects, kept for reading again (haptics'
    /// pattern); reports the others. A loop that reads each once walks
    /// `document.elements(array) where has(element, .object)` instead: no array.
    mutating func objects(in array: JSONValue) -> [(index: Int, object: JSONValue)] {
        var objects: [(index: Int, object: JSONValue)] = []
        objects.reserveCapacity(document.count(array))
        for (index, element) in document.elements(array).enumerated() where has(element, .object) {
            objects.append((index, element))
        }
        return objects
    }
}

extension JSONWriter {
    /// The step's `index` and, when the event had one, its `id`.
    mutating func stepHead(index: Int, id: JSONValue?, document: JSONDocument) {
        key("index")
        integer(index)
        if let id {
            key("id")
            value(id, of: document)
        }
    }
}
