import DeviceOracleRules

/// The translation of a notification for the in-process product, which hands it over
/// as values (its name, and its `userInfo` as `NotificationValue`s): the one
/// translation the endpoints use, not a second copy of it. Each gives the event that
/// reaches the ruleset's machine (none when the notification is unknown or
/// unreadable) and the diagnostic codes the translation adds.
package enum NotificationTranslation {
    package static func playback(_ name: String, userInfo: [String: NotificationValue]?)
        -> (event: PlaybackEvent?, diagnosticCodes: [String]) {
        translate(name, userInfo, PlaybackRuleset.notificationEvents)
    }

    package static func audioSession(_ name: String, userInfo: [String: NotificationValue]?)
        -> (event: AudioSessionEvent?, diagnosticCodes: [String]) {
        translate(name, userInfo, AudioSessionRuleset.notificationEvents)
    }

    private static func translate<Event>(_ name: String, _ userInfo: [String: NotificationValue]?,
                                         _ events: NotificationEvents<Event>?) -> (event: Event?, diagnosticCodes: [String]) {
        guard let events else { return (nil, [DiagnosticCode.unknownNotification.rawValue]) }
        var missingOptions = false
        let translated = AudioSessionNotification.translate(name, userInfo: userInfo, mediaServices: events.mediaServices != nil,
                                                            missingOptions: &missingOptions)
        let diagnostic = translated.diagnostic(missingOptions: missingOptions)
        return (events.event(translated)?.event, diagnostic.map { [$0.rawValue] } ?? [])
    }
}
