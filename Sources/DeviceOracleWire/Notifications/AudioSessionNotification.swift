import DeviceOracleJSON
import DeviceOracleRules

/// A route change reason as a log gave it: a number or a name. Known reasons are
/// shown by name; unknown ones as given, and the rules treat them as unknown.
struct GivenRouteChangeReason: Sendable {
    /// `nil` when the value is not one AVAudioSession defines.
    let reason: RouteChangeReason?
    /// The value in the request, echoed when the reason is unknown; `nil` for a reason
    /// an app handed over as a value (`NotificationValue`), which no answer echoes.
    let given: JSONValue?

    init(reason: RouteChangeReason?) {
        self.reason = reason
        given = nil
    }

    init(_ given: JSONValue, in document: JSONDocument) {
        self.given = given
        if let number = document.integer(given) {
            reason = RouteChangeReason(rawValue: number)
        } else if document.kind(given) == .string {
            reason = RouteChangeReason.allCases.first { document.string(given, matches: $0.name) }
        } else {
            reason = nil
        }
    }

    /// `{"type": "routeChanged", "reason": …}` as a step's `event`.
    func writeEvent(to writer: inout JSONWriter, document: JSONDocument) {
        writer.beginObject()
        writer.key("type")
        writer.string("routeChanged")
        writer.key("reason")
        if let reason { writer.string(escaping: reason.name) } else if let given { writer.value(given, of: document) } else { writer.null() }
        writer.endObject()
    }
}

extension RequestDecoder {
    /// The required `reason` of a canonical `routeChanged`: a number or a name.
    mutating func routeChangeReason(_ value: JSONValue?, in event: JSONValue) -> GivenRouteChangeReason? {
        guard let value = present(value) else {
            reportMissing("reason", in: event, "required number or string is missing")
            return nil
        }
        let kind = document.kind(value)
        guard kind == .number || kind == .string else {
            report("expected a number or a string, got \(kind.article)", at: value)
            return nil
        }
        return GivenRouteChangeReason(value, in: document)
    }

    /// A canonical `routeChanged` as a ruleset's event, its reason kept as given.
    mutating func routeChangedEvent<Event>(_ value: JSONValue?, in event: JSONValue,
                                           _ routeChanged: (RouteChangeReason?) -> Event) -> DecodedEvent<Event>? {
        routeChangeReason(value, in: event).map { DecodedEvent(routeChanged($0.reason), given: $0) }
    }
}

/// What a raw AVAudioSession notification means, translated exactly as the app's
/// adapter must translate it — one translation for every ruleset that reads them.
enum AudioSessionNotification: Sendable {
    case interruptionBegan
    case interruptionEnded(shouldResume: Bool)
    case routeChanged(GivenRouteChangeReason)
    case mediaServicesLost
    case mediaServicesReset
    /// Nothing reaches the state machine; the diagnostic says why.
    case untranslated(DiagnosticCode)

    private enum Name: Sendable {
        case interruption, routeChange, mediaServicesLost, mediaServicesReset
    }

    /// Spellings a log may use: the Objective-C constant, the Swift name, the short name.
    private static let names = ClosedNames<Name>("notification", [
        ("AVAudioSessionInterruptionNotification", .interruption),
        ("AVAudioSession.interruptionNotification", .interruption),
        ("interruption", .interruption),
        ("AVAudioSessionRouteChangeNotification", .routeChange),
        ("AVAudioSession.routeChangeNotification", .routeChange),
        ("routeChange", .routeChange),
        ("AVAudioSessionMediaServicesWereLostNotification", .mediaServicesLost),
        ("AVAudioSession.mediaServicesWereLostNotification", .mediaServicesLost),
        ("mediaServicesWereLost", .mediaServicesLost),
        ("AVAudioSessionMediaServicesWereResetNotification", .mediaServicesReset),
        ("AVAudioSession.mediaServicesWereResetNotification", .mediaServicesReset),
        ("mediaServicesWereReset", .mediaServicesReset),
    ])

    /// Translates `notification` (a string node) with its `userInfo` (an object
    /// node, or `nil`). `missingOptions` is set when an interruption ended without
    /// an options key. Media-services notifications are translated only for
    /// rulesets that model them; elsewhere they are unknown.
    static func translate(_ notification: JSONValue, userInfo: JSONValue?, in document: JSONDocument,
                          mediaServices: Bool, missingOptions: inout Bool) -> AudioSessionNotification {
        translate(names.match(notification, in: document), userInfo: userInfo.map { JSONUserInfo(object: $0, document: document) },
                  mediaServices: mediaServices, missingOptions: &missingOptions) { .routeChanged(GivenRouteChangeReason($0, in: document)) }
    }

    /// The same translation of a notification an app handed over as values (the
    /// in-process product): its name and its `userInfo`.
    static func translate(_ name: String, userInfo: [String: NotificationValue]?, mediaServices: Bool,
                          missingOptions: inout Bool) -> AudioSessionNotification {
        translate(names.match(name), userInfo: userInfo.map(ValueUserInfo.init), mediaServices: mediaServices,
                  missingOptions: &missingOptions) { .routeChanged(GivenRouteChangeReason(reason: $0.routeChangeReason)) }
    }

