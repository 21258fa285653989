// libFuzzer target: the JSON reader and writer, and every ruleset endpoint's request
// validation and answer, fed arbitrary bodies.
//
// Input layout: byte 0 picks the endpoint (its value modulo the number of rulesets,
// in `Rulesets.all` order: playback, haptics, refresh, audio-session); the rest is
// the request body, which the reader also parses on its own.
import DeviceOracleJSON
import DeviceOracleWire

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let endpoint = Rulesets.all[Int(data[0]) % Rulesets.all.count]
    let body = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    checkReaderAndWriter(body)
    checkEndpoint(endpoint, body)
    return 0
}

/// A parsed text written back is valid JSON that means the same, and writing is
/// canonical: writing the re-read text gives the same bytes again.
func checkReaderAndWriter(_ body: [UInt8]) {
    let document: JSONDocument
    do {
        document = try JSONReader.parse(body)
    } catch {
        precondition(error.offset <= body.count && error.line >= 1 && error.column >= 1,
                     "a syntax error outside the text: \(error)")
        return
    }
    let written = canonical(document)
    guard let reread = try? JSONReader.parse(written) else {
        preconditionFailure("the writer wrote invalid JSON: \(String(decoding: written, as: UTF8.self))")
    }
    precondition(canonical(reread) == written, "writing is not canonical")
    // With a duplicate key, which member counts is the validator's business (a 422).
    if document.duplicateKeys.isEmpty {
        precondition(document.isEqual(document.root, to: reread.root, in: reread), "a round trip changed the value")
    }
}

func canonical(_ document: JSONDocument) -> [UInt8] {
    var writer = JSONWriter()
    writer.value(document.root, of: document)
    return writer.finish()
}

/// Equal bodies give equal answers; a `200` answer is valid JSON with one step per
/// event (or run) and the verdict of its header, and its pieces join to the whole.
func checkEndpoint(_ endpoint: RulesetEndpoint, _ body: [UInt8]) {
    let first = endpoint.answer(body), second = endpoint.answer(body)
    switch (first, second) {
    case (.success(let answer), .success(let again)):
        precondition(answer.json == again.json && answer.verdict == again.verdict, "equal requests, different answers")
        checkAnswer(answer, of: endpoint, for: body)
    case (.failure(let rejection), .failure(let again)):
        precondition(rejection.kind == again.kind && rejection.detail == again.detail
                     && rejection.problems == again.problems && rejection.position == again.position,
                     "equal requests, different rejections")
        checkRejection(rejection, for: body)
    default:
        preconditionFailure("equal requests, one answered and one refused")
    }
}

func checkAnswer(_ answer: RulesetAnswer, of endpoint: RulesetEndpoint, for body: [UInt8]) {
    let json = answer.json
    guard let document = try? JSONReader.parse(json) else {
        preconditionFailure("an answer is not valid JSON: \(String(decoding: json, as: UTF8.self))")
    }
    let root = document.root
    precondition(document.kind(root) == .object, "an answer is not an object")
    precondition(document.member(root, "ruleset").map { document.string($0, matches: endpoint.name) } == true,
                 "an answer names another ruleset")
    precondition(document.member(root, "verdict").map { document.string($0, matches: answer.verdict.rawValue) } == true,
                 "the answer's verdict differs from its header")
    guard let steps = document.member(root, "steps"), document.kind(steps) == .array else {
        preconditionFailure("an answer without steps")
    }
    precondition(document.count(steps) == sequenceLength(of: body, at: endpoint),
                 "\(document.count(steps)) steps for a request of another length")

    // Each piece into one emptied piece, as the server sends them: the writer's memory
    // changes hands every time. A piece size from the body, so both tiny and
    // whole-answer pieces are tried.
    var joined: [UInt8] = []
    let pieces = answer.pieces()
    let minimum = 1 + body.count % 257
    let piece = WrittenBytes()
    var more = true
    while more {
        piece.removeAll()
        more = pieces.next(into: piece, minimum: minimum)
        joined += piece.bytes
    }
    precondition(joined == json, "the answer's pieces differ from the whole")
}

/// The number of events (runs for refresh) in a request the endpoint accepted.
func sequenceLength(of body: [UInt8], at endpoint: RulesetEndpoint) -> Int {
    guard let request = try? JSONReader.parse(body) else { preconditionFailure("an answer to invalid JSON") }
    let sequence = endpoint.shortName == "refresh" ? request.member(request.root, "runs")
        : request.member(request.root, "events")
    guard let sequence, request.kind(sequence) == .array else { return 0 }
    return request.count(sequence)
}

func checkRejection(_ rejection: RequestRejection, for body: [UInt8]) {
    switch rejection.kind {
    case .invalidJSON:
        precondition(rejection.problems.isEmpty, "a 400 with schema problems")
        if let position = rejection.position {
            precondition(position.offset <= body.count, "a JSON error past the end of the body")
        }
    case .invalidRequest:
        precondition((1...50).contains(rejection.problems.count), "a 422 listing \(rejection.problems.count) problems")
        for problem in rejection.problems {
            precondition(problem.pointer.isEmpty || problem.pointer.hasPrefix("/"), "not a JSON Pointer: \(problem.pointer)")
        }
    case .nothingToReproduce:
        preconditionFailure("a check refused a body as nothing to reproduce: only repro says that")
    case .invalidQuery:
        preconditionFailure("a check refused a body as a bad query: it was given none")
    }
}
