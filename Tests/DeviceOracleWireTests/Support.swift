import XCTest
import DeviceOracleJSON
@testable import DeviceOracleWire

/// Runs a body through an endpoint and parses the answer, for assertions on members.
struct Answer {
    let verdict: Verdict
    let text: String
    let document: JSONDocument

    /// The value at a JSON Pointer ("/steps/0/action"), written compactly.
    subscript(_ pointer: String) -> String? {
        var value = document.root
        for token in pointer.split(separator: "/", omittingEmptySubsequences: false).dropFirst() {
            let token = String(token).replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            switch document.kind(value) {
            case .array:
                guard let index = Int(token), index < document.count(value) else { return nil }
                value = Array(document.elements(value))[index]
            case .object:
                guard let member = document.members(value).first(where: { document.string($0.key) == token }) else {
                    return nil
                }
                value = member.value
            default:
                return nil
            }
        }
        var writer = JSONWriter()
        writer.value(value, of: document)
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}

func answer(_ endpoint: RulesetEndpoint, _ body: String, file: StaticString = #filePath, line: UInt = #line) throws -> Answer {
    switch endpoint.answer(Array(body.utf8)) {
    case .success(let answer):
        let text = String(decoding: answer.json, as: UTF8.self)
        return Answer(verdict: answer.verdict, text: text, document: try JSONReader.parse(answer.json))
    case .failure(let rejection):
        XCTFail("rejected: \(rejection.detail) \(rejection.problems)", file: file, line: line)
        throw rejection
    }
}

func rejection(_ endpoint: RulesetEndpoint, _ body: String, file: StaticString = #filePath, line: UInt = #line) -> RequestRejection? {
    switch endpoint.answer(Array(body.utf8)) {
    case .success(let answer):
        XCTFail("expected a rejection, got \(String(decoding: answer.json, as: UTF8.self))", file: file, line: line)
        return nil
    case .failure(let rejection):
        return rejection
    }
}

/// The `422` problems of a body as "pointer: detail" lines.
func problems(_ endpoint: RulesetEndpoint, _ body: String, file: StaticString = #filePath, line: UInt = #line) -> [String] {
    guard let rejection = rejection(endpoint, body, file: file, line: line) else { return [] }
    XCTAssertEqual(rejection.kind, .invalidRequest, file: file, line: line)
    return rejection.problems.map { "\($0.pointer): \($0.detail)" }
}

/// Answer-like access by pointer to any JSON the wire writes (plans, coverage, reports).
func parsed(_ bytes: [UInt8], verdict: Verdict = .unchecked) throws -> Answer {
    Answer(verdict: verdict, text: String(decoding: bytes, as: UTF8.self), document: try JSONReader.parse(bytes))
}
