import DeviceOracleJSON
import DeviceOracleWire
import Glibc

/// `device-oracle check <ruleset> [FILE|-] [--steps all|failing|none] [--ndjson]`: one
/// request body, offline. Prints the same bytes the endpoint answers with (`?steps=` as
/// given) on stdout (so CI without a network gets the same answer), or the endpoint's
/// problem document on stderr. With `--ndjson` the body is the NDJSON form, read and
/// answered as it arrives (from a pipe a harness is still writing, too); a problem
/// after the answer began is its last line, on stdout, as over HTTP.
/// With `--from oslog` the body is a unified-log capture (oslog.md), read the same way.
/// Exit status: 0 pass or unchecked, 1 fail, 2 bad input, 3 inconclusive.
///
/// `device-oracle check --junit REPORT FILE…`: every file a request that names its
/// ruleset (`"ruleset": "playback/1"`), checked as one batch like `POST /check`;
/// writes the JUnit report and prints a one-line summary. Exit status: 2 when a
/// file cannot be read or a case's request is refused (bad input outranks a
/// failure), else 1 when a case failed, else 0.
///
/// Arguments arrive as the bytes the kernel passed (`rawArguments`): a Linux file name
/// need not be UTF-8, and decoding one as a String would open, or write, another name.
enum CheckCommand {
    static func run(_ arguments: [[UInt8]]) -> Int32 {
        if let first = arguments.first.map(text), first == "--junit" || first.hasPrefix("--junit=") {
            return runBatch(arguments)
        }
        var arguments = arguments
        let detailGiven = arguments.contains { text($0) == "--steps" || text($0).hasPrefix("--steps=") }
        let detail: StepDetail
        switch stepDetail(&arguments) {
        case .success(let given): detail = given
        case .failure(let error):
            printError(error.detail)
            return 2
        }
        var ndjson = takeFlag("--ndjson", from: &arguments)
        let oslog: OSLogSelection?
        switch logSelection(&arguments) {
        case .success(let selection): oslog = selection
        case .failure(let error):
            printError(error.detail)
            return 2
        }
        ndjson = ndjson || oslog != nil
        guard (1...2).contains(arguments.count) else {
            printError("usage: " + CommandLineHelp.check.synopsis)
            return 2
        }
        guard let endpoint = rulesetEndpoint(named: text(arguments[0])) else { return 2 }
        let path = arguments.count == 2 ? arguments[1] : standardInput
        if ndjson { return checkLines(path, endpoint: endpoint, detail: detail, detailGiven: detailGiven, oslog: oslog) }
        guard let body = readAll(path) else {
            printCannot("read", path)
            return 2
        }
        switch endpoint.answer(body).map({ $0.listing(detail) }) {
        case .success(let answer):
            // In pieces: a long log's answer is never held whole.
            let pieces = answer.pieces()
            let piece = WrittenBytes()
            var more = true
            while more {
                more = pieces.next(into: piece, minimum: 1 << 16)
                piece.withUnsafeBytes { writeAll($0, to: STDOUT_FILENO) }
                piece.removeAll()
            }
            return answer.verdict == .fail ? 1 : 0
        case .failure(let rejection):
            writeAll(problem(for: rejection).json + [UInt8(ascii: "\n")], to: STDERR_FILENO)
            return 2
        }
    }

