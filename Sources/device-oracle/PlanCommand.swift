import DeviceOracleWire
import Glibc

/// `device-oracle plan <ruleset> [--coverage transitions|random] [--max-length N]
/// [--seed S] [--count K] [--format json|xctest|swift-testing]`: prints what
/// `POST /rulesets/{name}/plan` answers, JSON or a Swift file of tests. Exit status:
/// 0, or 2 for a bad argument (one line per problem, named by its flag).
enum PlanCommand {
    /// Each flag and the request member it sets.
    private static let members = [("--coverage", "coverage"), ("--max-length", "maxLength"), ("--seed", "seed"),
                                  ("--count", "count")]

    static func run(_ arguments: [String]) -> Int32 {
        guard let name = arguments.first, !name.hasPrefix("-") else {
            printError("usage: " + CommandLineHelp.plan.synopsis)
            return 2
        }
        guard let endpoint = rulesetEndpoint(named: name) else { return 2 }
        let flags: [String: String]
        var numbers: [String: Int] = [:]
        let format: AnswerFormat
        do throws(UsageError) {
            flags = try ServeOptions.flags(Array(arguments.dropFirst()), known: members.map(\.0) + ["--format"])
            format = try answerFormat(flags["--format"])
            for flag in ["--max-length", "--seed", "--count"] {
                guard let text = flags[flag] else { continue }
                guard text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let number = Int(text) else {
                    throw UsageError(message: "invalid value '\(text)' for \(flag): expected a non-negative integer")
                }
                numbers[flag] = number
            }
        } catch {
            printError(error.message)
            return 2
        }
        switch endpoint.plan(coverage: flags["--coverage"], maxLength: numbers["--max-length"], seed: numbers["--seed"],
                             count: numbers["--count"], format: format) {
        case .success(let json):
            CheckCommand.writeAll(json, to: STDOUT_FILENO)
            return 0
        case .failure(let rejection):
            for problem in rejection.problems {
                let member = problem.pointer.dropFirst()
                let flag = members.first { $0.1 == member }?.0 ?? String(member)
                printError("\(flag): \(problem.detail)")
            }
            return 2
        }
    }
}

/// `--format json|xctest|swift-testing` (JSON when absent).
func answerFormat(_ name: String?) throws(UsageError) -> AnswerFormat {
    switch AnswerFormat.named(name ?? AnswerFormat.json.rawValue) {
    case .success(let format): return format
    case .failure(let unknown): throw UsageError(message: "--format: \(unknown.detail)")
    }
}
