import DeviceOracleJSON
import DeviceOracleRules

/// A route change reason as a log gave it: a number or a name. Known reasons are
/// shown by name; unknown ones as given, and the rules treat them as unknown.
struct GivenRouteChangeReason: Sendable {
    /// `nil` when the value is not one AVAudioSession defines.
    let reason: RouteChangeReason?
    /// The value in the request, echoed when the reason is unknown.
    let given: JSONValue

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
        if let reason { writer.string(escaping: reason.name) } else { writer.value(given, of: document) }
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
        switch names.match(notification, in: document) {
        case .interruption?:
            let type = userInfo.flatMap { document.member($0, "AVAudioSessionInterruptionTypeKey") }
            switch type.map({ interruptionType($0, in: document) }) ?? nil {
            case .began?:
                return .interruptionBegan
            case .ended?:
                let options = userInfo.flatMap { document.member($0, "AVAudioSessionInterruptionOptionKey") }
                guard let options, !document.isNull(options) else {
                    missingOptions = true
                    return .interruptionEnded(shouldResume: false)
                }
                return .interruptionEnded(shouldResume: shouldResume(options, in: document))
            case nil:
                return .untranslated(.unknownInterruptionType)
            }
        case .routeChange?:
            let reason = userInfo.flatMap { document.member($0, "AVAudioSessionRouteChangeReasonKey") }
            guard let reason, !document.isNull(reason) else { return .untranslated(.unknownRouteChangeReason) }
            return .routeChanged(GivenRouteChangeReason(reason, in: document))
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

    private enum InterruptionType { case began, ended }

    /// `AVAudioSession.InterruptionType`: 1 or "began", 0 or "ended".
    private static func interruptionType(_ value: JSONValue, in document: JSONDocument) -> InterruptionType? {
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

    /// Bit 0 of `AVAudioSession.InterruptionOptions` (two's complement for a
    /// negative integer; a non-integral number has no bits), the string
    /// "shouldResume", or an array holding that string.
    private static func shouldResume(_ options: JSONValue, in document: JSONDocument) -> Bool {
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
