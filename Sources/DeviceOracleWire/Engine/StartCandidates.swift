import DeviceOracleJSON
import DeviceOracleRules

/// `"initial": "unknown"` (late-start.md): every start state the rules reach from the
/// request's own start, each followed through the log as a request with that
/// `initial` would be. Paths that reach the same state have the same future, so from
/// then on they are one group: a step costs one decision per distinct state followed
/// (at most the ruleset's reachable states), whatever the number of candidates (where
/// a machine also counts what its paths did, haptics', each member's machine is kept
/// too, and run: at most 7 there).
struct StartCandidates<D: FiniteRulesetDescription> {
    /// Candidates whose paths are in the same state, with that path's machine.
    struct Group {
        var machine: D.Machine
        var slot: Int
        /// Candidate numbers, in no particular order.
        var members: [Int]
        /// Where paths do not join (`D.pathsJoin` false): each member's own machine, in
        /// `members`' order; its state is `machine`'s, its decisions too.
        var ownMachines: [D.Machine] = []
        /// Whether any member is still consistent (then all its consistent members
        /// stay so together: same state, same observations).
        var hasConsistent = true
        /// The step after which its consistent members have shared one state.
        var joinedAt = 0
    }

    /// A path the JSON form follows (`Light`): its state and the group it is.
    struct LightPath {
        var slot: Int
        /// The candidate that names its group (`Light.parent`).
        var root: Int
        var joinedAt = 0
    }

    /// How the JSON form follows the candidates of a ruleset whose paths join: only the
    /// consistent ones, by state slot through the precomputed tables, with no machine
    /// and nothing per candidate in a step. A joined path's candidates are found at the
    /// end through `parent` (the path each joined), as a union-find would.
    struct Light {
        var paths: [LightPath]
        var nextPaths: [LightPath] = []
        var parent: [Int]
        /// By root: the step its path was ruled out at.
        var rootRuledOutAt: [Int?]

        func root(of candidate: Int) -> Int {
            var candidate = candidate
            while parent[candidate] != candidate { candidate = parent[candidate] }
            return candidate
        }
    }

    private var light: Light?

    /// Each candidate's start state, by slot, in the answer's order.
    let starts: [Int]
    /// The step of each candidate's first mismatch (the step count for
    /// `observedFinal`); `nil` while it is consistent.
    private(set) var ruledOutAt: [Int?]
    private var groups: [Group]
    /// The groups of the step being taken, and where each state's is: kept between
    /// steps so a step allocates nothing.
    private var nextGroups: [Group] = []
    private var groupAtSlot: [Int]
    /// Whether each candidate's own findings are kept (the NDJSON form, whose reported
    /// path is known only at the end), and every candidate followed to the end.
    let keepsFindings: Bool
    private(set) var findings: [ListedFindings]
    private(set) var stepCount = 0
    /// Whether any `observed` or `observedFinal` was carried.
    private(set) var carried = false

    /// The candidates of a request whose own start (settings applied) is `start`.
    /// `keepsFindings`: follow every candidate to the end with its findings, not only
    /// the consistent ones.
    init(tables: RulesetTables<D>, start: D.State, settings: D.Settings, keepsFindings: Bool) {
        let reachable = tables.reachableSlots(from: tables.slot(of: start))
        starts = reachable.sorted { tables.stateJSON[$0].lexicographicallyPrecedes(tables.stateJSON[$1]) }
        ruledOutAt = Array(repeating: nil, count: starts.count)
        groups = starts.enumerated().map { candidate, slot in
            let machine = D.machine(candidate: tables.slotStates[slot], settings: settings)
            return Group(machine: machine, slot: slot, members: [candidate], ownMachines: D.pathsJoin ? [] : [machine])
        }
        groupAtSlot = Array(repeating: -1, count: tables.stateCount)
        self.keepsFindings = keepsFindings
        findings = keepsFindings ? Array(repeating: ListedFindings(), count: starts.count) : []
        if !keepsFindings, D.pathsJoin {
            light = Light(paths: starts.enumerated().map { LightPath(slot: $0.element, root: $0.offset) },
                          parent: Array(starts.indices), rootRuledOutAt: Array(repeating: nil, count: starts.count))
            groups = []
        }
    }

