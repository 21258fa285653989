import DeviceOracleJSON

// What the in-process product (`DeviceOracle`) reads of an answer besides its text:
// the mismatches and diagnostics, typed, each value written exactly as the answer
// writes it, so the typed result and the JSON text never disagree.

/// One mismatch of an answer; `expected` and `observed` are JSON text.
package struct AnswerMismatch: Sendable {
    package let step: Int?
    package let field: String
    package let expected: String
    package let observed: String
    package let detail: String?
}

/// One diagnostic of an answer.
package struct AnswerDiagnostic: Sendable {
    package let step: Int?
    package let severity: String
    package let code: String
    package let message: String
    package var line: Int? = nil
}

extension AnswerMismatch {
    /// `mismatch` with its values written as the answer writes them (`document` holds
    /// the values it points into).
    init(_ mismatch: Mismatch, in document: JSONDocument) {
        self.init(step: mismatch.index, field: mismatch.field, expected: mismatch.expected.jsonText(document),
                  observed: mismatch.observed.jsonText(document), detail: mismatch.detail)
    }

    /// Exactly as `Mismatch.write` writes the mismatch it was made from.
    func write(to writer: inout JSONWriter) {
        writer.mismatch(index: step, field: field, detail: detail, expected: { $0.raw(Array(expected.utf8)) },
                        observed: { $0.raw(Array(observed.utf8)) })
    }
}

extension AnswerDiagnostic {
    init(_ diagnostic: Diagnostic) {
        self.init(step: diagnostic.index, severity: diagnostic.code.severity.rawValue, code: diagnostic.code.rawValue,
                  message: diagnostic.message ?? "\(diagnostic.code.standardMessage)", line: diagnostic.line)
    }
}

extension RulesetAnswer {
    package var mismatches: [AnswerMismatch] {
        let document = text.document
        return text.envelope.mismatches.map { AnswerMismatch($0, in: document) }
    }

    /// In the answer's order.
    package var diagnostics: [AnswerDiagnostic] {
        var diagnostics: [AnswerDiagnostic] = []
        text.envelope.forEachDiagnosticInAnswerOrder { diagnostics.append(AnswerDiagnostic($0)) }
        return diagnostics
    }
}

extension FieldValue {
    /// The value as compact JSON text, as an answer writes it.
    func jsonText(_ document: JSONDocument) -> String {
        var writer = JSONWriter(capacity: 64)
        write(to: &writer, document: document)
        return String(decoding: writer.finish(), as: UTF8.self)
    }
}

/// The NDJSON form's answer to a whole body, in process: its text (the step lines and
/// the summary) and what the summary lists.
package struct NDJSONAnswer: Sendable {
    package let verdict: Verdict
    package let text: [UInt8]
    package let mismatches: [AnswerMismatch]
    package let diagnostics: [AnswerDiagnostic]
}

extension RulesetEndpoint {
    /// Answers a whole NDJSON body as the endpoint streams it; a problem, whether it
    /// came before the answer began or as its problem line, is the failure.
    package func answerNDJSON(_ body: [UInt8], detail: StepDetail, oslog: OSLogSelection? = nil) -> Result<NDJSONAnswer, RequestRejection> {
        let check = NDJSONCheck(endpoint: self, detail: detail, maxLineBytes: NDJSONCheck.defaultMaxLineBytes, oslog: oslog) { _ in [] }
        return Self.run(check, on: body).flatMap { text in
            guard let summary = check.summary else { return .failure(check.problem ?? .unreadLog) }
            return .success(NDJSONAnswer(verdict: summary.verdict, text: text, mismatches: summary.mismatches,
                                         diagnostics: summary.diagnostics))
        }
    }

    /// Feeds a whole body to `check` as a socket would: the answer's text, or the
    /// problem that ended it.
    static func run(_ check: NDJSONCheck, on body: [UInt8]) -> Result<[UInt8], RequestRejection> {
        run(check, NDJSONChunks(body)) ?? .failure(.unreadLog)
    }

    /// Feeds `check` the chunks of a log as they are read; `nil` when reading failed.
    static func run(_ check: NDJSONCheck, _ chunks: NDJSONChunks) -> Result<[UInt8], RequestRejection>? {
        var text: [UInt8] = []
        var finished = false
        var progress = NDJSONCheck.Progress.more(completedLine: false)
        while true {
            switch progress {
            case .rejected(let rejection):
                return .failure(rejection)
            case .end:
                if let problem = check.problem { return .failure(problem) }
                return .success(text)
            case .begin where finished:
                progress = check.finish(output: &text)
            case .begin:
                progress = check.receive(UnsafeRawBufferPointer(start: nil, count: 0), output: &text)
            case .more:
                let read = chunks.next { chunk in
                    if chunk.isEmpty {
                        finished = true
                        progress = check.finish(output: &text)
                    } else {
                        progress = check.receive(chunk, output: &text)
                    }
                }
                guard read else { return nil }
            }
        }
    }
}

/// An NDJSON log read in chunks, as a file is: `next` gives its argument the next
/// chunk, an empty one at the end of the log, and returns `false` when it could not read.
public struct NDJSONChunks {
    let next: ((UnsafeRawBufferPointer) -> Void) -> Bool

    public init(next: @escaping ((UnsafeRawBufferPointer) -> Void) -> Bool) {
        self.next = next
    }

    /// A body in memory, 64 KiB at a time as a socket gives it (given at once, its lines
    /// would all be split out before the first is read).
    init(_ body: [UInt8]) {
        var offset = 0
        self.init { receive in
            let end = min(body.count, offset + (1 << 16))
            body[offset..<end].withUnsafeBytes(receive)
            offset = end
            return true
        }
    }
}

extension RequestRejection {
    /// A log that could not be read to its end (never one in memory).
    static var unreadLog: RequestRejection {
        RequestRejection(kind: .invalidRequest, detail: "the log could not be read to its end")
    }
}
