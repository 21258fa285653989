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
        let translated = NotificationTranslation.playback(NotificationJSON.encode(name: name, userInfo: userInfo))
        return TranslatedNotification(event: translated.event, diagnostics: translated.diagnosticCodes)
    }
}

extension AudioSessionEvent {
    /// Translates a notification as an app receives it (see `PlaybackEvent.translating`);
    /// media-services notifications are events here.
    public static func translating(notification name: String,
                                   userInfo: [AnyHashable: Any]?) -> TranslatedNotification<AudioSessionEvent> {
        let translated = NotificationTranslation.audioSession(NotificationJSON.encode(name: name, userInfo: userInfo))
        return TranslatedNotification(event: translated.event, diagnostics: translated.diagnosticCodes)
    }
}

/// A notification as the JSON a log carries it in, so it meets the one translation
/// the service uses. Values of types JSON has no word for become `null`, which the
/// translation treats as missing.
enum NotificationJSON {
    /// Deeper values are cut to `null`: no real userInfo nests, and the writer recurses.
    static let maxDepth = 16

    static func encode(name: String, userInfo: [AnyHashable: Any]?) -> [UInt8] {
        var writer = JSONWriter(capacity: 256)
        writer.beginObject()
        writer.key("notification")
        writer.string(escaping: name)
        if let userInfo {
            writer.key("userInfo")
            write(userInfo, to: &writer, depth: 0)
        }
        writer.endObject()
        return writer.finish()
    }

    private static func write(_ value: Any, to writer: inout JSONWriter, depth: Int) {
        guard depth < maxDepth else { return writer.null() }
        // Integers before Bool: an NSNumber holding 1 also casts to `true`.
        switch value {
        case let number as Int: writer.integer(number)
        case let number as UInt: number <= UInt(Int.max) ? writer.integer(Int(number)) : writer.number(Double(number))
        case let number as Int32: writer.integer(Int(number))
        case let number as UInt32: writer.integer(Int(number))
        case let number as Int64: writer.integer(Int(number))
        case let number as Double: writer.number(number)
        case let flag as Bool: writer.bool(flag)
        case let text as String: writer.string(escaping: text)
        case let elements as [Any]:
            writer.beginArray()
            for element in elements { write(element, to: &writer, depth: depth + 1) }
            writer.endArray()
        case let members as [AnyHashable: Any]:
            writer.beginObject()
            // Sorted: a dictionary's order is not stable, and a repeated key is impossible.
            for (key, member) in members.map({ ("\($0.key.base)", $0.value) }).sorted(by: { $0.0 < $1.0 }) {
                writer.key(escaping: key)
                write(member, to: &writer, depth: depth + 1)
            }
            writer.endObject()
        default: writer.null()
        }
    }
}