    /// `step` of the JSON form, for a ruleset whose paths join (`Light`).
    private mutating func lightStep(_ light: inout Light, _ event: D.Event?, eventSlot: Int?, index: Int,
                                    observed: ObservedFields<Int>?, settings: D.Settings,
                                    document: JSONDocument, tables: RulesetTables<D>) {
        light.nextPaths.removeAll(keepingCapacity: true)
        for var path in light.paths {
            let decision: D.Decision
            if let eventSlot {
                let tail = tables.tail(ofEventSlot: eventSlot, from: path.slot)
                path.slot = tables.afterSlots[tail]
                decision = tables.tailDecisions[tail]
            } else if let event {
                var machine = D.machine(startingAt: tables.slotStates[path.slot])
                decision = D.decide(event, on: &machine)
                path.slot = tables.slot(of: machine.state)
            } else {
                decision = D.noDecision
            }
            if let observed {
                var found = MismatchList()
                found.compare(observed, index: index, document: document, name: { tables.stepFields[$0].name }) {
                    tables.expected($0, afterSlot: path.slot, decision: decision)
                }
                D.compareMore(observed, decision: decision, index: index, settings: settings, document: document,
                              mismatches: &found)
                if !found.entries.isEmpty {
                    light.rootRuledOutAt[path.root] = index
                    continue
                }
            }
            let existing = groupAtSlot[path.slot]
            if existing >= 0 {
                light.nextPaths[existing].joinedAt = max(light.nextPaths[existing].joinedAt, path.joinedAt, index)
                light.parent[path.root] = light.nextPaths[existing].root
            } else {
                groupAtSlot[path.slot] = light.nextPaths.count
                light.nextPaths.append(path)
            }
        }
        for path in light.nextPaths { groupAtSlot[path.slot] = -1 }
        swap(&light.paths, &light.nextPaths)
    }

    /// `finish` of the JSON form, for a ruleset whose paths join (`Light`).
    private mutating func lightFinish(_ light: inout Light, observedFinal: ObservedFields<Int>?,
                                      settings: D.Settings, document: JSONDocument, tables: RulesetTables<D>) {
        if let observedFinal {
            light.paths = light.paths.filter { path in
                var found = MismatchList()
                let machine = D.machine(candidate: tables.slotStates[path.slot], settings: settings)
                found.compare(observedFinal, index: nil, prefix: "final.", document: document,
                              name: { tables.finalFields[$0].name }) { tables.expectedFinal($0, of: machine) }
                if found.entries.isEmpty { return true }
                light.rootRuledOutAt[path.root] = stepCount
                return false
            }
        }
        ruledOutAt = starts.indices.map { light.rootRuledOutAt[light.root(of: $0)] }
        groups = light.paths.map { path in
            Group(machine: D.machine(candidate: tables.slotStates[path.slot], settings: settings), slot: path.slot,
                  members: starts.indices.filter { light.root(of: $0) == path.root }, joinedAt: path.joinedAt)
        }
    }

    /// The machine a request with candidate `number`'s state as its start runs.
    func start(_ number: Int, tables: RulesetTables<D>, settings: D.Settings) -> D.Machine {
        D.machine(candidate: tables.slotStates[starts[number]], settings: settings)
    }

    /// Follows every group through step `index`: `event` (`nil`: it reached no machine),
    /// whose slot among the fixed events is `eventSlot`, and what was observed after it.
    /// `leading`: the step's diagnostics that do not depend on the path (kept findings only).
    mutating func step(_ event: D.Event?, eventSlot: Int?, index: Int, leading: [Diagnostic],
                       observed: ObservedFields<Int>?, settings: D.Settings, document: JSONDocument,
                       tables: RulesetTables<D>) {
        stepCount = index + 1
        if observed != nil { carried = true }
        if var light = light.take() {
            lightStep(&light, event, eventSlot: eventSlot, index: index, observed: observed, settings: settings,
                      document: document, tables: tables)
            self.light = light
            return
        }
        nextGroups.removeAll(keepingCapacity: true)
        for var group in groups {
            let decision: D.Decision
            if let event {
                decision = D.decide(event, on: &group.machine)
                for member in group.ownMachines.indices { _ = D.decide(event, on: &group.ownMachines[member]) }
                group.slot = if let eventSlot {
                    tables.afterSlots[tables.tail(ofEventSlot: eventSlot, from: group.slot)]
                } else {
                    tables.slot(of: group.machine.state)
                }
            } else {
                decision = D.noDecision
            }
            var found = MismatchList()
            if let observed {
                found.compare(observed, index: index, document: document, name: { tables.stepFields[$0].name }) {
                    tables.expected($0, afterSlot: group.slot, decision: decision)
                }
                D.compareMore(observed, decision: decision, index: index, settings: settings, document: document,
                              mismatches: &found)
            }
            if !found.entries.isEmpty { ruleOut(&group, at: index) }
            if keepsFindings {
                var diagnostics = leading
                D.forEachDiagnostic(of: decision) { diagnostics.append(Diagnostic(index: index, tables.code(of: $0))) }
                if !found.entries.isEmpty || !diagnostics.isEmpty {
                    // Written once: the members share the texts.
                    let mismatches = found.entries.map { AnswerMismatch($0, in: document) }
                    for member in group.members {
                        for mismatch in mismatches { findings[member].list(mismatch) }
                        for diagnostic in diagnostics { findings[member].list(diagnostic) }
                    }
                }
            } else if !group.hasConsistent {
                // Its members' first mismatches are known: nothing more to follow.
                continue
            }
            place(group, at: index)
        }
        for group in nextGroups { groupAtSlot[group.slot] = -1 }
        swap(&groups, &nextGroups)
    }

