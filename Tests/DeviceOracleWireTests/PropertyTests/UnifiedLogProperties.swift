import DeviceOracleJSON
import PropertyChecking
@testable import DeviceOracleWire

/// oslog.md, equivalence: the same log rendered as a unified-log capture — the
/// `Filtering the log data …` line, records of other categories, subsystems, processes
/// and event types, perhaps a redacted message, a loss record and a malformed message,
/// a cut last line, blank lines, fed in pieces of any size — answers every step line
/// and every summary member exactly as the NDJSON form does for the extracted elements
/// with their `id` and `at` filled in, plus the log's diagnostics, its accounting and
/// the verdict rule.
func checkUnifiedLogForm(_ endpoint: RulesetEndpoint, _ body: JSON, seed: Int) throws(Broken) {
    guard case .object(let members) = body else { return }
    var head: [(String, JSON)] = []
    var elements: [[(String, JSON)]] = []
    var tail: JSON? = nil
    for (name, value) in members {
        if name == "events" || name == "runs", case .array(let values) = value {
            for value in values {
                guard case .object(let element) = value else { return }
                elements.append(element)
            }
        } else if name == "observedFinal", seed % 2 == 0 {
            tail = .object([(name, value)])
        } else {
            head.append((name, value))
        }
    }
    let atInSeconds = endpoint.shortName == "refresh"
    var w = CaptureWriter(seed: seed)
    var expected: [String] = []
    var logCodes: [(line: Int, code: String)] = []
    let headLine = !head.isEmpty && seed % 3 == 0
    if headLine {
        // Prepended: `(echo '{…}'; log show --style ndjson …)`.
        w.capture.insert(JSON.object(head).description, at: 0)
        expected.append(JSON.object(head).description)
    }
    w.noise(seed)
    var incomplete = false
    if !head.isEmpty, !headLine {
        w.append(record: JSON.object(head).description)
        expected.append(JSON.object(head).description)
        w.accounting.selected += 1
        w.accounting.records += 1
    }
    for (position, element) in elements.enumerated() {
        if (seed + position) % 5 == 0 { w.noise(seed + position) }
        if (seed + position) % 11 == 3 {
            w.append(record: "<private>")
            w.accounting.redacted += 1; w.accounting.selected += 1; w.accounting.records += 1
            logCodes.append((w.capture.count, "redactedMessage"))
            incomplete = true
        }
        if (seed + position) % 13 == 5 {
            let lossTime = w.timestamp().text
            let loss: [(String, JSON)] = [("eventType", JSON.string("lossEvent")), ("timestamp", JSON.string(lossTime)),
                                          ("eventMessage", JSON.string("lost 3 unreliable messages"))]
            w.capture.append(JSON.object(loss).description)
            w.accounting.lost += 1; w.accounting.records += 1
            logCodes.append((w.capture.count, "logLoss"))
            incomplete = true
        }
        if (seed + position) % 17 == 7 {
            w.append(record: "{\"type\":\"userPa")
            w.accounting.malformed += 1; w.accounting.selected += 1; w.accounting.records += 1
            logCodes.append((w.capture.count, "malformedMessage"))
            incomplete = true
        }
        // A member given as null counts as not given: left out here, filled in either way.
        var kept: [(String, JSON)] = []
        var givesID = false, givesAt = false
        for (name, value) in element {
            let named: String = name
            if named == "id" || named == "at" {
                if isNull(value) { continue }
                if named == "id" { givesID = true } else { givesAt = true }
            }
            kept.append((name, value))
        }
        let stamp: (text: String, ms: Int) = w.timestamp()
        w.clock -= 137 + seed % 50
        w.append(record: JSON.object(kept).description)
        w.accounting.selected += 1; w.accounting.records += 1; w.accounting.elements += 1
        let objectText = JSON.object(kept).description
        var prefix = ""
        if !givesID { prefix += "\"id\":\"line-" + String(w.capture.count) + "\"" }
        if !givesAt {
            let atText: String = atInSeconds ? secondsText(stamp.ms) : String(stamp.ms)
            prefix += (prefix.isEmpty ? "" : ",") + "\"at\":" + atText
        }
        expected.append(prefix.isEmpty ? objectText : "{" + prefix + (kept.isEmpty ? "" : ",") + String(objectText.dropFirst()))
    }
    if let tailValue = tail {
        let tailText = tailValue.description
        w.append(record: tailText)
        expected.append(tailText)
        w.accounting.selected += 1; w.accounting.records += 1
    }
    var otherProcessLine: Int?
    if seed % 4 == 1, w.accounting.selected > 0 {
        w.append(record: "{\"type\":\"userPaused\"}", process: 977)
        otherProcessLine = w.capture.count
        w.accounting.otherProcess += 1; w.accounting.records += 1
    }
    if seed % 2 == 1 { w.capture.append("{\"timestamp\":\"2026-12-06 10:") }  // cut when the capture was stopped
    var nonBlank = 0
    for line in w.capture where !line.isEmpty { nonBlank += 1 }
    w.accounting.lines = nonBlank
    w.accounting.notRecord = 1 + (seed % 2 == 1 ? 1 : 0)
    if w.accounting.records == 0 { logCodes.insert((line: 1, code: "notACapture"), at: 0) }
    if let otherLine = otherProcessLine {
        var position = 0
        for (index, entry) in logCodes.enumerated() where entry.line <= otherLine { position = index + 1 }
        logCodes.insert((line: otherLine, code: "otherProcess"), at: position)
    }

    let reference = run(NDJSONCheck(endpoint: endpoint, detail: .all, maxLineBytes: 1 << 20) { _ in Array("problem".utf8) },
                        Array(expected.map { $0 + "\n" }.joined().utf8), seed: seed)
    let checked = run(NDJSONCheck(endpoint: endpoint, detail: .all, maxLineBytes: 1 << 20, oslog: OSLogSelection()) { _ in
        Array("problem".utf8)
    }, Array(w.capture.joined(separator: seed % 3 == 1 ? "\r\n" : "\n").utf8), seed: seed)
    if case .rejected = reference.progress, case .rejected = checked.progress { return }
    guard case .end(let referenceVerdict) = reference.progress, case .end(let verdict) = checked.progress else {
        throw Broken(message: "oslog: ended with \(checked.progress), the NDJSON form with \(reference.progress)")
    }
    let referenceLines = lines(reference.output), checkedLines = lines(checked.output)
    try expect(referenceLines.count == checkedLines.count && referenceLines.dropLast() == checkedLines.dropLast(),
               "oslog: the step lines differ\n\(String(decoding: checked.output, as: UTF8.self))\nNDJSON form\n\(String(decoding: reference.output, as: UTF8.self))\ncapture\n\(w.capture.joined(separator: "\n"))")
    if referenceVerdict == NDJSONCheck.invalidVerdict {
        try expect(verdict == referenceVerdict && referenceLines.last == checkedLines.last, "oslog: a different problem")
        return
    }
    guard let summary = checkedLines.last.flatMap({ try? JSONReader.parse($0) }),
          let referenceSummary = referenceLines.last.flatMap({ try? JSONReader.parse($0) }) else {
        throw Broken(message: "oslog: no summary")
    }
    func text(_ document: JSONDocument, _ value: JSONValue?) -> String {
        guard let value else { return "absent" }
        var writer = JSONWriter(capacity: 64)
        writer.value(value, of: document)
        return String(decoding: writer.finish(), as: UTF8.self)
    }
    let names = referenceSummary.members(referenceSummary.root).compactMap { referenceSummary.string($0.key) }
    let checkedNames = summary.members(summary.root).compactMap { summary.string($0.key) }
    try expect(checkedNames == names + ["log"], "oslog: the summary's members \(checkedNames)")
    for name in names where !["verdict", "diagnostics", "diagnosticCount"].contains(name) {
        try expect(text(summary, summary.member(summary.root, named: name)) == text(referenceSummary, referenceSummary.member(referenceSummary.root, named: name)),
                   "oslog: the summary's \(name) differs")
    }
    // The log's diagnostics stand after the steps', in line order, before the request's.
    let referenceDiagnostics = referenceSummary.member(referenceSummary.root, "diagnostics").map { Array(referenceSummary.elements($0)) } ?? []
    let stepCount = referenceDiagnostics.prefix { !referenceSummary.isNull(referenceSummary.member($0, "index")!) }.count
    var expectedDiagnostics = referenceDiagnostics.map { text(referenceSummary, $0) }
    let logTexts = logCodes.map { entry in
        guard let diagnostic = summary.member(summary.root, "diagnostics").flatMap({ Array(summary.elements($0)) })?
            .first(where: { summary.member($0, "line").flatMap(summary.integer) == entry.line }) else { return "missing \(entry)" }
        return summary.member(diagnostic, "code").flatMap(summary.string) == entry.code ? text(summary, diagnostic) : "wrong code \(entry)"
    }
    expectedDiagnostics.insert(contentsOf: logTexts, at: stepCount)
    let diagnostics = summary.member(summary.root, "diagnostics").map { Array(summary.elements($0)) } ?? []
    try expect(diagnostics.map { text(summary, $0) } == expectedDiagnostics, "oslog: the diagnostics differ: \(logCodes)\n\(diagnostics.map { text(summary, $0) })\n\(expectedDiagnostics)")
    try expect(summary.member(summary.root, "diagnosticCount").flatMap(summary.integer)
                   == referenceSummary.member(referenceSummary.root, "diagnosticCount").flatMap(referenceSummary.integer).map { $0 + logCodes.count },
               "oslog: diagnosticCount")
    var log = JSONWriter(capacity: 256)
    log.beginObject()
    w.accounting.write(to: &log)
    log.endObject()
    try expect("{\"log\":" + text(summary, summary.member(summary.root, "log")) + "}" == String(decoding: log.finish(), as: UTF8.self),
               "oslog: the accounting \(text(summary, summary.member(summary.root, "log"))) \(w.accounting)")
    let staticCheck = names.contains("patternCheck") || names.contains("configCheck")
    let rule = referenceVerdict == "fail" ? "fail"
        : incomplete || (w.accounting.elements == 0 && !staticCheck) ? "inconclusive" : referenceVerdict
    try expect(verdict == rule && summary.member(summary.root, "verdict").flatMap(summary.string) == rule,
               "oslog: the verdict \(verdict), the rule says \(rule)")
}

