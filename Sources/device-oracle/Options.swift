import DeviceOracleHTTP

/// A bad command line or environment value: one line on stderr, exit 2.
struct UsageError: Error {
    let message: String
}

/// `serve`'s settings from flags and environment variables; a flag wins over its variable.
struct ServeOptions {
    var configuration = ServerConfiguration()
    var logLevel = LogLevel.info
    /// The longest line of an NDJSON body (streaming.md).
    var maxLineBytes = NDJSONRequest.defaultMaxLineBytes
    /// Where `maxMemoryBytes` came from, for the startup line: the flag (or its
    /// variable), the cgroup's limit, or the fixed default.
    var memoryBudgetSource = MemoryBudget.defaultLimit.source

    /// One flag: its name, its environment variable, and how a value is applied.
    private struct Setting: Sendable {
        let flag: String
        let variable: String
        let apply: @Sendable (inout ServeOptions, String) throws(UsageError) -> Void
    }

    private static let settings: [Setting] = [
        Setting(flag: "--host", variable: "HOST") { options, value throws(UsageError) in
            guard !value.isEmpty, value.allSatisfy({ $0.isASCII && !$0.isWhitespace }) else {
                throw invalid(value, "--host", "HOST", "expected a host name or address")
            }
            options.configuration.host = value
        },
        Setting(flag: "--port", variable: "PORT") { options, value throws(UsageError) in
            options.configuration.port = try integer(value, "--port", "PORT", in: 0...65535)
        },
        Setting(flag: "--max-body-bytes", variable: "MAX_BODY_BYTES") { options, value throws(UsageError) in
            options.configuration.maxBodyBytes = try integer(value, "--max-body-bytes", "MAX_BODY_BYTES", in: 1...(1 << 40))
        },
        Setting(flag: "--max-stream-bytes", variable: "MAX_STREAM_BYTES") { options, value throws(UsageError) in
            options.configuration.maxStreamBytes = try integer(value, "--max-stream-bytes", "MAX_STREAM_BYTES", in: 1...(1 << 50))
        },
        Setting(flag: "--max-line-bytes", variable: "MAX_LINE_BYTES") { options, value throws(UsageError) in
            options.maxLineBytes = try integer(value, "--max-line-bytes", "MAX_LINE_BYTES", in: 1...(1 << 30))
        },
        Setting(flag: "--max-connections", variable: "MAX_CONNECTIONS") { options, value throws(UsageError) in
            options.configuration.maxConnections = try integer(value, "--max-connections", "MAX_CONNECTIONS", in: 1...1_000_000)
        },
        Setting(flag: "--header-timeout", variable: "HEADER_TIMEOUT") { options, value throws(UsageError) in
            options.configuration.headerTimeout = try seconds(value, "--header-timeout", "HEADER_TIMEOUT")
        },
        Setting(flag: "--body-timeout", variable: "BODY_TIMEOUT") { options, value throws(UsageError) in
            options.configuration.bodyTimeout = try seconds(value, "--body-timeout", "BODY_TIMEOUT")
        },
        Setting(flag: "--send-timeout", variable: "SEND_TIMEOUT") { options, value throws(UsageError) in
            options.configuration.sendTimeout = try seconds(value, "--send-timeout", "SEND_TIMEOUT")
        },
        Setting(flag: "--idle-timeout", variable: "IDLE_TIMEOUT") { options, value throws(UsageError) in
            options.configuration.idleTimeout = try seconds(value, "--idle-timeout", "IDLE_TIMEOUT")
        },
        Setting(flag: "--min-rate", variable: "MIN_RATE") { options, value throws(UsageError) in
            let plain = value.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || $0 == UInt8(ascii: ".") }
            guard plain, let rate = Double(value), rate <= 1e12 else {
                throw invalid(value, "--min-rate", "MIN_RATE", "expected bytes per second, a number of at least 0 (0 turns the rule off)")
            }
            options.configuration.minReceiveRate = rate
        },
        Setting(flag: "--min-rate-grace", variable: "MIN_RATE_GRACE") { options, value throws(UsageError) in
            options.configuration.minReceiveRateGrace = try seconds(value, "--min-rate-grace", "MIN_RATE_GRACE")
        },
        Setting(flag: "--max-memory-bytes", variable: "MAX_MEMORY_BYTES") { options, value throws(UsageError) in
            options.configuration.maxMemoryBytes = try integer(value, "--max-memory-bytes", "MAX_MEMORY_BYTES", in: (1 << 20)...(1 << 50))
            options.memoryBudgetSource = "flag"
        },
        Setting(flag: "--memory-wait", variable: "MEMORY_WAIT") { options, value throws(UsageError) in
            options.configuration.memoryWait = try seconds(value, "--memory-wait", "MEMORY_WAIT")
        },
        Setting(flag: "--metrics", variable: "METRICS") { options, value throws(UsageError) in
            switch value {
            case "on": options.configuration.metrics = true
            case "off": options.configuration.metrics = false
            default: throw invalid(value, "--metrics", "METRICS", "expected on or off")
            }
        },
        Setting(flag: "--log-level", variable: "LOG_LEVEL") { options, value throws(UsageError) in
            guard let level = LogLevel(name: value) else {
                throw invalid(value, "--log-level", "LOG_LEVEL", "expected debug, info, warn or error")
            }
            options.logLevel = level
        },
    ]

    /// Parses `serve`'s arguments (without the subcommand) over the environment.
    static func parse(_ arguments: [String], environment: [String: String]) throws(UsageError) -> ServeOptions {
        let flagValues = try flags(arguments, known: settings.map(\.flag))
        var options = ServeOptions()
        for setting in settings {
            if let value = flagValues[setting.flag] {
                try setting.apply(&options, value)
            } else if let value = environment[setting.variable] {
                try setting.apply(&options, value)
            }
        }
        return options
    }

    /// `--flag value` and `--flag=value` pairs; an unknown flag or a missing value is an error.
    static func flags(_ arguments: [String], known: [String]) throws(UsageError) -> [String: String] {
        var values: [String: String] = [:]
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            var name = argument
            var value: String?
            if let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                value = String(argument[argument.index(after: equals)...])
            }
            guard known.contains(name) else {
                throw UsageError(message: "unknown argument '\(argument)' (see device-oracle --help)")
            }
            if value == nil {
                index += 1
                guard index < arguments.count else { throw UsageError(message: "\(name) needs a value") }
                value = arguments[index]
            }
            values[name] = value
            index += 1
        }
        return values
    }

    private static func invalid(_ value: String, _ flag: String, _ variable: String, _ expected: String) -> UsageError {
        UsageError(message: "invalid value '\(value)' for \(flag) (\(variable)): \(expected)")
    }

    private static func integer(_ value: String, _ flag: String, _ variable: String,
                                in range: ClosedRange<Int>) throws(UsageError) -> Int {
        guard value.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let number = Int(value), range.contains(number) else {
            throw invalid(value, flag, variable, "expected an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    private static func seconds(_ value: String, _ flag: String, _ variable: String) throws(UsageError) -> Double {
        let plain = value.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || $0 == UInt8(ascii: ".") }
        guard plain, let number = Double(value), number > 0, number <= 86400 else {
            throw invalid(value, flag, variable, "expected seconds, a number above 0 and at most 86400 (fractions allowed)")
        }
        return number
    }
}
