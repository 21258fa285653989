import DeviceOracleWire
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

    /// One flag: its name, the name of its value, its environment variable, what it
    /// means, its member of the startup line, and how a value is applied. `--help`,
    /// the startup line and docs/operations.md (which shows `--help`) all come from this.
    struct Setting: Sendable {
        let flag: String
        let value: String
        let variable: String
        let logKey: String
        let meaning: String
        /// The value in effect, as the startup line writes it.
        let current: @Sendable (ServeOptions) -> LogValue
        /// The default as `--help` shows it, when it is not simply the value of `ServeOptions()`.
        var defaultText: String? = nil
        let apply: @Sendable (inout ServeOptions, String) throws(UsageError) -> Void
    }

    static let settings: [Setting] = [
        Setting(flag: "--host", value: "HOST", variable: "HOST", logKey: "host",
                meaning: "the host name or address to listen on (:: for IPv6)",
                current: { .string($0.configuration.host) }) { options, value throws(UsageError) in
            guard !value.isEmpty, value.allSatisfy({ $0.isASCII && !$0.isWhitespace }) else {
                throw invalid(value, "--host", "HOST", "expected a host name or address")
            }
            options.configuration.host = value
        },
        Setting(flag: "--port", value: "N", variable: "PORT", logKey: "port",
                meaning: "the TCP port, 0 to 65535; 0 binds an ephemeral one, named in the startup line",
                current: { .int($0.configuration.port) }) { options, value throws(UsageError) in
            options.configuration.port = try integer(value, "--port", "PORT", in: 0...65535)
        },
        Setting(flag: "--max-body-bytes", value: "N", variable: "MAX_BODY_BYTES", logKey: "maxBodyBytes",
                meaning: "the largest JSON body, 1 to 2^40 (413 beyond)",
                current: { .int($0.configuration.maxBodyBytes) }) { options, value throws(UsageError) in
            options.configuration.maxBodyBytes = try integer(value, "--max-body-bytes", "MAX_BODY_BYTES", in: 1...(1 << 40))
        },
        Setting(flag: "--max-stream-bytes", value: "N", variable: "MAX_STREAM_BYTES", logKey: "maxStreamBytes",
                meaning: "the largest body handled as it arrives (NDJSON), 1 to 2^50",
                current: { .int($0.configuration.maxStreamBytes) }) { options, value throws(UsageError) in
            options.configuration.maxStreamBytes = try integer(value, "--max-stream-bytes", "MAX_STREAM_BYTES", in: 1...(1 << 50))
        },
        Setting(flag: "--max-line-bytes", value: "N", variable: "MAX_LINE_BYTES", logKey: "maxLineBytes",
                meaning: "the longest line of an NDJSON body, 1 to 2^30",
                current: { .int($0.maxLineBytes) }) { options, value throws(UsageError) in
            options.maxLineBytes = try integer(value, "--max-line-bytes", "MAX_LINE_BYTES", in: 1...(1 << 30))
        },
        Setting(flag: "--max-connections", value: "N", variable: "MAX_CONNECTIONS", logKey: "maxConnections",
                meaning: "connections open at once, 1 to 1000000; more get 503 at once",
                current: { .int($0.configuration.maxConnections) }) { options, value throws(UsageError) in
            options.configuration.maxConnections = try integer(value, "--max-connections", "MAX_CONNECTIONS", in: 1...1_000_000)
        },
        Setting(flag: "--worker-threads", value: "N", variable: "WORKER_THREADS", logKey: "workerThreads",
                meaning: "threads for handlers of bodies over 64 KiB, 1 to 1024; more wait in a queue the memory budget bounds",
                current: { .int($0.configuration.workerThreads) }, defaultText: "the CPUs") { options, value throws(UsageError) in
            options.configuration.workerThreads = try integer(value, "--worker-threads", "WORKER_THREADS", in: 1...1024)
        },
        Setting(flag: "--header-timeout", value: "SECONDS", variable: "HEADER_TIMEOUT", logKey: "headerTimeout",
                meaning: "time for a request's head, from its first byte (408)",
                current: { .double($0.configuration.headerTimeout) }) { options, value throws(UsageError) in
            options.configuration.headerTimeout = try seconds(value, "--header-timeout", "HEADER_TIMEOUT")
        },
        Setting(flag: "--body-timeout", value: "SECONDS", variable: "BODY_TIMEOUT", logKey: "bodyTimeout",
                meaning: "time without progress while a body arrives (408)",
                current: { .double($0.configuration.bodyTimeout) }) { options, value throws(UsageError) in
            options.configuration.bodyTimeout = try seconds(value, "--body-timeout", "BODY_TIMEOUT")
        },
        Setting(flag: "--send-timeout", value: "SECONDS", variable: "SEND_TIMEOUT", logKey: "sendTimeout",
                meaning: "time without progress while an answer is sent (then closed)",
                current: { .double($0.configuration.sendTimeout) }) { options, value throws(UsageError) in
            options.configuration.sendTimeout = try seconds(value, "--send-timeout", "SEND_TIMEOUT")
        },
        Setting(flag: "--idle-timeout", value: "SECONDS", variable: "IDLE_TIMEOUT", logKey: "idleTimeout",
                meaning: "how long an idle keep-alive connection is kept",
                current: { .double($0.configuration.idleTimeout) }) { options, value throws(UsageError) in
            options.configuration.idleTimeout = try seconds(value, "--idle-timeout", "IDLE_TIMEOUT")
        },
        Setting(flag: "--min-rate", value: "BYTES", variable: "MIN_RATE", logKey: "minRate",
                meaning: "bytes per second a request must average after its grace (408); 0: off",
                current: { .double($0.configuration.minReceiveRate) }) { options, value throws(UsageError) in
            let plain = value.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || $0 == UInt8(ascii: ".") }
            guard plain, let rate = Double(value), rate <= 1e12 else {
                throw invalid(value, "--min-rate", "MIN_RATE", "expected bytes per second, a number of at least 0 (0 turns the rule off)")
            }
            options.configuration.minReceiveRate = rate
        },
        Setting(flag: "--min-rate-grace", value: "SECONDS", variable: "MIN_RATE_GRACE", logKey: "minRateGrace",
                meaning: "how long a request may take before --min-rate applies",
                current: { .double($0.configuration.minReceiveRateGrace) }) { options, value throws(UsageError) in
            options.configuration.minReceiveRateGrace = try seconds(value, "--min-rate-grace", "MIN_RATE_GRACE")
        },
        Setting(flag: "--max-memory-bytes", value: "N", variable: "MAX_MEMORY_BYTES", logKey: "maxMemoryBytes",
                meaning: "what bodies, their work and answers in flight may hold, 1 MiB to 2^50 (default: half the cgroup's memory limit)",
                current: { .int($0.configuration.maxMemoryBytes) },
                defaultText: "cgroup/2, else 536870912") { options, value throws(UsageError) in
            options.configuration.maxMemoryBytes = try integer(value, "--max-memory-bytes", "MAX_MEMORY_BYTES", in: (1 << 20)...(1 << 50))
            options.memoryBudgetSource = "flag"
        },
        Setting(flag: "--memory-wait", value: "SECONDS", variable: "MEMORY_WAIT", logKey: "memoryWait",
                meaning: "how long a request the budget cannot fit waits before its 503",
                current: { .double($0.configuration.memoryWait) }) { options, value throws(UsageError) in
            options.configuration.memoryWait = try seconds(value, "--memory-wait", "MEMORY_WAIT")
        },
        Setting(flag: "--log-level", value: "LEVEL", variable: "LOG_LEVEL", logKey: "logLevel",
                meaning: "debug, info, warn (no access lines) or error",
                current: { .string($0.logLevel.name) }) { options, value throws(UsageError) in
            guard let level = LogLevel(name: value) else {
                throw invalid(value, "--log-level", "LOG_LEVEL", "expected debug, info, warn or error")
            }
            options.logLevel = level
        },
        Setting(flag: "--metrics", value: "on|off", variable: "METRICS", logKey: "metrics",
                meaning: "on: count requests and serve GET /metrics; off: neither",
                current: { .bool($0.configuration.metrics) }) { options, value throws(UsageError) in
            switch value {
            case "on": options.configuration.metrics = true
            case "off": options.configuration.metrics = false
            default: throw invalid(value, "--metrics", "METRICS", "expected on or off")
            }
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

/// The command line's one description: every subcommand, its arguments and each flag's
/// value, default and meaning. `--help` prints it; each command's usage error line is its
/// synopsis; docs/operations.md shows `--help` and CI compares the two (.ci/help-page).
/// `serve`'s flags are `ServeOptions.settings` themselves.
enum CommandLineHelp {
    struct Flag {
        let name: String
        /// The value's name, or "" for a flag that takes none.
        let value: String
        let variable: String?
        let defaultText: String
        let meaning: String
    }

    struct Command {
        let name: String
        /// What comes before the flags: `<ruleset> [FILE|-]`.
        let arguments: String
        let summary: String
        let flags: [Flag]

        var synopsis: String {
            (["device-oracle", name, arguments] + flags.map { $0.value.isEmpty ? "[\($0.name)]" : "[\($0.name) \($0.value)]" })
                .filter { !$0.isEmpty }.joined(separator: " ")
        }
    }

    static let serve = Command(
        name: "serve", arguments: "", summary: """
            Answers HTTP until SIGTERM or SIGINT (the default command). Each flag also reads its
            environment variable; a flag wins. Flags take --flag VALUE or --flag=VALUE; numbers are
            plain decimals, and SECONDS above 0 and at most 86400, fractions allowed.
            """,
        flags: ServeOptions.settings.map { setting in
            Flag(name: setting.flag, value: setting.value, variable: setting.variable,
                 defaultText: setting.defaultText ?? text(of: setting.current(ServeOptions())), meaning: setting.meaning)
        })

    static let formatFlag = Flag(name: "--format", value: "json|xctest|swift-testing", variable: nil, defaultText: "json",
                                 meaning: "the JSON answer, or a Swift file of tests (XCTest or Swift Testing)")

    static let check = Command(
        name: "check", arguments: "<ruleset> [FILE|-]", summary: """
            Checks one request body (FILE, or standard input for - or none) offline and prints the
            endpoint's answer. Exit 0 pass or unchecked, 1 fail, 2 bad input (its problem on stderr),
            3 inconclusive (--from oslog).
            """,
        flags: [
            Flag(name: "--steps", value: "all|failing|none", variable: nil, defaultText: "all",
                 meaning: "which steps the answer lists (the endpoint's ?steps=)"),
            Flag(name: "--ndjson", value: "", variable: nil, defaultText: "off",
                 meaning: "the body is the NDJSON form, answered line by line as it is read"),
            Flag(name: "--from", value: "oslog", variable: nil, defaultText: "off",
                 meaning: "the body is a unified-log capture (log stream --style ndjson), read as it arrives"),
            Flag(name: "--category", value: "C", variable: nil, defaultText: "DeviceOracle",
                 meaning: "with --from oslog: the category of the app's messages"),
            Flag(name: "--subsystem", value: "S", variable: nil, defaultText: "any",
                 meaning: "with --from oslog: the subsystem of the app's messages"),
        ])

    static let checkJUnit = Command(
        name: "check", arguments: "--junit REPORT.xml FILE...", summary: """
            Checks many request bodies, each naming its ruleset ("ruleset": "playback/1"), writes a
            JUnit report and prints a summary. Exit 0, 1 if a case failed, 2 if a file is unreadable
            or a case's request is invalid.
            """,
        flags: [])

    static let plan = Command(
        name: "plan", arguments: "<ruleset>", summary: """
            Prints a model-based test plan (what POST /rulesets/<ruleset>/plan answers). Exit 0, 2 bad
            arguments.
            """,
        flags: [
            Flag(name: "--coverage", value: "transitions|random", variable: nil, defaultText: "transitions",
                 meaning: "every transition in the fewest steps, or random walks"),
            Flag(name: "--max-length", value: "N", variable: nil, defaultText: "1000 (random: 20)",
                 meaning: "the longest sequence, 1 to 1000"),
            Flag(name: "--seed", value: "S", variable: nil, defaultText: "0",
                 meaning: "a random plan's seed, 0 to 2^53-1"),
            Flag(name: "--count", value: "K", variable: nil, defaultText: "1",
                 meaning: "a random plan's number of walks, 1 to 10"),
            formatFlag,
        ])

    static let repro = Command(
        name: "repro", arguments: "<ruleset> [FILE|-]", summary: """
            Prints the shortest request that fails as a failing log's first mismatch does (what
            POST /rulesets/<ruleset>/repro answers). Exit 0, 1 nothing to reproduce, 2 bad input.
            """,
        flags: [
            Flag(name: "--ndjson", value: "", variable: nil, defaultText: "off",
                 meaning: "the log is the NDJSON form"),
            formatFlag,
        ])

    static let healthcheck = Command(
        name: "healthcheck", arguments: "", summary: """
            Sends GET /healthz to 127.0.0.1 (for a container's HEALTHCHECK). Exit 0 on 200, else 1;
            2 for a bad port.
            """,
        flags: [
            Flag(name: "--port", value: "N", variable: "PORT", defaultText: "8080", meaning: "the port the server listens on"),
        ])

    /// The registry's names, as <ruleset> takes them: every version, and each short name.
    static let rulesets = Command(
        name: "rulesets", arguments: "", summary: """
            Prints the rulesets this build serves, a version a line as NAME PATH, newest version
            first (what GET /rulesets lists): \(Rulesets.registry.all.map(\.name).joined(separator: ", ")).
            <ruleset> is a NAME, or without its version the newest.
            """,
        flags: [])

    static let commands = [serve, check, checkJUnit, plan, repro, rulesets, healthcheck]

    /// What `--help` prints.
    static func text(version: String) -> String {
        var lines = ["device-oracle \(version): an HTTP test oracle for iOS device behaviour.", "", "Usage:"]
        lines.append("  device-oracle [serve] [FLAG VALUE]...")
        lines += commands.dropFirst().map { "  " + $0.synopsis }
        lines.append("  device-oracle --version | --help")
        for command in commands {
            lines.append("")
            let title = command.name + (command.arguments.hasPrefix("--") ? " " + command.arguments : "")
            lines.append("\(title):")
            lines += command.summary.split(separator: "\n").map { "  " + $0 }
            guard !command.flags.isEmpty else { continue }
            let withVariables = command.flags.contains { $0.variable != nil }
            var rows = [["FLAG", withVariables ? "VARIABLE" : nil, "DEFAULT", "MEANING"].compactMap { $0 }]
            for flag in command.flags {
                let name = flag.value.isEmpty ? flag.name : flag.name + " " + flag.value
                rows.append([name, withVariables ? flag.variable ?? "" : nil, flag.defaultText, flag.meaning].compactMap { $0 })
            }
            let widths = (0..<rows[0].count - 1).map { column in rows.map { $0[column].count }.max() ?? 0 }
            for row in rows {
                var line = "  "
                for (column, cell) in row.enumerated() {
                    line += column < widths.count ? cell + String(repeating: " ", count: widths[column] - cell.count + 2) : cell
                }
                lines.append(line)
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A value as a flag would take it: `10` for 10.0 seconds, `on` for true.
    static func text(of value: LogValue) -> String {
        switch value {
        case .string(let string): string
        case .int(let number): String(number)
        case .double(let number): number == number.rounded() && abs(number) < 1e15 ? String(Int(number)) : String(number)
        case .bool(let flag): flag ? "on" : "off"
        }
    }
}