    /// Compares `observedFinal` with each group's final state: a mismatch rules out
    /// after the last step.
    mutating func finish(observedFinal: ObservedFields<Int>?, settings: D.Settings, document: JSONDocument,
                         tables: RulesetTables<D>) {
        if observedFinal != nil { carried = true }
        if var light = light.take() {
            lightFinish(&light, observedFinal: observedFinal, settings: settings, document: document, tables: tables)
            return
        }
        guard let observedFinal else { return }
        for position in groups.indices {
            var group = groups[position]
            var consistent = false
            for (place, member) in group.members.enumerated() {
                var found = MismatchList()
                let machine = group.ownMachines.isEmpty ? group.machine : group.ownMachines[place]
                found.compare(observedFinal, index: nil, prefix: "final.", document: document,
                              name: { tables.finalFields[$0].name }) { tables.expectedFinal($0, of: machine) }
                if found.entries.isEmpty {
                    consistent = consistent || ruledOutAt[member] == nil
                } else {
                    if ruledOutAt[member] == nil { ruledOutAt[member] = stepCount }
                    if keepsFindings { for mismatch in found.entries { findings[member].list(mismatch, in: document) } }
                }
            }
            group.hasConsistent = consistent
            groups[position] = group
        }
    }

    private mutating func ruleOut(_ group: inout Group, at index: Int) {
        guard group.hasConsistent else { return }
        for member in group.members where ruledOutAt[member] == nil { ruledOutAt[member] = index }
        group.hasConsistent = false
    }

    /// Puts `group` among the next step's, joined with the group already in its state.
    private mutating func place(_ group: Group, at index: Int) {
        let existing = groupAtSlot[group.slot]
        guard existing >= 0 else {
            groupAtSlot[group.slot] = nextGroups.count
            nextGroups.append(group)
            return
        }
        if nextGroups[existing].hasConsistent, group.hasConsistent {
            nextGroups[existing].joinedAt = max(nextGroups[existing].joinedAt, group.joinedAt, index)
        } else if group.hasConsistent {
            nextGroups[existing].joinedAt = group.joinedAt
            nextGroups[existing].hasConsistent = true
        }
        nextGroups[existing].members += group.members
        nextGroups[existing].ownMachines += group.ownMachines
    }

    /// The candidate whose path the answer shows: the first consistent one; else the
    /// one ruled out latest, the first of those on a tie.
    var reported: Int {
        if let first = ruledOutAt.firstIndex(where: { $0 == nil }) { return first }
        var latest = 0
        for (number, index) in ruledOutAt.enumerated() where (index ?? -1) > (ruledOutAt[latest] ?? -1) { latest = number }
        return latest
    }

    /// Where candidate `number`'s path ended (after `finish`; with kept findings, every
    /// candidate's is followed).
    func end(of number: Int) -> (machine: D.Machine, slot: Int)? {
        for group in groups {
            guard let place = group.members.firstIndex(of: number) else { continue }
            return (group.ownMachines.isEmpty ? group.machine : group.ownMachines[place], group.slot)
        }
        return nil
    }

    /// The two members the answer adds after `final`.
    var answer: LateStartAnswer {
        let consistent = starts.indices.filter { ruledOutAt[$0] == nil }
        let together = groups.filter(\.hasConsistent)
        let determinedAt = stepCount > 0 && !consistent.isEmpty && together.count == 1 ? together[0].joinedAt : nil
        return LateStartAnswer(candidates: consistent.map { starts[$0] }, determinedAt: determinedAt)
    }
}

/// `initialCandidates` (state slots) and `determinedAt`.
struct LateStartAnswer: Sendable {
    var candidates: [Int]
    var determinedAt: Int?

    func write(stateJSON: [[UInt8]], to writer: inout JSONWriter) {
        writer.key("initialCandidates")
        writer.beginArray()
        for slot in candidates { writer.raw(stateJSON[slot]) }
        writer.endArray()
        writer.key("determinedAt")
        if let determinedAt { writer.integer(determinedAt) } else { writer.null() }
    }
}

extension RulesetTables {
    /// The slots of every state the rules reach from `start` by fixed events
    /// (breadth first), `start` included.
    func reachableSlots(from start: Int) -> [Int] {
        var seen = Array(repeating: false, count: stateCount)
        var queue = [start]
        seen[start] = true
        var position = 0
        let eventCount = afterSlots.count / stateCount
        while position < queue.count {
            let slot = queue[position]
            position += 1
            for eventSlot in 0..<eventCount {
                let after = afterSlots[tail(ofEventSlot: eventSlot, from: slot)]
                if !seen[after] {
                    seen[after] = true
                    queue.append(after)
                }
            }
        }
        return queue
    }
}

extension RequestDecoder {
    /// Whether the string `value` of `initial` is `"unknown"`; any other string is a
    /// problem, with a did-you-mean.
    mutating func unknownStart(_ value: JSONValue) -> Bool {
        let text = document.string(value) ?? ""
        if text == "unknown" { return true }
        var detail = "'initial' is a state object or \"unknown\", not '\(text)'"
        if DidYouMean.closest(to: text, among: ["unknown"]) != nil { detail += "; did you mean 'unknown'?" }
        report(detail, at: value)
        return false
    }
}
