import DeviceOracleWire
import Glibc

/// `device-oracle repro <ruleset> [FILE|-] [--ndjson] [--format json|xctest|swift-testing]`:
/// prints what `POST /rulesets/{name}/repro` answers: the shortest request that fails
/// as the log's first mismatch does, as JSON or as a Swift file with its test. Exit status: 0 with a repro, 1 when there is nothing
/// to reproduce (the log passes or is unchecked), 2 bad input; problems go to stderr
/// as the endpoint's problem documents.
enum ReproCommand {
    static func run(_ arguments: [[UInt8]]) -> Int32 {
        var arguments = arguments
        let ndjson = CheckCommand.takeFlag("--ndjson", from: &arguments)
        let format: AnswerFormat
        switch CheckCommand.takeValue("--format", values: "json, xctest or swift-testing", from: &arguments)
                .flatMap({ name in
                    AnswerFormat.named(name ?? AnswerFormat.json.rawValue).mapError { UnknownName(detail: "--format: " + $0.detail) }
                }) {
        case .success(let given): format = given
        case .failure(let error):
            printError(error.detail)
            return 2
        }
        guard (1...2).contains(arguments.count), arguments[0].first != UInt8(ascii: "-") else {
            printError("usage: device-oracle repro <ruleset> [FILE|-] [--ndjson] [--format json|xctest|swift-testing]")
            return 2
        }
        guard let endpoint = rulesetEndpoint(named: String(decoding: arguments[0], as: UTF8.self)) else { return 2 }
        let path = arguments.count == 2 ? arguments[1] : CheckCommand.standardInput
        guard let body = CheckCommand.readAll(path) else {
            CheckCommand.printCannot("read", path)
            return 2
        }
        switch endpoint.repro(body, ndjson: ndjson, format: format) {
        case .success(let answer):
            CheckCommand.writeAll(format == .json ? answer + [UInt8(ascii: "\n")] : answer, to: STDOUT_FILENO)
            return 0
        case .failure(let rejection):
            CheckCommand.writeAll(problem(for: rejection).json + [UInt8(ascii: "\n")], to: STDERR_FILENO)
            return rejection.kind == .nothingToReproduce ? 1 : 2
        }
    }
}
