import DeviceOracleJSON
import DeviceOracleRules
@testable import DeviceOracleWire

/// Issue 42: the model routes, JUnit and the in-process result read the engine's
/// values (`StepValues`, the static check's failures, the typed mismatches), never
/// its text. Each value must equal what reading the answer's text gives — the way
/// those outputs were made before, kept here as the reference.
func checkTypedEvaluation(_ endpoint: RulesetEndpoint, _ answer: RulesetAnswer, _ parsed: ParsedAnswer) throws(Broken) {
    let stepped = answer.text.stepped, steps = parsed.elements(parsed["steps"])
    try expect(stepped.stepCount == steps.count, "typed: \(stepped.stepCount) steps, the text lists \(steps.count)")
    for (index, step) in steps.enumerated() {
        let values = stepped.values(ofStep: index), before = parsed[step, "before"]
        if endpoint.name == "refresh/1" {
            try expect(values.before.store.map { String(decoding: $0, as: UTF8.self) } == parsed.text(before),
                       "step \(index): typed store before differs from the text's")
            try expect(values.before.lastSuccessAt == parsed.number(parsed[before, "lastSuccessAt"]),
                       "step \(index): lastSuccessAt before")
            try expect(values.run?.commits == parsed.number(parsed[step, "commits"]).map { Int($0) }, "step \(index): commits")
            let firstAction = parsed.strings(parsed[step, "actions"]).first
            try expect(values.run?.removesStaleTemp == (firstAction == "removeStaleTemp"), "step \(index): stale temp")
        } else {
            try expect(values.before.fields == modelFields(before, in: parsed), "step \(index): before \(values.before.fields)")
            let typed = typedEventClass(endpoint, values.event), text = textEventClass(endpoint, parsed[step, "event"], in: parsed)
            try expect(typed == text, "step \(index): event class \(String(describing: typed)), the text's \(String(describing: text))")
        }
        let textObserved: [String] = endpoint.observables.compactMap { name in
            guard let value = parsed[step, name] ?? parsed[parsed[step, "after"], name], isPlain(value, in: parsed) else { return nil }
            return name + "=" + parsed.text(value)
        }
        let typedObserved = values.canonicalObserved.map { $0.name + "=" + $0.value.jsonText(parsed.document) }
        try expect(typedObserved == textObserved, "step \(index): canonical observed \(typedObserved), the text's \(textObserved)")
    }
    if endpoint.name == "refresh/1" {
        try expect(stepped.finalState.store.map { String(decoding: $0, as: UTF8.self) } == parsed.text(parsed["final"]),
                   "final store")
    } else {
        try expect(stepped.finalState.fields == modelFields(parsed["final"], in: parsed), "final \(stepped.finalState.fields)")
    }
    try expect(stepped.staticCheckFailures == textStaticCheckFailures(parsed),
               "static check failures \(stepped.staticCheckFailures), the text's \(textStaticCheckFailures(parsed))")
    let textMismatches = parsed.elements(parsed["mismatches"]).map { parsed.text($0) }
    let typedMismatches = answer.mismatches.map { mismatch in
        var writer = JSONWriter()
        mismatch.write(to: &writer)
        return String(decoding: writer.finish(), as: UTF8.self)
    }
    try expect(typedMismatches == textMismatches, "typed mismatches \(typedMismatches), the text's \(textMismatches)")
}

/// A state object's members as model fields, in the order written.
private func modelFields(_ state: JSONValue?, in parsed: ParsedAnswer) -> [ModelField] {
    guard let state else { return [] }
    return parsed.document.members(state).compactMap { member in
        guard let name = parsed.document.string(member.key) else { return nil }
        if let flag = parsed.document.bool(member.value) { return ModelField(name, .bool(flag)) }
        return parsed.document.string(member.value).map { ModelField(name, .name($0)) }
    }
}

/// Not an object, and no array of containers.
private func isPlain(_ value: JSONValue, in parsed: ParsedAnswer) -> Bool {
    switch parsed.document.kind(value) {
    case .object: false
    case .array: parsed.elements(value).allSatisfy { parsed.document.kind($0) != .object && parsed.document.kind($0) != .array }
    default: true
    }
}

private func typedEventClass(_ endpoint: RulesetEndpoint, _ event: (any Sendable)?) -> Int? {
    switch endpoint.name {
    case "playback/1": (event as? PlaybackEvent).map(PlaybackModel().eventClass)
    case "haptics/1": (event as? HapticsEvent).map(HapticsModel().eventClass)
    case "audio-session/1": (event as? AudioSessionEvent).map(AudioSessionModel().eventClass)
    default: nil
    }
}

/// The event class of a step's canonical `event`, read from its text.
private func textEventClass(_ endpoint: RulesetEndpoint, _ event: JSONValue?, in parsed: ParsedAnswer) -> Int? {
    guard let event, let type = parsed.string(parsed[event, "type"]) else { return nil }
    let reason = parsed.string(parsed[event, "reason"]).flatMap(RouteChangeReason.init(name:))
    let shouldResume = parsed.bool(parsed[event, "shouldResume"])
    switch endpoint.name {
    case "playback/1":
        let meaning: PlaybackEvent? = switch type {
        case "interruptionBegan": .interruptionBegan
        case "interruptionEnded": shouldResume.map { .interruptionEnded(shouldResume: $0) }
        case "userPaused": .userPaused
        case "outputDisconnected": .outputDisconnected
        case "userPlayed": .userPlayed
        case "routeChanged": .routeChanged(reason: reason)
        default: nil
        }
        return meaning.map(PlaybackModel().eventClass)
    case "haptics/1":
        return HapticsEvent(rawValue: type).map(HapticsModel().eventClass)
    case "audio-session/1":
        let plain: [String: AudioSessionEvent] = [
            "launched": .launched, "enteredBackground": .enteredBackground, "deactivationFailed": .deactivationFailed,
            "deactivationSucceeded": .deactivationSucceeded, "enteredForeground": .enteredForeground,
            "interruptionBegan": .interruptionBegan, "mediaServicesLost": .mediaServicesLost,
            "mediaServicesReset": .mediaServicesReset, "willTerminate": .willTerminate,
        ]
        let meaning: AudioSessionEvent? = switch type {
        case "interruptionEnded": .interruptionEnded(shouldResume: shouldResume)
        case "routeChanged": .routeChanged(reason: reason)
        case "playSound": .playSound(name: parsed.string(parsed[event, "name"]) ?? "")
        default: plain[type]
        }
        return meaning.map(AudioSessionModel().eventClass)
    default:
        return nil
    }
}

/// JUnit's failure lines of the static checks, as they were read from the answer.
private func textStaticCheckFailures(_ parsed: ParsedAnswer) -> [String] {
    var lines: [String] = []
    for violation in parsed.elements(parsed[parsed["patternCheck"], "violations"]) {
        lines.append("patternCheck: \(parsed.string(parsed[violation, "rule"]) ?? "") at \(parsed.string(parsed[violation, "pointer"]) ?? ""): "
                     + "expected \(parsed.text(parsed[violation, "expected"])), observed \(parsed.text(parsed[violation, "observed"]))")
    }
    for entry in parsed.elements(parsed[parsed["configCheck"], "checks"]) where parsed.bool(parsed[entry, "pass"]) == false {
        let identifier = parsed.string(parsed[entry, "identifier"]).map { " '\($0)'" } ?? ""
        lines.append("configCheck: \(parsed.string(parsed[entry, "check"]) ?? "")\(identifier): \(parsed.string(parsed[entry, "detail"]) ?? "")")
    }
    return lines
}
