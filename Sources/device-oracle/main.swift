import DeviceOracleHTTP
import Glibc

/// The release: the same in `openapi.yaml`'s `info.version`, README and the startup line
/// (EndToEndTests.testOneVersionEverywhere); a release is tagged `v` + this on main.
let deviceOracleVersion = "1.0.0"

let usage = """
    device-oracle \(deviceOracleVersion): an HTTP test oracle for iOS device behaviour.

    Usage:
      device-oracle [serve] [--host 0.0.0.0] [--port 8080] [--max-body-bytes 8388608]
                            [--max-stream-bytes 68719476736] [--max-line-bytes 1048576] [--max-connections 10000] [--header-timeout 10] [--body-timeout 30]
                            [--send-timeout 30] [--idle-timeout 60] [--min-rate 1024]
                            [--min-rate-grace 5] [--max-memory-bytes N] [--memory-wait 10]
                            [--log-level info] [--metrics on]
      device-oracle check <ruleset> [FILE|-] [--steps all|failing|none]
                                                run one request body offline; exit 0 pass/unchecked,
                                                1 fail, 2 bad input
      device-oracle check --junit REPORT.xml FILE...
                                                check many request bodies, each naming its ruleset
                                                ("ruleset": "playback/1"); write a JUnit report, print
                                                a summary; exit 0, 1 if a case failed, 2 if a file is
                                                unreadable or a case's request is invalid
      device-oracle plan <ruleset> [--coverage transitions|random] [--max-length N]
                                   [--seed S] [--count K]
                                                print a model-based test plan (the JSON of
                                                POST /rulesets/<ruleset>/plan); exit 0, 2 bad arguments
      device-oracle repro <ruleset> [FILE|-] [--ndjson]
                                                the shortest request that fails as a failing log's
                                                first mismatch does (the JSON of
                                                POST /rulesets/<ruleset>/repro); exit 0, 1 nothing
                                                to reproduce, 2 bad input
      device-oracle healthcheck [--port 8080]   GET /healthz on 127.0.0.1; exit 0 if 200, else 1
      device-oracle --version | --help

    serve is the default. Every serve flag also reads an environment variable (a flag wins):
      HOST, PORT, MAX_BODY_BYTES, MAX_STREAM_BYTES, MAX_CONNECTIONS, HEADER_TIMEOUT, BODY_TIMEOUT,
      SEND_TIMEOUT, IDLE_TIMEOUT, MIN_RATE, MIN_RATE_GRACE, MAX_MEMORY_BYTES, MEMORY_WAIT,
      LOG_LEVEL (debug, info, warn, error), METRICS (on: GET /metrics counts requests; off).
    Timeouts are seconds and may be fractional. --min-rate: bytes per second a request must
    average after its first --min-rate-grace seconds (0: off). --max-memory-bytes: what request
    bodies, their work and answers in flight may hold (default: half the cgroup's memory limit,
    else 512 MiB); a request that does not fit waits up to --memory-wait seconds, then gets 503. --port 0 binds an ephemeral port; the
    startup log line ({"msg":"listening",...}) names it. Flags also take --flag=value.

    """

func runHealthcheck(_ arguments: [String], environment: [String: String]) -> Never {
    do throws(UsageError) {
        let flags = try ServeOptions.flags(arguments, known: ["--port"])
        let text = flags["--port"] ?? environment["PORT"] ?? "8080"
        guard text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let port = Int(text), (1...65535).contains(port) else {
            throw UsageError(message: "invalid value '\(text)' for --port (PORT): expected an integer from 1 to 65535")
        }
        exit(HealthCheck.status(port: port) == 200 ? 0 : 1)
    } catch {
        printError(error.message)
        exit(2)
    }
}

let arguments = Array(CommandLine.arguments.dropFirst())
/// The same arguments as the bytes the kernel passed: `arguments` replaces what is not
/// UTF-8 with U+FFFD, and a file name need not be UTF-8.
let rawArguments: [[UInt8]] = (1..<Int(CommandLine.argc)).map { index in
    guard let argument = CommandLine.unsafeArgv[index] else { return [] }
    return UnsafeRawBufferPointer(start: argument, count: strlen(argument)).map { $0 }
}
let environment = currentEnvironment()
switch arguments.first {
case "--version":
    print("device-oracle \(deviceOracleVersion)")
case "--help", "-h", "help":
    print(usage, terminator: "")
case "check":
    exit(CheckCommand.run(Array(rawArguments.dropFirst())))
case "plan":
    exit(PlanCommand.run(Array(arguments.dropFirst())))
case "repro":
    exit(ReproCommand.run(Array(rawArguments.dropFirst())))
case "healthcheck":
    runHealthcheck(Array(arguments.dropFirst()), environment: environment)
case "serve":
    do throws(UsageError) {
        ServeCommand.run(try ServeOptions.parse(Array(arguments.dropFirst()), environment: environment))
    } catch {
        printError(error.message)
        exit(2)
    }
default:
    do throws(UsageError) {
        ServeCommand.run(try ServeOptions.parse(arguments, environment: environment))
    } catch {
        printError(error.message)
        exit(2)
    }
}

func currentEnvironment() -> [String: String] {
    var result: [String: String] = [:]
    var pointer = environ
    while let entry = pointer.pointee {
        let text = String(cString: entry)
        if let equals = text.firstIndex(of: "=") {
            result[String(text[..<equals])] = String(text[text.index(after: equals)...])
        }
        pointer += 1
    }
    return result
}
