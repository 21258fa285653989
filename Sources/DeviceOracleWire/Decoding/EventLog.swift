import DeviceOracleJSON

/// What a ruleset's event reader found in one event object.
struct ReadEvent<Decoded> {
    var envelope: EventEnvelope
    /// The ruleset's own reading of the event.
    var decoded: Decoded
    /// What a raw notification's translation had to say, if anything.
    var translationDiagnostic: DiagnosticCode? = nil
}

/// One event of a log, read and valid, as the ruleset runs it.
struct LoggedEvent<Decoded, Field: Sendable> {
    /// The event's position in `events`: its step's index.
    let index: Int
    let envelope: EventEnvelope
    let decoded: Decoded
    /// Its `observed` object, whose names are already checked: a plain handle keeps
    /// this struct free of references, so a long log moves it without retains.
    let observedObject: JSONValue?
    /// Whether its `at` is earlier than the previous event's.
    let outOfOrder: Bool
    let translationDiagnostic: DiagnosticCode?

    /// The diagnostics every step starts with, before the rules' own: `outOfOrder`,
    /// then the translation's. Inlined: most steps have neither, and the call was most
    /// of its cost on each event's path.
    @inline(__always)
    func appendLeadingDiagnostics(to diagnostics: inout [Diagnostic]) {
        if outOfOrder { diagnostics.append(Diagnostic(index: index, .outOfOrder)) }
        if let translationDiagnostic { diagnostics.append(Diagnostic(index: index, translationDiagnostic)) }
    }

    /// The fields its `observed` gave, read with the names it was checked against.
    func observed(_ names: ClosedNames<Field>, in document: JSONDocument) -> ObservedFields<Field>? {
        observedObject.map { ObservedFields($0, names: names, in: document) }
    }
}

extension RequestDecoder {
    /// Walks an event log in array order, as every ruleset does: each element must be
    /// an object; `read` decodes its members and its `observed` is checked against
    /// `observedNames`. `run` gets each event while the request has no problems so
    /// far; after the first one the log is still validated to the end, so the `422`
    /// lists everything, but nothing more is run. Inlined, with the readers it uses,
    /// into each ruleset's walk, so that `read` and `run` inline too.
    @inline(__always)
    mutating func forEachEvent<Decoded, Field: Sendable>(in events: JSONValue, observedNames: ClosedNames<Field>,
                                               read: (inout RequestDecoder, JSONValue) -> ReadEvent<Decoded>,
                                               run: (LoggedEvent<Decoded, Field>) -> Void) {
        var arrival = ArrivalOrder()
        // Element by element rather than through `objects(in:)`: no array for a short log.
        for (index, object) in document.elements(events).enumerated() {
            if let logged = loggedEvent(object, index: index, arrival: &arrival, observedNames: observedNames, read: read) {
                run(logged)
            }
        }
    }

    /// Reads element `index` of a log (in an array, or an NDJSON line of its own):
    /// it must be an object; `read` decodes its members and its `observed` is checked
    /// against `observedNames`. `nil` once the request has a problem.
    @inline(__always)
    mutating func loggedEvent<Decoded, Field: Sendable>(_ object: JSONValue, index: Int, arrival: inout ArrivalOrder,
                                                        observedNames: ClosedNames<Field>,
                                                        read: (inout RequestDecoder, JSONValue) -> ReadEvent<Decoded>)
        -> LoggedEvent<Decoded, Field>? {
        guard has(object, .object) else { return nil }
        let event = read(&self, object)
        let observed = observedObject(event.envelope.observed, names: observedNames)
        guard !hasProblems else { return nil }
        return LoggedEvent(index: index, envelope: event.envelope, decoded: event.decoded, observedObject: observed,
                           outOfOrder: arrival.isOutOfOrder(event.envelope.at),
                           translationDiagnostic: event.translationDiagnostic)
    }
}
