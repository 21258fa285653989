import CSyscalls
import DeviceOracleJSON
import Glibc
import Synchronization

public enum LogLevel: Int, Sendable, Comparable, CaseIterable {
    case debug, info, warn, error

    public init?(name: String) {
        switch name {
        case "debug": self = .debug
        case "info": self = .info
        case "warn": self = .warn
        case "error": self = .error
        default: return nil
        }
    }

    public var name: String {
        switch self {
        case .debug: "debug"
        case .info: "info"
        case .warn: "warn"
        case .error: "error"
        }
    }

    public static func < (a: LogLevel, b: LogLevel) -> Bool { a.rawValue < b.rawValue }
}

/// A value of a log line member.
public enum LogValue: Sendable {
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)
}

/// JSON lines on a file descriptor (stdout by default). Lines are written whole, one
/// `write` per batch under a process-wide lock, so lines of different loops never mix.
/// Never give it request bodies, header values other than User-Agent, or query strings.
public final class Logger: Sendable {
    public let level: LogLevel
    private let output: Mutex<Int32>

    public init(level: LogLevel = .info, fileDescriptor: Int32 = 1) {
        self.level = level
        output = Mutex(fileDescriptor)
    }

    /// Access lines are `info`: `--log-level warn` drops them.
    public var logsAccess: Bool { level <= .info }

    public func log(_ level: LogLevel, _ message: String, _ fields: [(String, LogValue)] = []) {
        guard level >= self.level else { return }
        emit(level, message, fields)
    }

    /// Writes a line whatever the level (the startup line: tests and operators rely on it).
    public func emit(_ level: LogLevel, _ message: String, _ fields: [(String, LogValue)]) {
        var writer = JSONWriter(capacity: 256)
        writer.beginObject()
        writer.key("ts")
        writer.raw(quoted(Timestamps.rfc3339(unixMilliseconds: Int(csyscalls_wall_ms()))))
        writer.key("level")
        writer.string(level.name)
        writer.key("msg")
        writer.string(message)
        for (name, value) in fields {
            writer.key(name)
            switch value {
            case .string(let text): writer.string(text)
            case .int(let number): writer.integer(number)
            case .double(let number): writer.number(number)
            case .bool(let flag): writer.bool(flag)
            }
        }
        writer.endObject()
        var line = writer.bytes
        line.append(0x0A)
        write(line)
    }

    /// Writes complete lines (each ending in LF) in one piece.
    func write(_ lines: [UInt8]) {
        output.withLock { fd in
            lines.withUnsafeBytes { bytes in
                var offset = 0
                while offset < bytes.count {
                    let written = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
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
    }

    private func quoted(_ bytes: [UInt8]) -> [UInt8] {
        [0x22] + bytes + [0x22]
    }
}
