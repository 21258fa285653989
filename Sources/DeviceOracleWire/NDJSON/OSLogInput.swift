import DeviceOracleJSON

/// Which unified-log messages are the app's (oslog.md): a record's `category` must be
/// `category`, and its `subsystem` `subsystem` when one is given.
public struct OSLogSelection: Sendable, Equatable {
    public static let defaultCategory = "DeviceOracle"
    public let category: String
    public let subsystem: String?

    public init(category: String = OSLogSelection.defaultCategory, subsystem: String? = nil) {
        self.category = category
        self.subsystem = subsystem
    }
}

/// What the unified-log form counted of a body (the summary's `log` member).
struct OSLogAccounting: Equatable {
    var lines = 0, records = 0, selected = 0, elements = 0
    var notRecord = 0, notLogEvent = 0, notSelected = 0, otherProcess = 0
    var redacted = 0, malformed = 0, lost = 0

    /// Whether the evidence is known to be incomplete (oslog.md, `inconclusive`).
    var isIncomplete: Bool { redacted > 0 || malformed > 0 || lost > 0 }

    func write(to writer: inout JSONWriter) {
        writer.key("log")
        writer.beginObject()
        writer.key("lines"); writer.integer(lines)
        writer.key("records"); writer.integer(records)
        writer.key("selected"); writer.integer(selected)
        writer.key("elements"); writer.integer(elements)
        writer.counts("skipped", [("notRecord", notRecord), ("notLogEvent", notLogEvent), ("notSelected", notSelected),
                                  ("otherProcess", otherProcess)])
        writer.key("redacted"); writer.integer(redacted)
        writer.key("malformed"); writer.integer(malformed)
        writer.key("lost"); writer.integer(lost)
        writer.endObject()
    }
}

/// The input stage of the unified-log form (oslog.md): reads each line of a
/// `log stream|show --style ndjson` capture, counts the ones that are not the app's,
/// and hands on the app's messages as lines of the NDJSON form, for `NDJSONLayout`
/// and the ruleset's stream to read exactly as that form's lines. Holds one line's
/// document and a few counters; never the log.
struct OSLogInput {
    /// What one line of the capture is, for the NDJSON form.
    enum Outcome {
        /// Counted, and nothing more.
        case skip
        /// The body's first line, a head the user prepended.
        case headLine(JSONDocument)
        /// A selected record's message, a JSON object: a line of the NDJSON form.
        case message(JSONDocument, fill: Fill)
    }

    /// What an element takes from its record when it does not say it itself.
    struct Fill {
        /// `id`: `line-N`.
        let line: Int
        /// `at`: the record's `timestamp` in milliseconds since 1970 (nil when unreadable).
        let milliseconds: Int?
    }

    let selection: OSLogSelection
    private let category: [UInt8]
    private let subsystem: [UInt8]?
    private let headMembers: Set<String>
    private(set) var accounting = OSLogAccounting()
    /// The capture's records and the selected messages, each into its last one's
    /// memory when nothing kept that (`JSONLineReader`).
    private var records = JSONLineReader(), messages = JSONLineReader()
    /// The memory the readers keep between lines.
    var heldBytes: Int { records.heldBytes + messages.heldBytes }
    private var sawLine = false
    private var firstLine: Int?
    /// The app's process: the first selected record's `processID`.
    private var process: Double??
    /// How many other processes' records were selected (`otherProcess`), and the line of the first.
    private var otherProcesses: Set<Double?> = []
    private var firstOtherLine: Int?
    /// Other processes are told apart up to this many; past it the message says "at least".
    static let distinctProcessLimit = 1_024

    init(selection: OSLogSelection, headMembers: Set<String>) {
        self.selection = selection
        category = Array(selection.category.utf8)
        subsystem = selection.subsystem.map { Array($0.utf8) }
        self.headMembers = headMembers
    }

    /// Reads one non-blank line (`number` counts every line of the body); a log-side
    /// diagnostic it calls for goes to `diagnose`.
    mutating func read(number: Int, bytes: UnsafeRawBufferPointer, diagnose: (Diagnostic) -> Void) -> Outcome {
        accounting.lines += 1
        let first = !sawLine
        sawLine = true
        if first { firstLine = number }
        guard let document = try? records.parse(bytes), document.duplicateKeys.isEmpty,
              document.kind(document.root) == .object else {
            accounting.notRecord += 1
            return .skip
        }
        let root = document.root
        guard let eventType = document.member(root, "eventType") else {
            if first, document.members(root).allSatisfy({ headMembers.contains(document.string($0.key) ?? "") }) {
                return .headLine(document)
            }
            accounting.notRecord += 1
            return .skip
        }
        guard document.kind(eventType) == .string else {
            accounting.notRecord += 1
            return .skip
        }
        accounting.records += 1
        if !document.string(eventType, equals: "logEvent") {
            if document.string(eventType, equals: "lossEvent") {
                accounting.lost += 1
                diagnose(Diagnostic(log: number, .logLoss))
            } else {
                accounting.notLogEvent += 1
            }
            return .skip
        }
        guard matches(document, "category", category),
              subsystem.map({ matches(document, "subsystem", $0) }) ?? true else {
            accounting.notSelected += 1
            return .skip
        }
        let processID = document.member(root, "processID").flatMap { document.number($0) }
        if let process {
            guard process == processID else {
                accounting.otherProcess += 1
                if firstOtherLine == nil { firstOtherLine = number }
                if otherProcesses.count < Self.distinctProcessLimit { otherProcesses.insert(processID) }
                return .skip
            }
        } else {
            process = .some(processID)
        }
        accounting.selected += 1
        guard let message = document.member(root, "eventMessage"), document.kind(message) == .string else {
            accounting.malformed += 1
            diagnose(Diagnostic(log: number, .malformedMessage))
            return .skip
        }
        let redacted = document.withUTF8(message) { text in
            text.elementsEqual("<private>".utf8) || text.starts(with: "<mask.".utf8)
        }
        if redacted {
            accounting.redacted += 1
            diagnose(Diagnostic(log: number, .redactedMessage))
            return .skip
        }
        guard let object = document.withUTF8(message, { try? messages.parse(UnsafeRawBufferPointer($0)) }),
              object.kind(object.root) == .object else {
            accounting.malformed += 1
            diagnose(Diagnostic(log: number, .malformedMessage))
            return .skip
        }
        let timestamp = document.member(root, "timestamp").flatMap { value in
            document.kind(value) == .string ? document.withUTF8(value) { OSLogTimestamp.milliseconds($0) } : nil
        }
        return .message(object, fill: Fill(line: number, milliseconds: timestamp))
    }

