import DeviceOracleHTTP
import DeviceOracleWire
import Glibc

/// The release: the same in `openapi.yaml`'s `info.version`, docs/library.md and the startup line
/// (EndToEndTests.testOneVersionEverywhere); a release is tagged `v` + this on main.
let deviceOracleVersion = "1.0.0"

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
    // Written only when asked: the text lists the registry, which every other run need not read.
    print(CommandLineHelp.text(version: deviceOracleVersion), terminator: "")
case "check":
    exit(CheckCommand.run(Array(rawArguments.dropFirst())))
case "plan":
    exit(PlanCommand.run(Array(arguments.dropFirst())))
case "repro":
    exit(ReproCommand.run(Array(rawArguments.dropFirst())))
case "rulesets":
    // The registry, for scripts (CI, bench/): a version a line, "NAME PATH", path by
    // path, newest version first.
    for endpoint in Rulesets.registry.all { print(endpoint.name, endpoint.path) }
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
