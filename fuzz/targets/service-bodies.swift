// libFuzzer target: the request bodies of the service's own shapes, which the ruleset
// fuzzer never reaches — the batch check (`POST /check`, both its JSON and its JUnit
// report), and each ruleset's plan and coverage requests — fed arbitrary bodies.
//
// Input layout: byte 0 picks the handler (its value modulo 9: 0 the batch check, 1-4
// a ruleset's plan, 5-8 its coverage, in `Rulesets.all` order); the rest is the body.
import DeviceOracleWire

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let choice = Int(data[0]) % (1 + 2 * Rulesets.all.count)
    let body = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    switch choice {
    case 0:
        if case .success(let report) = BatchCheck.answer(body) {
            precondition(!report.json.isEmpty && !report.junitXML.isEmpty, "an empty report")
        }
    case 1...Rulesets.all.count:
        _ = Rulesets.all[choice - 1].plan(body)
    default:
        if case .success(let answer) = Rulesets.all[choice - 1 - Rulesets.all.count].coverage(body) {
            precondition(!answer.json.isEmpty, "an empty coverage answer")
        }
    }
    return 0
}
