import DeviceOracleJSON
import DeviceOracleWire

/// A raw AVAudioSession notification translated exactly as the service translates
/// one in a log: the event that reaches the machine (`nil` when nothing does: an
/// unknown notification or interruption type, a route change without a reason) and
/// the diagnostic codes the translation adds (`missingInterruptionOptions`, …).
public struct TranslatedNotification<Event: Sendable>: Sendable {
    public let event: Event?
    public let diagnostics: [String]
}

extension PlaybackEvent {
    /// Translates a notification as an app receives it: its name (the Objective-C
    /// constant, the Swift name or the short name) and its `userInfo`, whose numbers
    /// may be `Int`, `UInt` or `NSNumber`.
    public static func translating(notification name: String,
                                   userInfo: [AnyHashable: Any]?) -> TranslatedNotification<PlaybackEvent> {
        let translated = NotificationTranslation.playback(name, userInfo: NotificationValues.userInfo(userInfo))
        return TranslatedNotification(event: translated.event, diagnostics: translated.diagnosticCodes)
    }
}

extension AudioSessionEvent {
    /// Translates a notification as an app receives it (see `PlaybackEvent.translating`);
    /// media-services notifications are events here.
    public static func translating(notification name: String,
                                   userInfo: [AnyHashable: Any]?) -> TranslatedNotification<AudioSessionEvent> {
        let translated = NotificationTranslation.audioSession(name, userInfo: NotificationValues.userInfo(userInfo))
        return TranslatedNotification(event: translated.event, diagnostics: translated.diagnosticCodes)
    }
}

/// A `userInfo` as the values a log's JSON would carry, so it meets the one
/// translation the service uses. Values of types JSON has no word for become `null`,
/// which the translation treats as missing.
enum NotificationValues {
    /// Deeper values are cut to `null`: no real userInfo nests.
    static let maxDepth = 16

    static func userInfo(_ userInfo: [AnyHashable: Any]?) -> [String: NotificationValue]? {
        guard let userInfo else { return nil }
        guard case .object(let members) = value(userInfo, depth: 0) else { return nil }
        return members
    }

    private static func value(_ value: Any, depth: Int) -> NotificationValue {
        guard depth < maxDepth else { return .null }
        // Integers before Bool: an NSNumber holding 1 also casts to `true`.
        switch value {
        case let number as Int: return .number(Double(number))
        case let number as UInt: return .number(Double(number))
        case let number as Int32: return .number(Double(number))
        case let number as UInt32: return .number(Double(number))
        case let number as Int64: return .number(Double(number))
        case let number as Double: return number.isFinite ? .number(number) : .null
        case let flag as Bool: return .bool(flag)
        case let text as String: return .string(text)
        case let elements as [Any]: return .array(elements.map { self.value($0, depth: depth + 1) })
        case let members as [AnyHashable: Any]:
            // Keys as text; of two keys that read alike (`1` and `"1"`), the first in
            // sorted order, as a JSON reader keeps the first of a repeated key.
            var object: [String: NotificationValue] = [:]
            for (key, member) in members.map({ ("\($0.key.base)", $0.value) }).sorted(by: { $0.0 < $1.0 })
            where object[key] == nil {
                object[key] = self.value(member, depth: depth + 1)
            }
            return .object(object)
        default: return .null
        }
    }
}
