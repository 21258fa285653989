import DeviceOracleJSON
@_spi(Engine) import DeviceOracleRules

/// `POST /haptics/contract` (haptics.md): checks the exported `pattern` against
/// the confirmation contract and runs the `events` through one `HapticsMachine`,
/// answered by the event-log engine. Members in this order: `ruleset`,
/// `canonicalPattern`, `patternCheck` (when `pattern` was given), `final`, `steps`,
/// `summary`, `verdict`, `mismatches`, `diagnostics`.
enum HapticsRuleset: FiniteRulesetDescription {
    static let endpoint = EventLogDriver<Self>.endpoint(
        "haptics/1", path: "/haptics/contract",
        summary: "The \"Saved\" haptic confirmation: the pattern contract and when the haptic is requested.")
    static let model = HapticsModel()

    /// A request may check the `pattern` alone.
    static var eventsRequired: Bool { false }

    enum Setting: String, NamedCase {
        case pattern, expectedParameters, supportsHaptics, timingToleranceMs
    }

    struct Settings: Sendable {
        var pattern: (array: JSONValue, objects: [(index: Int, object: JSONValue)])?
        var contract: HapticPatternContract
        var supportsHaptics: Bool
        var timing: HapticTiming
        /// Once the log is valid.
        var patternCheck: HapticsPatternCheck?
    }

    /// `initial` names `phase` only: the engine follows from `supportsHaptics`.
    static var fieldsFromSettings: [PartialKeyPath<HapticsState>] { [\.engine] }

    /// Device-clock times (ms) that feed the `timing` check on a step that plays a haptic.
    private static let visibleAt = StepField.read("visibleAt") { _ in nil }
    private static let hapticAt = StepField.read("hapticAt") { _ in nil }
    static let stepFields: [StepField] = [
        .state(\.phase), .read("visible") { .string($0.visible.rawValue) }, .read("haptic") { .string($0.haptic.rawValue) },
        .state(\.engine), visibleAt, hapticAt,
    ]
    static let machineFields: [ObservedField<Self, HapticsMachine>] = [
        .read("hapticRequests") { .number(Double($0.summary.hapticRequests)) },
    ]

    typealias EventType = HapticsEvent
    typealias RuleDiagnostic = HapticsDiagnostic
    typealias Decision = HapticsStep

    static func settings(_ given: GivenMembers<Setting>, in request: JSONValue, eventsGiven: Bool,
                         _ decoder: inout RequestDecoder) -> Settings {
        if decoder.present(given[.pattern]) == nil, !eventsGiven {
            decoder.reportMissing("events", in: request,
                                  "a request needs 'pattern' (the pattern contract), 'events' (the flow) or both")
        }
        let pattern = decoder.value(given[.pattern], of: .array).map { (array: $0, objects: decoder.objects(in: $0)) }
        let contract = decoder.patternContract(expectedParameters: given[.expectedParameters])
        let supportsHaptics = decoder.bool(given[.supportsHaptics]) ?? true
        let timing = decoder.timing(toleranceMs: given[.timingToleranceMs])
        return Settings(pattern: pattern, contract: contract, supportsHaptics: supportsHaptics, timing: timing)
    }

    static func machine(initial: HapticsState, settings: Settings) -> HapticsMachine {
        HapticsMachine(state: HapticsState(phase: initial.phase, engine: settings.supportsHaptics ? .stopped : .unsupported))
    }

    static func machine(startingAt state: HapticsState) -> HapticsMachine { HapticsMachine(state: state) }

    /// A candidate may differ in `engine` too, which `initial` cannot name.
    static func machine(candidate state: HapticsState, settings: Settings) -> HapticsMachine {
        HapticsMachine(state: state)
    }

    /// A walk from the model's second start replays on hardware without haptics.
    static func writeWalkHead(startingIn state: HapticsState, to writer: inout JSONWriter) {
        guard state.engine == .unsupported else { return }
        writer.key("supportsHaptics")
        writer.bool(false)
    }

    /// The machine counts saves and haptic requests, which differ between paths.
    static var pathsJoin: Bool { false }

    /// Haptics events carry nothing but their type.
    static func event(_ type: HapticsEvent) -> HapticsEvent? { type }

    static func decide(_ event: HapticsEvent, on machine: inout HapticsMachine) -> HapticsStep {
        machine.decide(event)
    }

