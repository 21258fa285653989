import DeviceOracleJSON

/// The members that say which form an event came in: canonical (`type`) or a raw
/// AVAudioSession notification (`notification` with its `userInfo`). A ruleset's
/// event reader fills them in while it reads the event's members.
struct EventFormMembers {
    var type: JSONValue?
    var notification: JSONValue?
    var userInfo: JSONValue?
}

/// An event in the form it came in, once that form is valid.
enum EventForm<EventType> {
    /// `type`: a name from the ruleset's closed set of event types.
    case canonical(EventType)
    /// `notification`, translated. `diagnostic` is what the translation adds: a
    /// missing options key, or why nothing reached the state machine.
    case notification(AudioSessionNotification, diagnostic: DiagnosticCode?)
}

extension RequestDecoder {
    /// The form of one event, for every ruleset that reads both forms: exactly one of
    /// `type` and `notification` (both, or neither, is a `422`); a `type` from
    /// `types`; a string `notification` whose `userInfo`, when given, is an object.
    /// `nil` once a problem is reported. `mediaServices` as in
    /// `AudioSessionNotification.translate`.
    @inline(__always)
    mutating func eventForm<EventType>(_ members: EventFormMembers, of event: JSONValue,
                                       types: ClosedNames<EventType>, mediaServices: Bool) -> EventForm<EventType>? {
        switch (members.type, members.notification) {
        case (let type?, nil):
            return name(type, in: types).map { .canonical($0) }
        case (nil, let notification?):
            guard let name = value(notification, of: .string) else { return nil }
            let userInfo = value(members.userInfo, of: .object)
            if present(members.userInfo) != nil, userInfo == nil { return nil }
            var missingOptions = false
            let translated = AudioSessionNotification.translate(name, userInfo: userInfo, in: document,
                                                                mediaServices: mediaServices,
                                                                missingOptions: &missingOptions)
            return .notification(translated, diagnostic: translated.diagnostic(missingOptions: missingOptions))
        case (_?, _?):
            report("an event has either 'type' or 'notification', not both", at: event)
            return nil
        case (nil, nil):
            reportMissing("type", in: event, "an event needs 'type' (canonical form) or 'notification' (raw form)")
            return nil
        }
    }
}