    /// The body has ended: the one `notACapture` warning when no line was a record,
    /// and the one `otherProcess` warning, when records were passed over.
    func finish(diagnose: (Diagnostic) -> Void) {
        if accounting.records == 0, let firstLine {
            diagnose(Diagnostic(log: firstLine, .notACapture))
        }
        guard let firstOtherLine else { return }
        let processes = otherProcesses.count
        let atLeast = processes >= Self.distinctProcessLimit ? "at least " : ""
        let records = accounting.otherProcess
        diagnose(Diagnostic(log: firstOtherLine, .otherProcess, message:
            "\(records) selected record\(records == 1 ? "" : "s") of \(atLeast)\(processes) process\(processes == 1 ? "" : "es") "
            + "other than the first selected record's \(records == 1 ? "was" : "were") not checked (the app was relaunched, or two apps share the category); "
            + "check each run on its own, e.g. with --predicate 'processID == …'."))
    }

    private func matches(_ document: JSONDocument, _ name: StaticString, _ expected: [UInt8]) -> Bool {
        guard let value = document.member(document.root, name), document.kind(value) == .string else { return false }
        return document.withUTF8(value) { $0.elementsEqual(expected) }
    }

    /// The element of a message with `id` and `at` filled in where it does not give
    /// them (or gives `null`), as the message's first members; the message itself
    /// otherwise, as it was read (`JSONDocument.prepending`: nothing is written out and
    /// parsed again).
    static func filled(_ message: JSONDocument, _ fill: Fill, atInSeconds: Bool) -> JSONDocument {
        let root = message.root
        let id = message.member(root, "id"), at = message.member(root, "at")
        var added: [(name: String, value: AddedJSONValue)] = []
        if id.map(message.isNull) ?? true { added.append(("id", .string("line-\(fill.line)"))) }
        if let milliseconds = fill.milliseconds, at.map(message.isNull) ?? true {
            added.append(("at", .number(atInSeconds ? Double(milliseconds) / 1000 : Double(milliseconds))))
        }
        guard !added.isEmpty else { return message }
        return message.prepending(added) ?? message
    }
}

/// The log tool's `timestamp`: `YYYY-MM-DD HH:MM:SS`, optionally `.` and 1 to 9
/// digits, then `+hhmm` or `-hhmm` (oslog.md).
enum OSLogTimestamp {
    /// Milliseconds since 1970-01-01T00:00:00Z (fractions of a millisecond dropped);
    /// nil for any other text.
    static func milliseconds(_ text: UnsafeBufferPointer<UInt8>) -> Int? {
        var index = 0
        func digits(_ count: Int) -> Int? {
            guard index + count <= text.count else { return nil }
            var value = 0
            for _ in 0..<count {
                let digit = Int(text[index]) - 48
                guard (0...9).contains(digit) else { return nil }
                value = value * 10 + digit
                index += 1
            }
            return value
        }
        func byte(_ expected: Unicode.Scalar) -> Bool {
            guard index < text.count, text[index] == UInt8(ascii: expected) else { return false }
            index += 1
            return true
        }
        guard let year = digits(4), byte("-"), let month = digits(2), byte("-"), let day = digits(2), byte(" "),
              let hour = digits(2), byte(":"), let minute = digits(2), byte(":"), let second = digits(2) else { return nil }
        var millis = 0
        if byte(".") {
            var count = 0
            while index < text.count, (48...57).contains(text[index]) {
                if count < 3 { millis = millis * 10 + Int(text[index]) - 48 }
                count += 1
                index += 1
            }
            guard (1...9).contains(count) else { return nil }
            if count < 3 { for _ in count..<3 { millis *= 10 } }
        }
        guard index < text.count, text[index] == UInt8(ascii: "+") || text[index] == UInt8(ascii: "-") else { return nil }
        let sign = text[index] == UInt8(ascii: "-") ? -1 : 1
        index += 1
        guard let offsetHours = digits(2), let offsetMinutes = digits(2), index == text.count,
              (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
              hour < 24, minute < 60, second < 60, offsetHours < 24, offsetMinutes < 60 else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second - sign * (offsetHours * 3_600 + offsetMinutes * 60)
        return seconds * 1_000 + millis
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar.
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