    static func writeDecision(_ decision: HapticsStep, to writer: inout JSONWriter) {
        writer.key("visible")
        writer.string(escaping: decision.visible.rawValue)
        writer.key("haptic")
        writer.string(escaping: decision.haptic.rawValue)
        writer.key("actions")
        writer.beginArray()
        decision.actions.forEach { writer.string(escaping: $0.rawValue) }
        writer.endArray()
    }

    static var noDecision: HapticsStep { .nothing }

    static func forEachDiagnostic(of decision: HapticsStep, _ body: (HapticsDiagnostic) -> Void) {
        if let diagnostic = decision.diagnostic { body(diagnostic) }
    }

    /// On a step that plays a haptic, when both times are given: |hapticAt − visibleAt|
    /// against `timingToleranceMs`.
    static func compareMore(_ observed: ObservedFields<Int>, decision: HapticsStep, index: Int,
                            settings: Settings, document: JSONDocument, mismatches: inout MismatchList) {
        let timing = settings.timing
        guard decision.haptic == .play,
              let visibleAt = observed.value(of: visibleAt, among: stepFields),
              let hapticAt = observed.value(of: hapticAt, among: stepFields) else { return }
        let tolerance = FieldValue.number(timing.toleranceMs)
        guard let visibleMs = document.number(visibleAt), let hapticMs = document.number(hapticAt) else {
            mismatches.append(Mismatch(index: index, field: "timing", expected: tolerance, observed: .null,
                                       detail: "'visibleAt' and 'hapticAt' must both be numbers (ms) to measure the timing"))
            return
        }
        guard !timing.accepts(visibleAt: visibleMs, hapticAt: hapticMs) else { return }
        let gap = HapticTiming.gap(visibleAt: visibleMs, hapticAt: hapticMs)
        if gap.isFinite {
            mismatches.append(Mismatch(index: index, field: "timing", expected: tolerance, observed: .number(gap)))
        } else {
            mismatches.append(Mismatch(index: index, field: "timing", expected: tolerance, observed: .null,
                                       detail: "|hapticAt - visibleAt| is beyond the range of a double"))
        }
    }

    static func staticCheckFailures(_ settings: Settings, document: JSONDocument) -> [String] {
        (settings.patternCheck?.violations ?? []).map { violation in
            "patternCheck: \(violation.rule.rawValue) at \(violation.pointer): expected "
                + "\(violation.expected.jsonText(document)), observed \(violation.observed.jsonText(document))"
        }
    }

    static func check(_ settings: inout Settings, _ decoder: RequestDecoder) -> Bool? {
        let document = decoder.document
        settings.patternCheck = settings.pattern.map { pattern in
            HapticsPatternCheck(patternPointer: { decoder.pointer(to: pattern.array) },
                                events: pattern.objects.map { GivenPatternEvent($0.object, index: $0.index, in: document) },
                                contract: settings.contract, document: document)
        }
        return settings.patternCheck?.passed
    }

    static func writeHead(_ settings: Settings, to writer: inout JSONWriter, document: JSONDocument) {
        writer.key("canonicalPattern")
        writer.raw(HapticsPatternCheck.canonicalPatternJSON)
        if let patternCheck = settings.patternCheck {
            writer.key("patternCheck")
            patternCheck.write(to: &writer, document: document)
        }
    }

    static func writeSummary(of machine: HapticsMachine, to writer: inout JSONWriter) {
        let summary = machine.summary
        writer.counts("summary", [("saves", summary.saves), ("failures", summary.failures),
                                  ("hapticRequests", summary.hapticRequests)])
    }
}

extension HapticsEvent: NamedCase {}

private extension RequestDecoder {
    /// `expectedParameters`: either value or both, each a number in [0, 1] — a
    /// tuned value outside the range no pattern could meet is a harness error.
    mutating func patternContract(expectedParameters value: JSONValue?) -> HapticPatternContract {
        var contract = HapticPatternContract()
        guard let object = self.value(value, of: .object) else { return contract }
        closedObject(object, names: hapticParameterNames) { decoder, parameter, value in
            guard let number = decoder.number(value) else { return }
            guard HapticPatternContract.parameterRange.contains(number) else {
                decoder.report("expected a number from 0 to 1", at: value)
                return
            }
            contract.expected[parameter] = number
        }
        return contract
    }

    /// `timingToleranceMs`: a number of milliseconds, not negative.
    mutating func timing(toleranceMs value: JSONValue?) -> HapticTiming {
        guard let value = present(value), let tolerance = number(value) else { return HapticTiming() }
        guard tolerance >= 0 else {
            report("expected a number that is not negative", at: value)
            return HapticTiming()
        }
        return HapticTiming(toleranceMs: tolerance)
    }
}
