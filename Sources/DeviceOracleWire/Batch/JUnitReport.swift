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
            case .answered(let answer) where answer.verdict == .unchecked:
                lines += [testcase + ">",
                          #"      <skipped message="unchecked: the request carried no observed, observedFinal or static check"/>"#,
                          "    </testcase>"]
            case .answered(let answer):
                let failure = Failure(answer)
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

/// What failed in a failed answer, read from the answer itself: its failed
/// static checks (`patternCheck`, `configCheck`), then its mismatches in order.
private struct Failure {
    var lines: [String] = []
    var message = ""

    init(_ answer: RulesetAnswer) {
        guard let document = try? JSONReader.parse(answer.json, maxDepth: .max) else {
            preconditionFailure("an answer is JSON")
        }
        let root = document.root
        var staticFailures = 0
        if let check = document.member(root, "patternCheck"), let violations = document.member(check, "violations") {
            for violation in document.elements(violations) {
                let text = { (name: StaticString) in document.member(violation, name).map { document.compactText($0) } ?? "null" }
                lines.append("patternCheck: \(document.text(violation, "rule")) at \(document.text(violation, "pointer")): "
                             + "expected \(text("expected")), observed \(text("observed"))")
                staticFailures += 1
            }
        }
        if let check = document.member(root, "configCheck"), let checks = document.member(check, "checks") {
            for entry in document.elements(checks) where document.member(entry, "pass").flatMap(document.bool) == false {
                let identifier = document.member(entry, "identifier").flatMap(document.string).map { " '\($0)'" } ?? ""
                lines.append("configCheck: \(document.text(entry, "check"))\(identifier): \(document.text(entry, "detail"))")
                staticFailures += 1
            }
        }
        var mismatchCount = 0
        for mismatch in document.member(root, "mismatches").map({ Array(document.elements($0)) }) ?? [] {
            let step = document.member(mismatch, "index").flatMap(document.integer).map { "step \($0)" } ?? "final"
            let value = { (name: StaticString) in document.member(mismatch, name).map { document.compactText($0) } ?? "null" }
            var line = "\(step): \(document.text(mismatch, "field")): expected \(value("expected")), observed \(value("observed"))"
            if let detail = document.member(mismatch, "detail").flatMap(document.string) { line += " (\(detail))" }
            lines.append(line)
            mismatchCount += 1
        }
        var parts: [String] = []
        if staticFailures > 0 { parts.append(staticFailures == 1 ? "1 failed static check" : "\(staticFailures) failed static checks") }
        if mismatchCount > 0 { parts.append(mismatchCount == 1 ? "1 mismatch" : "\(mismatchCount) mismatches") }
        message = parts.joined(separator: ", ")
    }
}

private extension JSONDocument {
    /// A string member's text, or "" when it has none.
    func text(_ object: JSONValue, _ name: StaticString) -> String {
        member(object, name).flatMap(string) ?? ""
    }

    /// A value as compact JSON text.
    func compactText(_ value: JSONValue) -> String {
        var writer = JSONWriter(capacity: 64)
        writer.value(value, of: self)
        return String(decoding: writer.finish(), as: UTF8.self)
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
