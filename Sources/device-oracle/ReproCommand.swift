import DeviceOracleWire
import Glibc

/// `device-oracle repro <ruleset> [FILE|-] [--ndjson]`: prints the same JSON
/// `POST /rulesets/{name}/repro` answers: the shortest request that fails as the
/// log's first mismatch does. Exit status: 0 with a repro, 1 when there is nothing
/// to reproduce (the log passes or is unchecked), 2 bad input; problems go to stderr
/// as the endpoint's problem documents.
enum ReproCommand {
    static func run(_ arguments: [[UInt8]]) -> Int32 {
        var arguments = arguments
        let ndjson = arguments.contains(Array("--ndjson".utf8))
        arguments.removeAll { $0 == Array("--ndjson".utf8) }
        guard (1...2).contains(arguments.count), arguments[0].first != UInt8(ascii: "-") else {
            printError("usage: device-oracle repro <ruleset> [FILE|-] [--ndjson]")
            return 2
        }
        guard let endpoint = rulesetEndpoint(named: String(decoding: arguments[0], as: UTF8.self)) else { return 2 }
        guard endpoint.reproduces else {
            printError("\(endpoint.name) has no repro: its steps do not show the state graph's transitions")
            return 2
        }
        let path = arguments.count == 2 ? arguments[1] : CheckCommand.standardInput
        guard let body = CheckCommand.readAll(path) else {
            CheckCommand.printCannot("read", path)
            return 2
        }
        switch endpoint.repro(body, ndjson: ndjson)! {
        case .success(let json):
            CheckCommand.writeAll(json + [UInt8(ascii: "\n")], to: STDOUT_FILENO)
            return 0
        case .failure(let rejection):
            CheckCommand.writeAll(problem(for: rejection).json + [UInt8(ascii: "\n")], to: STDERR_FILENO)
            return rejection.kind == .nothingToReproduce ? 1 : 2
        }
    }
}
