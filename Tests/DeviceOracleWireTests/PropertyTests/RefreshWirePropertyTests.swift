import DeviceOracleJSON
import DeviceOracleRules
import PropertyChecking
import XCTest
@testable import DeviceOracleWire

/// `refresh.md` part 2 over the wire, for random run logs: starting stores, schedules,
/// pages with colliding ids, every fault, `at` values in and out of order.
final class RefreshWirePropertyTests: XCTestCase {
    /// A run as generated: its JSON and the run the rules must see (item content is the item's JSON text).
    private typealias Event = GeneratedEvent<RefreshRun<String>>

    private struct Setup {
        /// The starting store as the rules see it, and as the request gives it.
        var store: RefreshStore<String>?
        var storeJSON: JSON?
        var schedule: RefreshSchedule?
    }

    private typealias WireSample = Sample<Setup, Event>

    private static let endpoint = RefreshRuleset.endpoint
    private static let runs = max(PropertyRuns.count / 8, 1)

    /// A number as the answer writes it: integral values without a fraction.
    private static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : "\(value)"
    }

    private static func generate(_ random: inout SplitMix64) -> WireSample {
        func item() -> (json: JSON, item: RefreshItem<String>) {
            let id = "\(Int.random(in: 1...8, using: &random))"
            var members: [(String, JSON)] = [("id", .string(id))]
            if random.chance(70) { members.append(("title", .string("t\(Int.random(in: 0...3, using: &random))"))) }
            let json = JSON.object(members)
            return (json, RefreshItem(id: id, content: json.description))
        }
        var at = Double(Int.random(in: 0...5_000, using: &random))
        var store: RefreshStore<String>?, storeJSON: JSON?
        if random.chance(50) {
            let items = (0..<Int.random(in: 0...4, using: &random)).map { _ in item() }
            // A store given with a repeated id keeps the later item (upserted in order).
            let cursor: String? = random.chance(50) ? nil : "c0"
            let lastSuccessAt: Double? = random.chance(50) ? nil : at - 100
            store = RefreshStore(items: items.map(\.item), cursor: cursor, lastSuccessAt: lastSuccessAt)
            storeJSON = .object([("items", .array(items.map(\.json))), ("cursor", cursor.map(JSON.string) ?? .null),
                                 ("lastSuccessAt", lastSuccessAt.map { .number(number($0)) } ?? .null)])
        }
        let events = (0..<Int.random(in: 0...12, using: &random)).map { _ -> Event in
            at += Double(Int.random(in: random.chance(15) ? -900...0 : 0...4000, using: &random)) + (random.chance(10) ? 0.5 : 0)
            let pages = (0..<Int.random(in: 0...3, using: &random)).map { _ in
                let items = (0..<Int.random(in: 0...3, using: &random)).map { _ in item() }
                let cursor: String? = random.chance(30) ? nil : "c\(Int.random(in: 0...5, using: &random))"
                var members: [(String, JSON)] = [("items", .array(items.map(\.json)))]
                if let cursor { members.append(("nextCursor", .string(cursor))) } else if random.chance(50) { members.append(("nextCursor", .null)) }
                return (json: JSON.object(members), page: RefreshPage(items: items.map(\.item), nextCursor: cursor))
            }
            var members: [(String, JSON)] = [("at", .number(number(at))), ("pages", .array(pages.map(\.json)))]
            var fault: RefreshFault?
            if !pages.isEmpty, random.chance(50) {
                fault = RefreshFault(kind: random.pick(RefreshFaultKind.allCases), stage: random.pick(RefreshStage.allCases),
                                     page: Int.random(in: 0..<pages.count, using: &random))
                members.append(("fault", .object([("kind", .string(fault!.kind.rawValue)), ("stage", .string(fault!.stage.rawValue)),
                                                  ("page", .int(fault!.page))])))
            }
            if random.chance(20) { members.append(("id", .string("run-\(Int.random(in: 0...99, using: &random))"))) }
            members.shuffle(using: &random)
            let observed: [(String, JSON)]? = random.chance(20)
                ? [("outcome", .string(random.pick(RefreshOutcome.allCases).rawValue)), ("items", .array([.string("1")]))]
                    .filter { _ in random.chance(60) } : nil
            return Event(members: members, meaning: try! RefreshRun(at: at, pages: pages.map(\.page), fault: fault), at: at,
                         observed: observed)
        }
        var schedule: RefreshSchedule?
        if random.chance(40) {
            schedule = RefreshSchedule(intervalSeconds: Double(Int.random(in: 0...1800, using: &random)),
                                       backoffBaseSeconds: Double(Int.random(in: 0...120, using: &random)),
                                       backoffMaxSeconds: Double(Int.random(in: 0...7200, using: &random)))
        }
        return Sample(setup: Setup(store: store, storeJSON: storeJSON, schedule: schedule), events: events)
    }

    private static func body(_ sample: WireSample) -> JSON {
        var members: [(String, JSON)] = [("runs", .array(sample.events.map(\.json)))]
        if let store = sample.setup.storeJSON { members.append(("store", store)) }
        if let schedule = sample.setup.schedule {
            members.append(("schedule", .object([("intervalSeconds", .number(number(schedule.intervalSeconds))),
                                                 ("backoffBaseSeconds", .number(number(schedule.backoffBaseSeconds))),
                                                 ("backoffMaxSeconds", .number(number(schedule.backoffMaxSeconds)))])))
        }
        return .object(members)
    }

    private static func storeText(_ store: RefreshStore<String>) -> String {
        let items = "[" + store.items.map(\.content).joined(separator: ",") + "]"
        let cursor = store.cursor.map { JSON.string($0).description } ?? "null"
        let lastSuccessAt = store.lastSuccessAt.map(number) ?? "null"
        return #"{"items":\#(items),"cursor":\#(cursor),"lastSuccessAt":\#(lastSuccessAt)}"#
    }

    func testEachAnswerReadsAsItsStepsDecisionsAndFindings() {
        checkAnswerReading(Self.endpoint, runs: Self.runs, generate: Self.generate, body: { Self.body($0) })
    }

    func testEqualRequestsGetByteIdenticalAnswersWithOneStepPerRun() {
        checkAnswersProperty(Self.endpoint, runs: Self.runs, generate: Self.generate, body: { Self.body($0) })
    }

    func testEveryRunStepAndTheSummaryAreTheRulesApplied() {
        // Each step's outcome, completion, counts, actions, stores and next request, `final` and `summary`
        // are exactly what the rules decide for the store and schedule given.
        checkProperty("steps follow the rules", runs: Self.runs, generate: Self.generate) { sample in
            holds { () throws(Broken) in
                let answer = try checkedAnswer(Self.endpoint, Self.body(sample), steps: sample.events.count)
                var machine = RefreshMachine(state: RefreshState(store: sample.setup.store ?? RefreshStore()),
                                             schedule: sample.setup.schedule ?? RefreshSchedule())
                var summary = RefreshSummary()
                for (index, (step, event)) in zip(answer.elements(answer["steps"]), sample.events).enumerated() {
                    let before = machine.state.store
                    let decision = machine.apply(event.meaning!)
                    summary.count(decision)
                    let members = ["outcome", "taskCompleted", "pagesCommitted", "commits", "tempFilesLeft", "before", "after",
                                   "actions", "nextEarliestBeginAt"]
                    let shown = members.map { answer.text(answer[step, $0]) }
                    let wanted = ["\"\(decision.outcome.rawValue)\"", decision.taskCompleted.map { "\($0)" } ?? "null",
                                  "\(decision.pagesCommitted)", "\(decision.commits)", "\(decision.tempFilesLeft)",
                                  Self.storeText(before), Self.storeText(machine.state.store),
                                  JSON.array(decision.actions.map { .string($0.rawValue) }).description,
                                  decision.nextEarliestBeginAt.map(Self.number) ?? "null"]
                    try expect(shown == wanted, "run \(index) shows \(shown), expected \(wanted)")
                }
                try expect(answer.text(answer["final"]) == Self.storeText(machine.state.store), "final \(answer.text(answer["final"]))")
                let counts = [("runs", summary.runs), ("commits", summary.commits), ("succeeded", summary.succeeded),
                              ("failed", summary.failed), ("expired", summary.expired), ("crashed", summary.crashed)]
                let wantedSummary = JSON.object(counts.map { ($0.0, JSON.int($0.1)) }).description
                try expect(answer.text(answer["summary"]) == wantedSummary, "summary \(answer.text(answer["summary"]))")
            }
        }
    }

    func testNoStoreHoldsAnIdTwiceAndLastSuccessAtMovesOnlyOnSuccess() {
        // refresh.md: "the store never holds an id twice"; "lastSuccessAt never changes on a run that did
        // not succeed" — read from the answer alone.
        checkProperty("store invariants", runs: Self.runs, generate: Self.generate) { sample in
            holds { () throws(Broken) in
                let answer = try checkedAnswer(Self.endpoint, Self.body(sample), steps: sample.events.count)
                for (index, step) in answer.elements(answer["steps"]).enumerated() {
                    let after = answer[step, "after"], before = answer[step, "before"]
                    let ids = answer.elements(answer[after, "items"]).map { answer.text(answer[$0, "id"]) }
                    try expect(Set(ids).count == ids.count, "run \(index) holds ids \(ids)")
                    let moved = answer.text(answer[after, "lastSuccessAt"]) != answer.text(answer[before, "lastSuccessAt"])
                    if moved || answer.string(answer[step, "outcome"]) == "succeeded" {
                        try expect(answer.string(answer[step, "outcome"]) == "succeeded"
                                   && answer.text(answer[after, "lastSuccessAt"]) == answer.text(answer[step, "at"]),
                                   "run \(index): \(answer.text(answer[step, "outcome"])) left lastSuccessAt \(answer.text(answer[after, "lastSuccessAt"]))")
                    }
                }
            }
        }
    }
}
