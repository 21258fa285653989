// libFuzzer target: the answers rebuilt from the engine's output (issue 42) — repro,
// coverage, plan, the batch check (JSON and JUnit), the generated tests of plans and
// repros, and the ruleset endpoints' NDJSON form — fed arbitrary JSON and NDJSON
// bodies, expanded to reach the depth, size and count limits. It took over the
// service-bodies target (the batch check, plans and coverage), so CI still fuzzes four
// targets, two at a time, for 60 s each.
//
// Input layout:
//   byte 0: the operation, its value modulo 6: 0 the batch check, 1 a plan, 2 coverage,
//           3 a repro of a JSON log, 4 a repro of an NDJSON log, 5 an NDJSON check;
//   byte 1: the ruleset (modulo 4, in `Rulesets.all` order), then (divided by 4) the
//           format (modulo 3: json, xctest, swift-testing) or, for an NDJSON check,
//           the `steps` detail (all, failing, none), then (divided by 12) an NDJSON
//           check's chunk size (modulo 4: 1, 13, 4096 bytes, or the whole body);
//   the rest: the body; or, when it holds NUL bytes, parts between NULs and last a
//           count n in ASCII digits: every second part is repeated n times (within
//           1 MiB), so `A NUL B NUL C NUL 16384` holds B 16384 times — thousands of
//           events, lines or cases — and `A NUL [ NUL B NUL ] NUL C NUL 62` nests B 62
//           levels deep, at the depth limit and past it. (libFuzzer changes ASCII
//           integers as such, the first after a random offset: n, last, moves by one
//           as readily as by thousands.)
//
// Beyond not crashing: answers are JSON (or NDJSON lines of JSON), a repro's request
// fails when posted to its endpoint, a JUnit report holds only characters XML allows,
// and every generated Swift file's literals read back, scalar by scalar as swiftc
// reads them, as JSON, with no control, bidi control, U+2028 or U+2029 written raw.
import DeviceOracleJSON
@testable import DeviceOracleWire

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 1 else { return 0 }
    let operation = Int(data[0]) % 6
    let endpoint = Rulesets.all[Int(data[1]) % Rulesets.all.count]
    let variant = Int(data[1]) / Rulesets.all.count % 3
    let format = [AnswerFormat.json, .xctest, .swiftTesting][variant]
    let body = expanded(Array(UnsafeBufferPointer(start: data + 2, count: size - 2)))
    switch operation {
    case 0: checkBatch(body)
    case 1: checkPlan(endpoint, body, format)
    case 2: checkCoverage(endpoint, body)
    case 3: checkRepro(endpoint, body, ndjson: false, format)
    case 4: checkRepro(endpoint, body, ndjson: true, format)
    default:
        let chunk = [1, 13, 4096, Int.max][Int(data[1]) / 12 % 4]
        checkNDJSON(endpoint, body, detail: [StepDetail.all, .failing, .none][variant],
                    chunk: body.count > 1 << 16 ? max(chunk, 4096) : chunk)
    }
    return 0
}

/// `A NUL B NUL C … NUL n` as A, B n times, C, …, within 1 MiB; a body without NUL as it is.
func expanded(_ input: [UInt8]) -> [UInt8] {
    guard let end = input.lastIndex(of: 0) else { return input }
    let digits = input[(end + 1)...].prefix(7).filter { (48...57).contains($0) }
    let times = digits.reduce(0) { $0 * 10 + Int($1 - 48) }
    let parts = input[..<end].split(separator: 0, omittingEmptySubsequences: false)
    let once = parts.enumerated().reduce(0) { $0 + ($1.offset % 2 == 0 ? $1.element.count : 0) }
    let repeated = parts.enumerated().reduce(0) { $0 + ($1.offset % 2 == 1 ? $1.element.count : 0) }
    let count = repeated == 0 ? 0 : min(times, max(0, ((1 << 20) - once) / repeated))
    var result: [UInt8] = []
    result.reserveCapacity(once + count * repeated)
    for (index, part) in parts.enumerated() {
        for _ in 0..<(index % 2 == 0 ? 1 : count) { result += part }
    }
    return result
}

