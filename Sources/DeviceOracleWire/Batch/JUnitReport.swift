import DeviceOracleJSON

extension CheckReport {
    /// The report as JUnit XML, the format CI systems show as test results: one
    /// `testcase` per case (its `classname` the ruleset); a `failure` listing a
    /// failed case's failed static checks and mismatches; an `error` listing why
    /// a case's request was refused; `skipped` for a case that checked nothing
    /// (`unchecked`). Every `time` is `0` and there is no timestamp: equal requests
    /// give equal reports, and readers that expect a time never see a missing one.
    /// `<testsuites>` carries no `skipped`: the Jenkins xUnit plugin's `junit-10.xsd`
    /// (Tests/Fixtures) refuses it there; `<testsuite>` has it.
    public var junitXML: [UInt8] {
        let counts = #"tests="\#(totals.cases)" failures="\#(totals.failed)" errors="\#(totals.errors)""#
        var lines = [#"<?xml version="1.0" encoding="UTF-8"?>"#,
                     #"<testsuites name="device-oracle check" \#(counts) time="0">"#,
                     #"  <testsuite name="device-oracle check" \#(counts) skipped="\#(totals.unchecked)" time="0">"#]
        for entry in cases {
            let testcase = #"    <testcase name="\#(xmlEscaped(entry.name))" classname="\#(xmlEscaped(entry.ruleset))" time="0""#
            switch entry.outcome {
            case .answered(let answer) where answer.verdict == .pass:
                lines.append(testcase + "/>")
            case .answered(let answer) where answer.verdict == .inconclusive:
                lines += [testcase + ">",
                          #"      <skipped message="inconclusive: the log's evidence is known to be incomplete"/>"#,
                          "    </testcase>"]
            case .answered(let answer) where answer.verdict == .unchecked:
                lines += [testcase + ">",
                          #"      <skipped message="unchecked: the request carried no observed, observedFinal or static check"/>"#,
                          "    </testcase>"]
            case .answered(let answer):
                let failure = answer.failure ?? Failure()
                lines += [testcase + ">",
                          #"      <failure message="\#(xmlEscaped(failure.message))" type="fail">"#
                              + xmlEscaped(failure.lines.joined(separator: "\n"), attribute: false) + "</failure>",
                          "    </testcase>"]
            case .refused(let rejection):
                let listed = rejection.problems.map { "\($0.pointer): \($0.detail)" }
                lines += [testcase + ">",
                          #"      <error message="\#(xmlEscaped(rejection.detail))" type="\#(rejection.problemType)">"#
                              + xmlEscaped((listed.isEmpty ? [rejection.detail] : listed).joined(separator: "\n"), attribute: false) + "</error>",
                          "    </testcase>"]
            }
        }
        lines += ["  </testsuite>", "</testsuites>", ""]
        return Array(lines.joined(separator: "\n").utf8)
    }
}

/// What failed in a failed answer, from its values: its failed static checks
/// (`patternCheck`, `configCheck`), then its mismatches in order.
struct Failure: Sendable {
    var lines: [String] = []
    var message = ""

    init() {}

    init(_ answer: RulesetAnswer) {
        lines = answer.text.stepped.staticCheckFailures
        let staticFailures = lines.count
        let mismatches = answer.mismatches
        for mismatch in mismatches {
            let step = mismatch.step.map { "step \($0)" } ?? "final"
            var line = "\(step): \(mismatch.field): expected \(mismatch.expected), observed \(mismatch.observed)"
            if let detail = mismatch.detail { line += " (\(detail))" }
            lines.append(line)
        }
        var parts: [String] = []
        if staticFailures > 0 { parts.append(staticFailures == 1 ? "1 failed static check" : "\(staticFailures) failed static checks") }
        if !mismatches.isEmpty { parts.append(mismatches.count == 1 ? "1 mismatch" : "\(mismatches.count) mismatches") }
        message = parts.joined(separator: ", ")
    }
}

/// Text for XML 1.0 content, or (escaping `"` too) a double-quoted attribute;
/// control characters XML cannot carry at all are replaced by U+FFFD. A parser
/// turns a raw TAB, LF or CR in an attribute into a space, and a raw CR anywhere
/// into LF (XML 1.0 §3.3.3, §2.11), so those are character references there.
func xmlEscaped(_ text: String, attribute: Bool = true) -> String {
    var escaped = ""
    escaped.reserveCapacity(text.utf8.count)
    for scalar in text.unicodeScalars {
        switch scalar {
        case "&": escaped += "&amp;"
        case "<": escaped += "&lt;"
        case ">": escaped += "&gt;"
        case "\"" where attribute: escaped += "&quot;"
        case "\t" where attribute: escaped += "&#9;"
        case "\n" where attribute: escaped += "&#10;"
        case "\r": escaped += "&#13;"
        case "\t", "\n": escaped.unicodeScalars.append(scalar)
        case _ where scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF:
            escaped += "\u{FFFD}"
        default: escaped.unicodeScalars.append(scalar)
        }
    }
    return escaped
}