private struct CaptureWriter {
    let seed: Int
    // 2026-12-06 00:00:00 -0700, in milliseconds since 1970.
    let midnight = 1_796_540_400_000 - 7 * 3_600_000
    var capture: [String] = ["Filtering the log data using \"category == \\\"DeviceOracle\\\"\""]
    var accounting = OSLogAccounting()
    var clock: Int

    init(seed: Int) {
        self.seed = seed
        clock = 36_000_000 + seed % 1_000 * 1_000
    }

    mutating func timestamp() -> (text: String, ms: Int) {
        clock += 137 + seed % 50
        let ms = clock % 1_000, s = clock / 1_000
        let text = "2026-12-06 " + two(s / 3_600) + ":" + two(s / 60 % 60) + ":" + two(s % 60) + "."
            + three(ms) + "\(seed % 1_000)".padding(toLength: 3, withPad: "0", startingAt: 0) + "-0700"
        return (text, midnight + clock)
    }

    mutating func record(_ message: String, eventType: String = "logEvent", category: String = "DeviceOracle",
                         subsystem: String = "com.example.app", process: Int = 412) -> String {
        let time = timestamp().text
        var members: [(String, JSON)] = []
        members.append(("timestamp", JSON.string(time)))
        members.append(("machTimestamp", JSON.int(1_234_567 + clock)))
        members.append(("bootUUID", JSON.string("B8A5E2B0-1B4C-4C8B-9F3A-6A1E0D4C2F10")))
        members.append(("eventType", JSON.string(eventType)))
        members.append(("messageType", JSON.string("Default")))
        members.append(("eventMessage", JSON.string(message)))
        members.append(("formatString", JSON.string("%{public}s")))
        members.append(("subsystem", JSON.string(subsystem)))
        members.append(("category", JSON.string(category)))
        members.append(("processID", JSON.int(process)))
        members.append(("processImagePath", JSON.string("/private/var/containers/Bundle/Application/App.app/App")))
        members.append(("senderImagePath", JSON.string("/usr/lib/libDeviceOracleRecorder.dylib")))
        members.append(("threadID", JSON.int(9_001 + clock % 7)))
        members.append(("traceID", JSON.number("18446744073709551615")))
        members.append(("activityIdentifier", JSON.int(0)))
        members.append(("timezoneName", JSON.string("")))
        members.append(("source", JSON.null))
        return JSON.object(members).description
    }

