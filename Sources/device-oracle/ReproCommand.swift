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
            printError("usage: " + CommandLineHelp.repro.synopsis)
            return 2
        }
        guard let endpoint = rulesetEndpoint(named: String(decoding: arguments[0], as: UTF8.self)) else { return 2 }
        let path = arguments.count == 2 ? arguments[1] : CheckCommand.standardInput
        let repro: Result<[UInt8], RequestRejection>?
        if ndjson && path != CheckCommand.standardInput {
            repro = reproLines(path, endpoint: endpoint, format: format)
        } else {
            repro = CheckCommand.readAll(path).map { endpoint.repro($0, ndjson: ndjson, format: format) }
        }
        guard let repro else {
            CheckCommand.printCannot("read", path)
            return 2
        }
        switch repro {
        case .success(let answer):
            CheckCommand.writeAll(format == .json ? answer + [UInt8(ascii: "\n")] : answer, to: STDOUT_FILENO)
            return 0
        case .failure(let rejection):
            CheckCommand.writeAll(problem(for: rejection).json + [UInt8(ascii: "\n")], to: STDERR_FILENO)
            return rejection.kind == .nothingToReproduce ? 1 : 2
        }
    }

    /// An NDJSON file read in chunks, as `check --ndjson` reads it, in the memory of a
    /// line; opened again for a second reading when the repro needs one.
    private static func reproLines(_ path: [UInt8], endpoint: RulesetEndpoint,
                                   format: AnswerFormat) -> Result<[UInt8], RequestRejection>? {
        final class Opened {
            var descriptors: [Int32] = []
            deinit { descriptors.forEach { close($0) } }
        }
        let opened = Opened()
        let reading: () -> NDJSONChunks? = {
            let fd = CheckCommand.open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { return nil }
            opened.descriptors.append(fd)
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            return NDJSONChunks { receive in
                guard let count = CheckCommand.read(fd, into: &chunk) else { return false }
                chunk[..<count].withUnsafeBytes(receive)
                return true
            }
        }
        guard let chunks = reading() else { return nil }
        return withExtendedLifetime(opened) { endpoint.repro(ndjson: chunks, again: reading, format: format) }
    }
}
