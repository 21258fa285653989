import DeviceOracle
import Testing
import XCTest

// One check, two test frameworks: each assertion records a failure at the caller's
// line whose message lists every mismatch (or the problem with the request).

/// Why a checked log fails a test, or `nil` when it passes. A log that observed
/// nothing fails too: a test that compares nothing cannot fail.
func oracleFailure(_ ruleset: Ruleset, json: String) -> (result: OracleResult?, message: String?) {
    do {
        let result = try Oracle.check(ruleset, json: json)
        switch result.verdict {
        case .pass: return (result, nil)
        case .fail:
            let count = result.mismatches.count
            return (result, "\(ruleset.rawValue): \(count) mismatch\(count == 1 ? "" : "es")\n" + result.mismatchReport)
        case .unchecked:
            return (result, "\(ruleset.rawValue): unchecked, the log observed nothing to compare")
        case .inconclusive:
            return (result, "\(ruleset.rawValue): inconclusive, the log's evidence is incomplete")
        }
    } catch {
        return (nil, "\(ruleset.rawValue): the request was refused (\(error.status))\n\(error)")
    }
}

/// XCTest: fails at the call's file and line unless the log's verdict is `pass`.
@discardableResult
public func XCTAssertOracle(_ ruleset: Ruleset, json: String, file: StaticString = #filePath,
                            line: UInt = #line) -> OracleResult? {
    let (result, message) = oracleFailure(ruleset, json: json)
    if let message { XCTFail(message, file: file, line: line) }
    return result
}

/// Swift Testing: records an issue at the call unless the log's verdict is `pass`.
@discardableResult
public func expectOracle(_ ruleset: Ruleset, json: String,
                         sourceLocation: SourceLocation = #_sourceLocation) -> OracleResult? {
    let (result, message) = oracleFailure(ruleset, json: json)
    if let message { Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation) }
    return result
}