    mutating func append(record message: String, process: Int = 412) {
        let line = record(message, process: process)
        capture.append(line)
    }

    mutating func noise(_ kind: Int) {
        switch kind % 4 {
        case 0:
            let line = record("GET /feed 200", category: "Network")
            capture.append(line)
            accounting.notSelected += 1
        case 1:
            let line = record("", eventType: ["stateEvent", "activityCreateEvent", "signpostEvent", "timesyncEvent"][kind % 3])
            capture.append(line)
            accounting.notLogEvent += 1
        case 2:
            let line = record("{\"type\":\"userPaused\"}", category: "DeviceOracle2")
            capture.append(line)
            accounting.notSelected += 1
        default:
            capture.append("")
            return
        }
        accounting.records += 1
    }
}

private func isNull(_ value: JSON) -> Bool {
    if case .null = value { return true }
    return false
}

private func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
private func three(_ value: Int) -> String { value < 10 ? "00\(value)" : value < 100 ? "0\(value)" : "\(value)" }

/// Milliseconds as a canonical number of seconds.
private func secondsText(_ ms: Int) -> String {
    var writer = JSONWriter(capacity: 32)
    writer.number(thousandths: ms)
    return String(decoding: writer.finish(), as: UTF8.self)
}

private func lines(_ output: [UInt8]) -> [[UInt8]] {
    output.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).dropLast().map(Array.init)
}

private func run(_ check: NDJSONCheck, _ bytes: [UInt8], seed: Int) -> (output: [UInt8], progress: NDJSONCheck.Progress) {
    var output: [UInt8] = []
    var offset = 0
    let piece = 1 + seed % 89
    var progress = NDJSONCheck.Progress.more(completedLine: false)
    while offset < bytes.count {
        let end = min(offset + piece, bytes.count)
        progress = bytes[offset..<end].withUnsafeBytes { check.receive($0, output: &output) }
        if case .begin = progress { progress = check.receive(UnsafeRawBufferPointer(start: nil, count: 0), output: &output) }
        if case .end = progress { return (output, progress) }
        if case .rejected = progress { return (output, progress) }
        offset = end
    }
    progress = check.finish(output: &output)
    if case .begin = progress { progress = check.finish(output: &output) }
    return (output, progress)
}