func parsedJSON(_ bytes: [UInt8], _ what: String) -> JSONDocument {
    guard let document = try? JSONReader.parse(bytes, maxDepth: .max) else {
        preconditionFailure("\(what) is not JSON: \(String(decoding: bytes.prefix(300), as: UTF8.self))")
    }
    return document
}

func checkBatch(_ body: [UInt8]) {
    guard case .success(let report) = BatchCheck.answer(body) else { return }
    _ = parsedJSON(report.json, "a batch report")
    let xml = report.junitXML
    precondition(xml.starts(with: Array("<?xml".utf8)), "a JUnit report without its declaration")
    // XML 1.0's Char: TAB, LF, CR and from U+0020, but for U+FFFE and U+FFFF.
    for scalar in String(decoding: xml, as: UTF8.self).unicodeScalars {
        let value = scalar.value
        precondition((value >= 0x20 || value == 0x9 || value == 0xA || value == 0xD) && value != 0xFFFE && value != 0xFFFF,
                     "a JUnit report holds U+\(String(value, radix: 16)), which XML does not allow")
    }
}

func checkPlan(_ endpoint: RulesetEndpoint, _ body: [UInt8], _ format: AnswerFormat) {
    guard case .success(let answer) = endpoint.plan(body, format: format) else { return }
    if format == .json {
        _ = parsedJSON(answer, "a plan")
    } else {
        checkSwift(answer, literals: nil)
    }
}

func checkCoverage(_ endpoint: RulesetEndpoint, _ body: [UInt8]) {
    guard case .success(let answer) = endpoint.coverage(body) else { return }
    _ = parsedJSON(answer.json, "a coverage answer")
}

/// A repro's `request` fails when posted to its endpoint (a mismatch at its last step,
/// or in its `observedFinal`); its Swift file holds that request, with every step observed.
func checkRepro(_ endpoint: RulesetEndpoint, _ body: [UInt8], ndjson: Bool, _ format: AnswerFormat) {
    guard case .success(let answer) = endpoint.repro(body, ndjson: ndjson, format: format) else { return }
    guard format == .json else { return checkSwift(answer, literals: 1) }
    let repro = parsedJSON(answer, "a repro")
    guard let request = repro.member(repro.root, "request") else { preconditionFailure("a repro without its request") }
    var writer = JSONWriter()
    writer.value(request, of: repro)
    switch endpoint.answer(writer.finish()) {
    case .success(let checked):
        precondition(checked.verdict == .fail, "a repro's request does not fail: \(checked.verdict)")
    case .failure(let rejection):
        preconditionFailure("a repro's request is refused: \(rejection.detail) \(rejection.problems)")
    }
}

/// The NDJSON form fed in chunks: the answer is refused before it began, or it is
/// lines of JSON objects, the last the summary (with `verdict`) or a problem line.
func checkNDJSON(_ endpoint: RulesetEndpoint, _ body: [UInt8], detail: StepDetail, chunk: Int) {
    let check = NDJSONCheck(endpoint: endpoint, detail: detail, maxLineBytes: 1 << 16) { _ in Array("{}".utf8) }
    var output: [UInt8] = [], ended: String?, offset = 0
    func note(_ progress: NDJSONCheck.Progress) -> Bool {
        switch progress {
        case .more, .begin: return false
        case .rejected: return true
        case .end(let verdict):
            ended = verdict
            return true
        }
    }
    var done = false
    while offset < body.count, !done {
        let end = min(body.count, offset + chunk)
        done = body[offset..<end].withUnsafeBytes { note(check.receive($0, output: &output)) }
        offset = end
    }
    if !done {
        done = note(check.finish(output: &output))
        // A `begin` in the same call as the end: an empty receive says the rest.
        for _ in 0..<2 where !done { done = [UInt8]().withUnsafeBytes { note(check.receive($0, output: &output)) } }
        precondition(done, "a finished NDJSON check that never ends")
    }
    guard let verdict = ended else { return }
    precondition(output.last == UInt8(ascii: "\n"), "an NDJSON answer that does not end its last line")
    let lines = output.split(separator: UInt8(ascii: "\n"))
    for line in lines { _ = parsedJSON(Array(line), "an NDJSON answer line") }
    let last = parsedJSON(Array(lines.last ?? []), "the last line")
    let named = verdict == NDJSONCheck.invalidVerdict ? "problem" : "verdict"
    precondition(last.member(last.root, named: named) != nil, "the last line has no \(named) (verdict \(verdict))")
}

