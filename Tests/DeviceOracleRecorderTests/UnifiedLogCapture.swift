import Foundation

/// What `log stream --style ndjson` prints for messages an app logged through
/// `os.Logger` with `.public`: the `Filtering the log data …` line, then one record
/// per message, every field the log tool writes, in its order. Records of the same
/// capture share a process and thread; timestamps advance by `interval` seconds.
struct UnifiedLogCapture {
    var subsystem = "com.example.player"
    var category = "DeviceOracle"
    var processID = 4211
    var threadID = 1_812_644
    var processImagePath = "/private/var/containers/Bundle/Application/5E1D6C0A-1D2B-4C44-9F4A-8B1E2A7C3D10/Player.app/Player"
    var bootUUID = "9A1C6E5B-3F0D-4E7A-B2C8-6D4F1E0A9B37"
    var timezoneName = ""
    /// `2026-12-06 10:23:01.442117-0700`, in microseconds of that day.
    var firstMicroseconds = ((10 * 60 + 23) * 60 + 1) * 1_000_000 + 442_117
    var interval = 0.5
    var firstMachTimestamp: UInt64 = 1_143_829_775_012
    var firstTraceID: UInt64 = 18_446_744_073_709_551_615 - 4_096  // up to 2^64−1, as the log writes them

    /// The whole capture: the header line, then one record per message, LF-terminated.
    func ndjson(_ messages: [String]) -> String {
        var lines = ["Filtering the log data using \"category == \"\(category)\"\""]
        for (index, message) in messages.enumerated() { lines.append(record(message, index: index)) }
        return lines.map { $0 + "\n" }.joined()
    }

    /// Record `index` of the capture, for `message`.
    func record(_ message: String, index: Int) -> String {
        let micro = firstMicroseconds + Int(Double(index) * interval * 1_000_000)
        let mach = firstMachTimestamp + UInt64(Double(index) * interval * 24_000_000)
        let senderImagePath = processImagePath
        let fields: [(String, String)] = [
            ("traceID", String(firstTraceID + UInt64(index))),
            ("eventMessage", Self.quoted(message)),
            ("eventType", Self.quoted("logEvent")),
            ("source", "null"),
            ("formatString", Self.quoted("%{public}s")),
            ("activityIdentifier", "0"),
            ("subsystem", Self.quoted(subsystem)),
            ("category", Self.quoted(category)),
            ("threadID", String(threadID)),
            ("senderImageUUID", Self.quoted("0C4E8F1A-7B2D-3E9C-A5F6-1D8B4C2E7A90")),
            ("backtrace", #"{"frames":[{"imageOffset":48712,"imageUUID":"0C4E8F1A-7B2D-3E9C-A5F6-1D8B4C2E7A90"}]}"#),
            ("bootUUID", Self.quoted(bootUUID)),
            ("processImagePath", Self.quoted(processImagePath)),
            ("timestamp", Self.quoted(Self.timestamp(microsecondsOfDay: micro))),
            ("senderImagePath", Self.quoted(senderImagePath)),
            ("machTimestamp", String(mach)),
            ("messageType", Self.quoted("Default")),
            ("processImageUUID", Self.quoted("0C4E8F1A-7B2D-3E9C-A5F6-1D8B4C2E7A90")),
            ("processID", String(processID)),
            ("senderProgramCounter", "48712"),
            ("parentActivityIdentifier", "0"),
            ("timezoneName", Self.quoted(timezoneName)),
        ]
        return "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }

    /// `2026-12-06 HH:MM:SS.ffffff-0700`, as the log tool writes a local time.
    static func timestamp(microsecondsOfDay micro: Int) -> String {
        let seconds = micro / 1_000_000
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let fraction = String(micro % 1_000_000)
        return "2026-12-06 \(two(seconds / 3600)):\(two(seconds / 60 % 60)):\(two(seconds % 60))."
            + String(repeating: "0", count: 6 - fraction.count) + fraction + "-0700"
    }

    /// A JSON string as the log tool writes one (Foundation's JSON writer: `/` as `\/`).
    static func quoted(_ string: String) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: [string]),
              let array = String(data: data, encoding: .utf8) else { return "null" }
        return String(array.dropFirst().dropLast())
    }
}
