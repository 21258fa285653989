import DeviceOracleRules

extension RulesetTables {
    /// The state in `slot` as a step's `before` or the answer's `final` shows it.
    func shownState(_ slot: Int) -> ShownState {
        ShownState(fields: fields(ofSlot: slot))
    }

    /// The values of a step with a precomputed tail: its event and the state before it
    /// follow from the tail's number, and the rules decide the rest again (what makes
    /// the tails sound: a step follows from its event and the state before it).
    func stepValues(tail: Int) -> StepValues {
        let before = tail % stateCount, event = event(inSlot: tail / stateCount)
        var machine = D.machine(startingAt: slotStates[before])
        let decision = D.decide(event, on: &machine)
        return stepValues(event: event, before: before, after: afterSlots[tail], decision: decision)
    }

    func stepValues(event: D.Event?, before: Int, after: Int, decision: D.Decision) -> StepValues {
        let observed: [(name: String, value: FieldValue)] = stepFields.indices.compactMap { position in
            guard let value = expected(position, afterSlot: after, decision: decision), value.isPlain else { return nil }
            return (stepFields[position].name, value)
        }
        return StepValues(before: shownState(before), event: event, canonicalObserved: observed)
    }
}

extension PrecomputedSteps {
    /// The values of `step` of this evaluation.
    static func values(of step: EventLogStep, tables: RulesetTables<D>, specialSteps: SpecialSteps,
                       unfixedSteps: [UnfixedStep<D>]) -> StepValues {
        if step.tail >= 0 { return tables.stepValues(tail: step.tail) }
        switch specialSteps.steps[~step.tail] {
        case .echoing(let tail, _):
            return tables.stepValues(tail: tail)
        case .unfixed(let number):
            let unfixed = unfixedSteps[number]
            return tables.stepValues(event: unfixed.event, before: unfixed.before, after: unfixed.after,
                                     decision: unfixed.decision)
        }
    }
}
