import DeviceOracleJSON

/// Something a person should look at that does not change the decision.
struct Diagnostic: Equatable, Sendable {
    enum Severity: String, Sendable {
        case warning, info
    }

    /// The step, or `nil` for the whole request.
    let index: Int?
    let code: DiagnosticCode
    /// One sentence for a person; the code's standard sentence unless specific.
    let message: String?
    /// A log-side diagnostic's line of the body (the unified-log form, oslog.md).
    let line: Int?

    init(index: Int?, _ code: DiagnosticCode, message: String? = nil) {
        self.index = index
        self.code = code
        self.message = message
        line = nil
    }

    /// A diagnostic of the unified log itself: of the whole request, at a line.
    init(log line: Int, _ code: DiagnosticCode, message: String? = nil) {
        index = nil
        self.code = code
        self.message = message
        self.line = line
    }

    func write(to writer: inout JSONWriter) {
        // A long log can carry a diagnostic every few steps, nearly all of them a
        // step's with the standard sentence: those copy their code's members.
        if let index, message == nil {
            let standard = Self.standard
            let position = standard.codes.firstIndex(of: code)!
            standard.members[position].withUnsafeBufferPointer {
                writer.object(key: "index", integer: index, members: $0)
            }
            return
        }
        writer.beginObject()
        writer.key("index")
        if let index { writer.integer(index) } else { writer.null() }
        writeMembers(to: &writer)
        writer.endObject()
    }

    /// `"severity":…,"code":…,"message":…`.
    private func writeMembers(to writer: inout JSONWriter) {
        writer.key("severity")
        writer.string(escaping: code.severity.rawValue)
        writer.key("code")
        writer.string(escaping: code.rawValue)
        writer.key("message")
        if let message { writer.string(escaping: message) } else { writer.string(code.standardMessage) }
        if let line {
            writer.key("line")
            writer.integer(line)
        }
    }

    /// Every code's members with its standard message, by the code's position in
    /// `codes`: the look-up scans plain codes, where a scan of (code, members) pairs
    /// retained and released each pair's bytes on the way.
    private static let standard: (codes: [DiagnosticCode], members: [[UInt8]]) = (
        DiagnosticCode.allCases,
        DiagnosticCode.allCases.map { code in
            var writer = JSONWriter(capacity: 256)
            Diagnostic(index: nil, code).writeMembers(to: &writer)
            return writer.finish()
        })
}

/// Every diagnostic code, stable and camelCase; openapi.yaml lists the same set.
enum DiagnosticCode: String, CaseIterable, Sendable {
    // common
    case outOfOrder
    // raw AVAudioSession notifications (playback, audio-session)
    case unknownNotification
    case unknownInterruptionType
    case missingInterruptionOptions
    case unknownRouteChangeReason
    // playback
    case endWithoutBegin
    case routeChangeIgnored
    // haptics
    case duplicateTapBlocked
    case unexpectedCompletion
    case hapticError
    // refresh
    case ranBeforeEarliestBegin
    case duplicateIdInPage
    case duplicateIdInStore
    // audio-session
    case launchedTwice
    case exclusiveCategory
    case playWhileBackground
    case soundSuppressed
    // the unified-log form
    case logLoss
    case redactedMessage
    case malformedMessage
    case otherProcess
    case notACapture

    var severity: Diagnostic.Severity {
        switch self {
        case .endWithoutBegin, .routeChangeIgnored, .duplicateTapBlocked, .hapticError, .soundSuppressed: .info
        case .outOfOrder, .unknownNotification, .unknownInterruptionType, .missingInterruptionOptions,
             .unknownRouteChangeReason, .unexpectedCompletion, .ranBeforeEarliestBegin, .duplicateIdInPage,
             .duplicateIdInStore, .launchedTwice, .exclusiveCategory, .playWhileBackground,
             .logLoss, .redactedMessage, .malformedMessage, .otherProcess, .notACapture: .warning
        }
    }

    var standardMessage: StaticString {
        switch self {
        case .outOfOrder:
            "This event's 'at' is earlier than the previous event's: the log did not reach one serial owner in time order; the rules applied it in array order."
        case .unknownNotification:
            "This notification is not one the rules translate; nothing reached the state machine."
        case .unknownInterruptionType:
            "The interruption type is missing or not 'began'/'ended' (1/0); nothing reached the state machine."
        case .missingInterruptionOptions:
            "The interruption ended without an options key; read as shouldResume: false, never as permission to resume."
        case .unknownRouteChangeReason:
            "The route change reason is missing or not one AVAudioSession defines; the state is unchanged."
        case .endWithoutBegin:
            "An interruption ended without a matching interruptionBegan; the rule still applied."
        case .routeChangeIgnored:
            "Only oldDeviceUnavailable (2) pauses; this route change leaves the state unchanged."
        case .duplicateTapBlocked:
            "A save tap while a save is in flight is blocked: no second save, and no extra haptic."
        case .unexpectedCompletion:
            "A save completed while no save was in flight; the state is unchanged and no haptic plays."
        case .hapticError:
            "The haptic engine failed: it is stopped and started again before the next play; the save result stays as it was."
        case .ranBeforeEarliestBegin:
            "This run started before the earliest begin time the app had requested; BGTaskScheduler never starts a task that early."
        case .duplicateIdInPage:
            "A page holds the same id more than once; the later item replaced the earlier at the earlier one's position."
        case .duplicateIdInStore:
            "The starting store holds the same id more than once; the later item replaced the earlier at the earlier one's position."
        case .launchedTwice:
            "A launch while the app already observes the session: its observers would be added twice; the rules applied the launch again."
        case .exclusiveCategory:
            "This category takes audio exclusively and silences other apps' music; a game's sound effects rarely need more than 'ambient'."
        case .playWhileBackground:
            "A sound was requested while the app is not in the foreground: the game loop should not run in the background."
        case .soundSuppressed:
            "The session is not active, so no sound is attempted; the game stays silent rather than fail."
        case .logLoss:
            "The unified log dropped messages here: the app's events between this record's neighbours may be missing."
        case .redactedMessage:
            "The app's message was redacted ('<private>'): log it with privacy: .public; it was not checked."
        case .malformedMessage:
            "The app's message is not one JSON object (or it was cut at the unified log's message size); it was not checked."
        case .otherProcess:
            "Selected records of another process than the first selected record's were not checked."
        case .notACapture:
            "No line is a unified-log record (a JSON object with a string 'eventType'): expected the output of `log stream --style ndjson` or `log show --style ndjson`, one record per line (not `--style json`, not text)."
        }
    }
}

/// The common `outOfOrder` rule: each event's `at` against the previous event's,
/// when both carry one; equal values are in order.
struct ArrivalOrder {
    private var previous: Double?

    /// Whether an event at `at` arrived out of order; `nil` breaks the chain.
    mutating func isOutOfOrder(_ at: Double?) -> Bool {
        defer { previous = at }
        guard let at, let previous else { return false }
        return at < previous
    }
}
