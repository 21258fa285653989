import Foundation
#if canImport(os)
import os
#endif

/// Writes what an app's adapter saw and decided as the messages DeviceOracle's
/// `?from=oslog` form reads: a head, one element per call, the `observedFinal` tail.
///
/// Each call writes one message, or throws and writes nothing. Messages are JSON
/// objects of at most 1,024 bytes of UTF-8 (the unified log keeps a message's
/// dynamic string whole up to there). Safe to call from any thread: a call's message
/// is written whole, and calls that follow one another are written in that order.
public final class Recorder: Sendable {
    /// The longest message written, in bytes of UTF-8.
    public static let messageLimit = 1_024
    /// The `userInfo` keys a ruleset reads; `record(_:observed:)` writes only these.
    public static let userInfoKeysRead: Set<String> = [
        "AVAudioSessionInterruptionTypeKey",
        "AVAudioSessionInterruptionOptionKey",
        "AVAudioSessionRouteChangeReasonKey",
    ]

    private let sink: @Sendable (String) -> Void
    // Keeps one message's write whole and calls in order (the sink may be any closure).
    private let lock = NSLock()

    /// The log category the messages are written under, the one the service selects
    /// by (`?category=`, default `DeviceOracle`).
    public let category: String

    /// Writes every message to `sink`, one call per message, never two at once: how
    /// an app's tests (and this package's, on Linux) read what the recorder wrote.
    public init(category: String = "DeviceOracle", sink: @escaping @Sendable (String) -> Void) {
        self.category = category
        self.sink = sink
    }

    /// Writes to the unified log through `os.Logger(subsystem:category:)`, each message
    /// `.public` so `log stream` shows it unredacted, at the default level. Where there
    /// is no unified log (Linux), each message is a line on standard error.
    public convenience init(subsystem: String, category: String = "DeviceOracle") {
        #if canImport(os)
        if #available(macOS 11, iOS 14, tvOS 14, watchOS 7, *) {
            let logger = Logger(subsystem: subsystem, category: category)
            self.init(category: category) { message in logger.log("\(message, privacy: .public)") }
        } else {
            // Before os.Logger: the same message, public, at the default level (a Swift
            // String is an object argument to os_log, hence `@`).
            self.init(category: category) { message in
                os_log("%{public}@", log: OSLog(subsystem: subsystem, category: category), type: .default, message)
            }
        }
        #else
        self.init(category: category) { message in
            FileHandle.standardError.write(Data((message + "\n").utf8))
        }
        #endif
    }

    /// The head: the ruleset (`"playback/1"`), the app's starting state (`initial`),
    /// and the ruleset's other static members (`supportsHaptics`, `pattern`,
    /// `config`, `store`, `schedule`, …) as the JSON body names them. Write it
    /// first, once, before any element.
    public func head(ruleset: String? = nil, initial: [String: Any]? = nil,
                     members: [String: Any] = [:]) throws(RecorderError) {
        for name in ["ruleset", "initial"] where members[name] != nil { throw .duplicateMember(name) }
        var leading: [(String, Any)] = []
        if let ruleset { leading.append(("ruleset", ruleset)) }
        if let initial { leading.append(("initial", initial)) }
        try write(leading: leading, sorted: members, trailing: [])
    }

    /// A raw notification as the app's adapter received it, with what the app
    /// decided after it: `{"notification": name, "userInfo": {…}, "observed": {…}}`.
    /// Only the `userInfo` keys a ruleset reads are written (`userInfoKeysRead`);
    /// their `NSNumber` values are JSON numbers.
    public func record(_ notification: Notification, observed: [String: Any]? = nil) throws(RecorderError) {
        var leading: [(String, Any)] = [("notification", notification.name.rawValue)]
        if let userInfo = notification.userInfo {
            leading.append(("userInfo", userInfo.filter { ($0.key.base as? String).map(Self.userInfoKeysRead.contains) ?? false }))
        }
        try write(leading: leading, sorted: [:], trailing: observed.map { [("observed", $0)] } ?? [])
    }

    /// A canonical event (`userPaused`, a save's result, a lifecycle event):
    /// `{"type": type, fields…, "observed": {…}}`.
    public func record(type: String, fields: [String: Any] = [:], observed: [String: Any]? = nil) throws(RecorderError) {
        if fields["type"] != nil { throw .duplicateMember("type") }
        try record(element: fields, leading: [("type", type)], observed: observed)
    }

    /// An element with no `type`, as refresh's runs are: `{fields…, "observed": {…}}`.
    public func record(element fields: [String: Any], observed: [String: Any]? = nil) throws(RecorderError) {
        try record(element: fields, leading: [], observed: observed)
    }

    /// The tail: what the app's state was at the end, `{"observedFinal": {…}}`.
    public func finish(observedFinal: [String: Any]) throws(RecorderError) {
        try write(leading: [("observedFinal", observedFinal)], sorted: [:], trailing: [])
    }

    private func record(element fields: [String: Any], leading: [(String, Any)], observed: [String: Any]?) throws(RecorderError) {
        if observed != nil, fields["observed"] != nil { throw .duplicateMember("observed") }
        try write(leading: leading, sorted: fields, trailing: observed.map { [("observed", $0)] } ?? [])
    }

    /// One message: `leading` in its order, `sorted` by key, then `trailing`.
    private func write(leading: [(String, Any)], sorted: [String: Any], trailing: [(String, Any)]) throws(RecorderError) {
        var encoder = MessageEncoder()
        encoder.beginObject()
        var first = true
        for (key, value) in leading + sorted.sorted(by: { $0.key < $1.key }).map({ ($0.key, $0.value) }) + trailing {
            try encoder.member(key, value, path: "", first: first)
            first = false
        }
        encoder.endObject()
        let message = encoder.text
        let bytes = message.utf8.count
        guard bytes <= Self.messageLimit else { throw .messageTooLong(bytes: bytes, limit: Self.messageLimit) }
        lock.lock()
        defer { lock.unlock() }
        sink(message)
    }
}
