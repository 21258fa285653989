import DeviceOracleHTTP
import DeviceOracleWire
import Glibc

/// `device-oracle serve`: bind, log the startup line, serve until SIGTERM or SIGINT,
/// then shut down gracefully and exit 0 (1 when in-flight requests had to be cut).
enum ServeCommand {
    static func run(_ options: ServeOptions) -> Never {
        // Blocked before any thread starts, so every thread inherits the mask: a stop
        // signal stays pending until the main thread takes it (`sigwait`), even one sent
        // as soon as the startup line appears, and even to PID 1 in a container. With the
        // signal ignored and a Dispatch source watching it, one in a few dozen SIGTERMs
        // was lost and the server never stopped.
        var stopSignals = sigset_t()
        sigemptyset(&stopSignals)
        sigaddset(&stopSignals, SIGTERM)
        sigaddset(&stopSignals, SIGINT)
        pthread_sigmask(SIG_BLOCK, &stopSignals, nil)
        HTTPServer.prepareProcessMemory()  // before any thread starts
        let logger = Logger(level: options.logLevel)
        var configuration = options.configuration
        configuration.memoryPerBodyByte = ServiceRoutes.memoryPerBodyByte
        configuration.answerCounters = [ServiceRoutes.verdictCounter]
        // A registry or a route list that names something twice is refused before serving.
        let routes: [Route]
        do {
            routes = ServiceRoutes.all(maxLineBytes: options.maxLineBytes, registry: try RulesetRegistry(Rulesets.all))
        } catch {
            printError("the ruleset registry: \(error)")
            exit(70)
        }
        if let path = Router.duplicatePaths(routes).first {
            printError("more than one route for \(path)")
            exit(70)
        }
        let server = HTTPServer(configuration: configuration, routes: routes, logger: logger)
        let address: HTTPServer.Address
        do {
            address = try server.start()
        } catch {
            printError("cannot start: \(error)")
            exit(1)
        }
        // Every flag's value, in the order of `ServeOptions.settings`, with what the
        // process decided around them (the bound address, its loops and fixed limits).
        var fields: [(String, LogValue)] = []
        for setting in ServeOptions.settings {
            switch setting.logKey {
            case "host":
                fields.append(("host", .string(address.host)))
            case "port":
                fields += [("port", .int(address.port)), ("version", .string(deviceOracleVersion)),
                           ("eventLoops", .int(configuration.eventLoops))]
            case "maxMemoryBytes":
                fields += [(setting.logKey, setting.current(options)), ("maxMemorySource", .string(options.memoryBudgetSource))]
            case "logLevel":
                fields += [("maxHeadBytes", .int(configuration.headLimits.maxHeadBytes)),
                           ("maxHeaderFields", .int(configuration.headLimits.maxFields)),
                           ("maxTargetBytes", .int(configuration.headLimits.maxTargetBytes)),
                           (setting.logKey, setting.current(options))]
            default:
                fields.append((setting.logKey, setting.current(options)))
            }
        }
        logger.emit(.info, "listening", fields)
        // The main thread only waits for a stop signal; the loops serve. (Not
        // `dispatchMain()`, whose exit of the main thread valgrind cannot follow, and
        // instruction counts under callgrind are the steady measure of this server.)
        var received: Int32 = 0
        while sigwait(&stopSignals, &received) != 0 {}
        logger.log(.info, "shutting down", [("signal", .int(Int(received)))])
        let clean = server.shutdown()
        logger.log(clean ? .info : .warn, "stopped", [("allRequestsFinished", .bool(clean))])
        exit(clean ? 0 : 1)
    }
}

/// One line on stderr, prefixed with the program name.
func printError(_ message: String) {
    var line = "device-oracle: \(message)\n"
    line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
}
