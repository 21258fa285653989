import CSyscalls
import DeviceOracleJSON
import Glibc
import Dispatch

package enum LogLevel: Int, Sendable, Comparable, CaseIterable {
    case debug, info, warn, error

    package init?(name: String) {
        switch name {
        case "debug": self = .debug
        case "info": self = .info
        case "warn": self = .warn
        case "error": self = .error
        default: return nil
        }
    }

    package var name: String {
        switch self {
        case .debug: "debug"
        case .info: "info"
        case .warn: "warn"
        case .error: "error"
        }
    }

    package static func < (a: LogLevel, b: LogLevel) -> Bool { a.rawValue < b.rawValue }
}

/// A value of a log line member.
package enum LogValue: Sendable {
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)
}

/// JSON lines on a file descriptor (stdout by default). Lines are written whole and
/// never interleave. Loops hand access lines over in batches (`enqueue`, no syscall);
/// a writer thread writes them within a few milliseconds, so a slow disk or pipe never
/// stalls a loop. Other lines are written at once, after whatever was queued.
/// Never give it request bodies, header values other than User-Agent, or query strings.
package final class Logger: Sendable {
    /// Queued bytes beyond this are dropped (and counted) rather than grow without bound.
    static let maxQueuedBytes = 16 << 20
    /// How long the writer waits after a wake-up, so one write carries many batches.
    static let batchDelayMicroseconds: UInt32 = 5000
    /// Capacity a buffer keeps for the next batch; one grown past it (a burst) is freed.
    static let retainedCapacity = 1 << 20

    private struct Queue {
        var bytes: [UInt8] = []
        var droppedLines = 0
        var writerStarted = false
    }

    /// Where lines go, and the buffer the queue's lines are swapped into to be written.
    /// The two buffers trade places on every write and keep their capacity: at 100k
    /// lines a second, a queue grown afresh for every batch was mapped, faulted in and
    /// unmapped each time, which cost more system time than the writes.
    private struct Output {
        let fileDescriptor: Int32
        var spare: [UInt8] = []
    }

    package let level: LogLevel
    private let queue = Locked(Queue())
    /// The output, held around `write` so batches reach it in the order they were taken.
    private let output: Locked<Output>
    private let wake = DispatchSemaphore(value: 0)

    package init(level: LogLevel = .info, fileDescriptor: Int32 = 1) {
        self.level = level
        output = Locked(Output(fileDescriptor: fileDescriptor))
    }

    /// Access lines are `info`: `--log-level warn` drops them.
    package var logsAccess: Bool { level <= .info }

    package func log(_ level: LogLevel, _ message: String, _ fields: [(String, LogValue)] = []) {
        guard level >= self.level else { return }
        emit(level, message, fields)
    }

    /// Writes a line whatever the level (the startup line: tests and operators rely on it).
    package func emit(_ level: LogLevel, _ message: String, _ fields: [(String, LogValue)]) {
        var writer = JSONWriter(capacity: 256)
        writer.beginObject()
        writer.key("ts")
        writer.raw([0x22] + Timestamps.rfc3339(unixMilliseconds: Int(csyscalls_wall_ms())) + [0x22])
        writer.key("level")
        writer.string(escaping: level.name)
        writer.key("msg")
        writer.string(escaping: message)
        for (name, value) in fields {
            writer.key(escaping: name)
            switch value {
            case .string(let text): writer.string(escaping: text)
            case .int(let number): writer.integer(number)
            case .double(let number): writer.number(number)
            case .bool(let flag): writer.bool(flag)
            }
        }
        writer.endObject()
        var line = writer.bytes
        line.append(0x0A)
        enqueue(line, lineCount: 1)
        flush()
    }

    /// Queues complete lines (each ending in LF) for the writer thread.
    func enqueue(_ lines: [UInt8], lineCount: Int) {
        let startWriter: Bool = queue.withLock { queue in
            let wasEmpty = queue.bytes.isEmpty
            if queue.bytes.count + lines.count > Self.maxQueuedBytes {
                queue.droppedLines += lineCount
                return false
            }
            queue.bytes.append(contentsOf: lines)
            if wasEmpty && queue.writerStarted { wake.signal() }
            if queue.writerStarted { return false }
            queue.writerStarted = true
            return true
        }
        if startWriter { startWriterThread() }
    }

    /// Writes everything queued so far, in this thread.
    package func flush() {
        output.withLock { output in
            var lines: [UInt8] = []
            swap(&lines, &output.spare)
            let dropped = queue.withLock { queue in
                swap(&lines, &queue.bytes)
                defer { queue.droppedLines = 0 }
                return queue.droppedLines
            }
            write(lines, to: output.fileDescriptor)
            if dropped > 0 {
                write(Array(#"{"level":"warn","msg":"log lines dropped: output too slow","dropped":\#(dropped)}"#.utf8) + [0x0A], to: output.fileDescriptor)
            }
            lines.removeAll(keepingCapacity: lines.capacity <= Self.retainedCapacity)
            output.spare = lines
        }
    }

    private func write(_ lines: [UInt8], to fileDescriptor: Int32) {
        lines.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(fileDescriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else {
                    return  // a closed stdout must not stop the server
                }
            }
        }
    }

    private func startWriterThread() {
        let wake = self.wake
        weak let logger = self
        startThread {
            while true {
                _ = wake.wait(timeout: .now() + 1)
                usleep(Self.batchDelayMicroseconds)
                guard let logger else { return }
                logger.flush()
            }
        }
    }
}
