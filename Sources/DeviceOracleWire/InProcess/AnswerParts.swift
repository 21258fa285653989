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
}

extension RulesetAnswer {
    package var mismatches: [AnswerMismatch] {
        let document = text.document
        return text.envelope.mismatches.map { mismatch in
            AnswerMismatch(step: mismatch.index, field: mismatch.field,
                           expected: mismatch.expected.jsonText(document), observed: mismatch.observed.jsonText(document),
                           detail: mismatch.detail)
        }
    }

    /// In the answer's order.
    package var diagnostics: [AnswerDiagnostic] {
        var diagnostics: [AnswerDiagnostic] = []
        text.envelope.forEachDiagnosticInAnswerOrder { diagnostic in
            diagnostics.append(AnswerDiagnostic(step: diagnostic.index, severity: diagnostic.code.severity.rawValue,
                                                code: diagnostic.code.rawValue,
                                                message: diagnostic.message ?? "\(diagnostic.code.standardMessage)"))
        }
        return diagnostics
    }
}

private extension FieldValue {
    func jsonText(_ document: JSONDocument) -> String {
        var writer = JSONWriter(capacity: 64)
        write(to: &writer, document: document)
        return String(decoding: writer.finish(), as: UTF8.self)
    }
}