    /// The one translation, whatever `userInfo` is read from; `routeChanged` makes the
    /// route change of a present reason.
    private static func translate<UserInfo: NotificationUserInfo>(
        _ name: Name?, userInfo: UserInfo?, mediaServices: Bool, missingOptions: inout Bool,
        routeChanged: (UserInfo.Value) -> AudioSessionNotification
    ) -> AudioSessionNotification {
        switch name {
        case .interruption?:
            switch userInfo?.value("AVAudioSessionInterruptionTypeKey").flatMap({ userInfo?.interruptionType($0) }) {
            case .began?:
                return .interruptionBegan
            case .ended?:
                guard let userInfo, let options = userInfo.value("AVAudioSessionInterruptionOptionKey") else {
                    missingOptions = true
                    return .interruptionEnded(shouldResume: false)
                }
                return .interruptionEnded(shouldResume: userInfo.shouldResume(options))
            case nil:
                return .untranslated(.unknownInterruptionType)
            }
        case .routeChange?:
            guard let reason = userInfo?.value("AVAudioSessionRouteChangeReasonKey") else {
                return .untranslated(.unknownRouteChangeReason)
            }
            return routeChanged(reason)
        case .mediaServicesLost? where mediaServices:
            return .mediaServicesLost
        case .mediaServicesReset? where mediaServices:
            return .mediaServicesReset
        case .mediaServicesLost?, .mediaServicesReset?, nil:
            return .untranslated(.unknownNotification)
        }
    }

    /// What the translation adds to its step: why nothing reached the machine, or
    /// that an interruption ended without its options key.
    func diagnostic(missingOptions: Bool) -> DiagnosticCode? {
        if case .untranslated(let code) = self { return code }
        return missingOptions ? .missingInterruptionOptions : nil
    }

    fileprivate enum InterruptionType { case began, ended }
}

/// A notification's `userInfo` as the translation reads it: a member by key (`nil`
/// when absent or `null`), and the few readings the keys' values need.
private protocol NotificationUserInfo {
    associatedtype Value
    func value(_ key: StaticString) -> Value?
    /// `AVAudioSession.InterruptionType`: 1 or "began", 0 or "ended".
    func interruptionType(_ value: Value) -> AudioSessionNotification.InterruptionType?
    /// Bit 0 of `AVAudioSession.InterruptionOptions` (two's complement for a negative
    /// integer; a non-integral number has no bits), the string "shouldResume", or an
    /// array holding that string.
    func shouldResume(_ options: Value) -> Bool
}

/// A log's `userInfo`: an object node.
private struct JSONUserInfo: NotificationUserInfo {
    let object: JSONValue
    let document: JSONDocument

    func value(_ key: StaticString) -> JSONValue? {
        document.member(object, key).flatMap { document.isNull($0) ? nil : $0 }
    }

    func interruptionType(_ value: JSONValue) -> AudioSessionNotification.InterruptionType? {
        switch document.kind(value) {
        case .number:
            switch document.number(value) {
            case 1: return .began
            case 0: return .ended
            default: return nil
            }
        case .string:
            if document.string(value, equals: "began") { return .began }
            if document.string(value, equals: "ended") { return .ended }
            return nil
        default:
            return nil
        }
    }

    func shouldResume(_ options: JSONValue) -> Bool {
        switch document.kind(options) {
        case .number:
            return document.integer(options).map { $0 & 1 == 1 } ?? false
        case .string:
            return document.string(options, equals: "shouldResume")
        case .array:
            return document.elements(options).contains { document.string($0, equals: "shouldResume") }
        default:
            return false
        }
    }
}

/// A value of a `userInfo` an app handed over, as JSON would carry it: what the
/// in-process product translates, without writing it as text first.
package enum NotificationValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([NotificationValue])
    case object([String: NotificationValue])

    /// A known reason by its number or name; `nil` for any other value.
    var routeChangeReason: RouteChangeReason? {
        switch self {
        case .number(let number): Int(exactly: number).flatMap(RouteChangeReason.init(rawValue:))
        case .string(let name): RouteChangeReason.allCases.first { $0.name == name }
        default: nil
        }
    }
}

private struct ValueUserInfo: NotificationUserInfo {
    let members: [String: NotificationValue]

    func value(_ key: StaticString) -> NotificationValue? {
        guard let value = members["\(key)"], value != .null else { return nil }
        return value
    }

    func interruptionType(_ value: NotificationValue) -> AudioSessionNotification.InterruptionType? {
        switch value {
        case .number(1), .string("began"): .began
        case .number(0), .string("ended"): .ended
        default: nil
        }
    }

    func shouldResume(_ options: NotificationValue) -> Bool {
        switch options {
        case .number(let number): Int(exactly: number).map { $0 & 1 == 1 } ?? false
        case .string(let text): text == "shouldResume"
        case .array(let elements): elements.contains(.string("shouldResume"))
        default: false
        }
    }
}