    /// The NDJSON form: each read is checked, and what it answers written, before the next.
    private static func checkLines(_ path: [UInt8], endpoint: RulesetEndpoint, detail: StepDetail,
                                   detailGiven: Bool, oslog: OSLogSelection?) -> Int32 {
        let fd = path == standardInput ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            printCannot("read", path)
            return 2
        }
        defer { if fd != STDIN_FILENO { close(fd) } }
        let check = NDJSONCheck(endpoint: endpoint, detail: detail, detailGiven: detailGiven,
                                maxLineBytes: NDJSONRequest.defaultMaxLineBytes, oslog: oslog) {
            problem(for: $0).json
        }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var output: [UInt8] = []
        var progress = NDJSONCheck.Progress.more(completedLine: false)
        while true {
            guard let count = read(fd, into: &chunk) else {
                printCannot("read", path)
                return 2
            }
            if count == 0 {
                progress = check.finish(output: &output)
                if case .begin = progress { progress = check.finish(output: &output) }
            } else {
                progress = chunk[..<count].withUnsafeBytes { check.receive($0, output: &output) }
                if case .begin = progress {
                    progress = check.receive(UnsafeRawBufferPointer(start: nil, count: 0), output: &output)
                }
            }
            writeAll(output, to: STDOUT_FILENO)
            output.removeAll(keepingCapacity: true)
            switch progress {
            case .more, .begin: continue
            case .rejected(let rejection):
                writeAll(problem(for: rejection).json + [UInt8(ascii: "\n")], to: STDERR_FILENO)
                return 2
            case .end(let verdict):
                switch verdict {
                case Verdict.fail.rawValue: return 1
                case NDJSONCheck.invalidVerdict: return 2
                case Verdict.inconclusive.rawValue: return 3
                default: return 0
                }
            }
        }
    }

    /// `--from oslog [--category C] [--subsystem S]`: the unified-log form's selection,
    /// read as `?from=oslog` is (nil without `--from`).
    static func logSelection(_ arguments: inout [[UInt8]]) -> Result<OSLogSelection?, UnknownName> {
        takeValue("--from", values: "oslog", from: &arguments).flatMap { from in
            takeValue("--category", values: "the unified log's category", from: &arguments).flatMap { category in
                takeValue("--subsystem", values: "the unified log's subsystem", from: &arguments).flatMap { subsystem in
                    guard let from else {
                        guard category == nil, subsystem == nil else {
                            return .failure(UnknownName(detail: "--category and --subsystem are read only with --from oslog"))
                        }
                        return .success(nil)
                    }
                    guard from == "oslog" else {
                        return .failure(UnknownName(detail: "--from is '\(from)'; its one value is oslog"))
                    }
                    guard category?.isEmpty != true, subsystem?.isEmpty != true else {
                        return .failure(UnknownName(detail: "--category and --subsystem cannot be empty"))
                    }
                    return .success(OSLogSelection(category: category ?? OSLogSelection.defaultCategory, subsystem: subsystem))
                }
            }
        }
    }

    /// Takes a flag without a value out of the arguments after the ruleset.
    static func takeFlag(_ flag: String, from arguments: inout [[UInt8]]) -> Bool {
        guard let position = arguments.dropFirst().firstIndex(where: { text($0) == flag }) else { return false }
        arguments.remove(at: position)
        return true
    }

    /// Takes `FLAG VALUE` (or `FLAG=VALUE`) out of the arguments after the ruleset;
    /// `nil` when absent. `values` names what it takes, for the message when it has none.
    static func takeValue(_ flag: String, values: String, from arguments: inout [[UInt8]]) -> Result<String?, UnknownName> {
        var names: [String] = []
        var position = 1
        while position < arguments.count {
            let argument = text(arguments[position])
            if argument == flag {
                guard position + 1 < arguments.count else {
                    return .failure(UnknownName(detail: "\(flag) needs a value: \(values)"))
                }
                names.append(text(arguments[position + 1]))
                arguments.removeSubrange(position...position + 1)
            } else if argument.hasPrefix(flag + "=") {
                names.append(String(argument.dropFirst(flag.count + 1)))
                arguments.remove(at: position)
            } else {
                position += 1
            }
        }
        guard names.count <= 1 else {
            return .failure(UnknownName(detail: "\(flag) is given \(names.count) times; give it once"))
        }
        return .success(names.first)
    }

    /// `--steps`: `all` when absent, the endpoint's `?steps=` otherwise.
    private static func stepDetail(_ arguments: inout [[UInt8]]) -> Result<StepDetail, UnknownName> {
        takeValue("--steps", values: "all, failing or none", from: &arguments).flatMap { name in
            StepDetail.named(name ?? StepDetail.all.rawValue)
        }
    }

    private static func runBatch(_ arguments: [[UInt8]]) -> Int32 {
        var rest = arguments[...]
        let flag = rest.removeFirst()
        let reportPath = text(flag) == "--junit" ? rest.popFirst() : Array(flag.dropFirst("--junit=".utf8.count))
        guard let reportPath, !reportPath.isEmpty, !rest.isEmpty else {
            printError("usage: " + CommandLineHelp.checkJUnit.synopsis)
            return 2
        }
        var files: [(name: String, body: [UInt8])] = []
        for path in rest {
            guard let body = readAll(path) else {
                printCannot("read", path)
                return 2
            }
            // A testcase name is XML text, so UTF-8: a byte that is not shows as U+FFFD.
            files.append((text(path), body))
        }
        let report = BatchCheck.report(files: files)
        guard writeFile(report.junitXML, to: reportPath) else {
            printCannot("write", reportPath)
            return 2
        }
        writeAll(Array("device-oracle check: \(report.summary); JUnit report in ".utf8) + reportPath + [UInt8(ascii: "\n")],
                 to: STDOUT_FILENO)
        if report.totals.errors > 0 { return 2 }
        return report.totals.failed > 0 ? 1 : 0
    }

    static let standardInput = Array("-".utf8)

    /// An argument as text, for flags, ruleset names and messages.
    private static func text(_ argument: [UInt8]) -> String {
        String(decoding: argument, as: UTF8.self)
    }

    /// `cannot read PATH: reason`, the path as its own bytes, so the name shown is the name.
    static func printCannot(_ verb: String, _ path: [UInt8]) {
        let reason = String(cString: strerror(errno))
        let name = path == standardInput ? Array("standard input".utf8) : path
        writeAll(Array("device-oracle: cannot \(verb) ".utf8) + name + Array(": \(reason)\n".utf8), to: STDERR_FILENO)
    }

    /// open(2) with the path's bytes as they are.
    static func open(_ path: [UInt8], _ flags: Int32, _ mode: mode_t = 0) -> Int32 {
        (path + [0]).withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { Glibc.open($0.baseAddress!, flags, mode) }
        }
    }

    /// The whole file, or standard input for `-`; nil on a read error.
    static func readAll(_ path: [UInt8]) -> [UInt8]? {
        let fd = path == standardInput ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { if fd != STDIN_FILENO { close(fd) } }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            guard let count = read(fd, into: &chunk) else { return nil }
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[..<count])
        }
    }

    /// read(2) into `chunk`, again when a signal interrupted it: the count (0 at the
    /// end), or nil on an error (errno says which).
    static func read(_ fd: Int32, into chunk: inout [UInt8]) -> Int? {
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count >= 0 { return count }
            if errno != EINTR { return nil }
        }
    }

    /// Creates or replaces the file; false on an error (errno says which).
    private static func writeFile(_ bytes: [UInt8], to path: [UInt8]) -> Bool {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return false }
        writeAll(bytes, to: fd)
        return close(fd) == 0
    }

    static func writeAll(_ bytes: [UInt8], to fd: Int32) {
        bytes.withUnsafeBytes { writeAll($0, to: fd) }
    }

    static func writeAll(_ bytes: UnsafeRawBufferPointer, to fd: Int32) {
        var offset = 0
        while offset < bytes.count {
            let written = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            offset += written
        }
    }
}

/// The ruleset a command names (`playback` or `playback/1`); `nil` after saying which
/// names there are.
func rulesetEndpoint(named name: String) -> RulesetEndpoint? {
    if let endpoint = Rulesets.named(name) { return endpoint }
    let known = Rulesets.registry.paths.map(\.shortName).joined(separator: ", ")
    printError("unknown ruleset '\(name)'; known: \(known) (with or without the version, e.g. playback/1)")
    return nil
}
