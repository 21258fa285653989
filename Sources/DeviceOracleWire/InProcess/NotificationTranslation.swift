import DeviceOracleJSON
import DeviceOracleRules

/// The translation of a notification for the in-process product, which hands it over
/// as JSON (`{"notification": name, "userInfo": {…}}`): the one translation the
/// endpoints use, not a second copy of it. Each gives the event that reaches the
/// ruleset's machine (none when the notification is unknown or unreadable) and the
/// diagnostic codes the translation adds.
package enum NotificationTranslation {
    package static func playback(_ json: [UInt8]) -> (event: PlaybackEvent?, diagnosticCodes: [String]) {
        translate(json, PlaybackRuleset.self)
    }

    package static func audioSession(_ json: [UInt8]) -> (event: AudioSessionEvent?, diagnosticCodes: [String]) {
        translate(json, AudioSessionRuleset.self)
    }

    private static func translate<D: RulesetDescription>(_ json: [UInt8], _ ruleset: D.Type) -> (event: D.Event?, diagnosticCodes: [String]) {
        guard let events = D.notificationEvents else { preconditionFailure("\(D.self) reads no notifications") }
        guard let document = try? JSONReader.parse(json), let name = document.member(document.root, "notification"),
              document.kind(name) == .string else {
            return (nil, [DiagnosticCode.unknownNotification.rawValue])
        }
        let userInfo = document.member(document.root, "userInfo").flatMap { document.kind($0) == .object ? $0 : nil }
        var missingOptions = false
        let translated = AudioSessionNotification.translate(name, userInfo: userInfo, in: document,
                                                            mediaServices: events.mediaServices != nil,
                                                            missingOptions: &missingOptions)
        let diagnostic = translated.diagnostic(missingOptions: missingOptions)
        return (events.event(translated)?.event, diagnostic.map { [$0.rawValue] } ?? [])
    }
}