// MARK: - Generated Swift, read as swiftc reads it

/// No scalar generated Swift escapes is written raw; every raw string literal (`literals`
/// of them, when known) ends where it should and reads back as JSON.
func checkSwift(_ file: [UInt8], literals expected: Int?) {
    let scalars = Array(String(decoding: file, as: UTF8.self).unicodeScalars)
    for scalar in scalars where scalar != "\n" && GeneratedTests.escapes(scalar) {
        preconditionFailure("generated Swift holds U+\(String(scalar.value, radix: 16)) raw")
    }
    var index = 0, count = 0
    while let (hashes, start) = literalOpening(scalars, from: index) {
        let (value, end) = literalValue(scalars, hashes: hashes, from: start)
        _ = parsedJSON(Array(value.utf8), "a generated test's request")
        index = end
        count += 1
    }
    precondition(expected.map { $0 == count } ?? (count > 0), "a generated file with \(count) requests")
}

/// After `json: `: the number of `#` and where the content starts (after `"""` and LF).
func literalOpening(_ scalars: [Unicode.Scalar], from start: Int) -> (Int, Int)? {
    let marker = Array("json: ".unicodeScalars)
    var index = start
    while index + marker.count < scalars.count {
        guard scalars[index..<(index + marker.count)].elementsEqual(marker) else {
            index += 1
            continue
        }
        var at = index + marker.count, hashes = 0
        while at < scalars.count, scalars[at] == "#" { hashes += 1; at += 1 }
        precondition(hashes > 0 && at + 4 <= scalars.count && scalars[at..<(at + 3)].allSatisfy { $0 == "\"" }
                     && scalars[at + 3] == "\n", "a request that is no raw multi-line literal")
        return (hashes, at + 4)
    }
    return nil
}

/// The literal's value: it ends at the first `"""` and `hashes` `#`, alone on its line
/// after spaces that every content line starts with; `\` and `hashes` `#` must begin a
/// `u{…}` escape.
func literalValue(_ scalars: [Unicode.Scalar], hashes: Int, from start: Int) -> (String, Int) {
    var end = start
    func closes(_ at: Int) -> Bool {
        at + 3 + hashes <= scalars.count && scalars[at..<(at + 3)].allSatisfy { $0 == "\"" }
            && scalars[(at + 3)..<(at + 3 + hashes)].allSatisfy { $0 == "#" }
    }
    while end < scalars.count, !closes(end) { end += 1 }
    precondition(end < scalars.count, "a raw literal that never ends")
    var lineStart = end
    while lineStart > start, scalars[lineStart - 1] != "\n" { lineStart -= 1 }
    let indent = scalars[lineStart..<end]
    precondition(lineStart > start && indent.allSatisfy { $0 == " " }, "a raw literal that ends inside a line")
    var value = ""
    for (number, line) in scalars[start..<(lineStart - 1)].split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
        precondition(line.starts(with: indent), "a literal line outside the indentation")
        if number > 0 { value += "\n" }
        var index = line.startIndex + indent.count
        while index < line.endIndex {
            let escape = index + 1 + hashes
            guard line[index] == "\\", escape <= line.endIndex, line[(index + 1)..<escape].allSatisfy({ $0 == "#" }) else {
                value.unicodeScalars.append(line[index])
                index += 1
                continue
            }
            guard escape + 2 < line.endIndex, line[escape] == "u", line[escape + 1] == "{",
                  let close = line[escape...].firstIndex(of: "}"),
                  let code = UInt32(String(String.UnicodeScalarView(line[(escape + 2)..<close])), radix: 16),
                  let scalar = Unicode.Scalar(code) else {
                preconditionFailure("an escape in a generated literal that is no \\u{…}")
            }
            value.unicodeScalars.append(scalar)
            index = close + 1
        }
    }
    return (value, end + 3 + hashes)
}
