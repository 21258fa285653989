import XCTest
import DeviceOracleJSON
import DeviceOracleRules
@testable import DeviceOracleWire

/// A ruleset added the way DEVELOPERS.md says: a machine, its model and its
/// description, and nothing else. The engine reads, runs, compares and writes it like any other.
final class ToyRulesetTests: XCTestCase {
    func testAnswerListsEveryStepFromTheDescription() throws {
        let result = try answer(#"{"events":[{"type":"coin"},{"type":"push","id":"gate-2"},{"type":"push"}]}"#)

        XCTAssertEqual(result.text, #"{"ruleset":"turnstile/1","final":{"locked":true},"steps":["#
            + #"{"index":0,"event":{"type":"coin"},"before":{"locked":true},"after":{"locked":false},"action":"unlock"},"#
            + #"{"index":1,"id":"gate-2","event":{"type":"push"},"before":{"locked":false},"after":{"locked":true},"action":"lock"},"#
            + #"{"index":2,"event":{"type":"push"},"before":{"locked":true},"after":{"locked":true},"action":"none"}],"#
            + #""verdict":"unchecked","mismatches":[],"diagnostics":[]}"#)
    }

    func testInitialAndObservedAreReadWithTheDescriptionsNames() throws {
        let result = try answer(#"{"initial":{"locked":false},"events":[{"type":"push","observed":{"action":"none"}}],"observedFinal":{"locked":true}}"#)

        XCTAssertEqual(result.verdict, .fail)
        XCTAssertEqual(result["/mismatches"], #"[{"index":0,"field":"action","expected":"lock","observed":"none"}]"#)
    }

    func testUnknownNamesAreRefusedWithADidYouMean() {
        let problems = problems(#"{"initial":{"lockd":true},"events":[{"type":"coins"},{"type":"push","observed":{"actions":"lock"}}]}"#)

        XCTAssertEqual(problems, [
            "/initial/lockd: unknown initial field 'lockd'; did you mean 'locked'?",
            "/events/0/type: unknown event type 'coins'; did you mean 'coin'?",
            "/events/1/observed/actions: unknown observed field 'actions'; did you mean 'action'?",
        ])
    }

    func testOutOfOrderIsTheEnginesDiagnostic() throws {
        let result = try answer(#"{"events":[{"type":"coin","at":5},{"type":"push","at":4}]}"#)

        XCTAssertEqual(result["/diagnostics/0/code"], #""outOfOrder""#)
        XCTAssertEqual(result["/diagnostics/0/index"], "1")
    }

    func testTablesAreDerivedFromTheEnumsByRunningTheMachine() {
        let tables = RulesetTables<TurnstileRuleset>(ruleset: "turnstile/1")

        XCTAssertEqual(tables.stateJSON.map { String(decoding: $0, as: UTF8.self) }, [#"{"locked":false}"#, #"{"locked":true}"#])
        XCTAssertEqual(tables.afterSlots, [0, 0, 1, 1]) // coin unlocks either way; push locks either way
    }

    func testAWalkOfTheModelReplaysAsTheDescriptionsEvents() {
        var request = JSONWriter()
        FiniteModelCoding<TurnstileRuleset>().writeRequest(start: 0, events: [.coin, .push], to: &request)

        let text = String(decoding: request.finish(), as: UTF8.self)
        XCTAssertEqual(text, #"{"events":[{"type":"coin"},{"type":"push"}]}"#)
    }

    private func answer(_ body: String) throws -> Answer {
        let answer = try RequestBody.answer(Array(body.utf8), served: ["turnstile/1"], run: Self.run).get()
        return Answer(verdict: answer.verdict, text: String(decoding: answer.json, as: UTF8.self),
                      document: try JSONReader.parse(answer.json))
    }

    private func problems(_ body: String) -> [String] {
        guard case .failure(let rejection) = RequestBody.answer(Array(body.utf8), served: ["turnstile/1"],
                                                                run: Self.run) else { return [] }
        return rejection.problems.map { "\($0.pointer): \($0.detail)" }
    }

    private static let tables = RulesetTables<TurnstileRuleset>(ruleset: "turnstile/1")

    private static func run(_ decoder: inout RequestDecoder, _ request: JSONValue) -> RulesetAnswer? {
        var driver = EventLogDriver<TurnstileRuleset>(EventLogDriver.Shared(ruleset: "turnstile/1", tables: tables))
        return driver.answer(request, decoder: &decoder)
    }
}

/// A coin unlocks a locked turnstile; a push through an unlocked one locks it again.
private struct TurnstileMachine: StateMachine, Sendable {
    struct State: Hashable, Sendable {
        var locked = true
    }

    enum Event: String, NamedCase {
        case coin, push
    }

    enum Action: String, Sendable {
        case unlock, lock, none
    }

    private(set) var state: State

    mutating func apply(_ event: Event) -> Action {
        switch (event, state.locked) {
        case (.coin, true):
            state.locked = false
            return .unlock
        case (.push, false):
            state.locked = true
            return .lock
        case (.coin, false), (.push, true):
            return .none
        }
    }
}

/// The turnstile has nothing a person should look at.
private enum NoDiagnostic: RawRepresentable, CaseIterable, Hashable, Sendable {
    init?(rawValue: String) { nil }
    var rawValue: String { switch self {} }
}

extension TurnstileMachine.Action: DiagnosedDecision {
    fileprivate var diagnostics: [NoDiagnostic] { [] }
}

/// The turnstile's state declared once; each event is a class of its own.
private struct TurnstileModel: FiniteStateModel {
    static let stateFields = StateFieldTable(initial: TurnstileMachine.State(), .flag("locked", \.locked))
    typealias EventClass = TurnstileMachine.Event

    var starts: [TurnstileMachine] { [TurnstileMachine(state: TurnstileMachine.State())] }

    func label(of action: TurnstileMachine.Action) -> String { action.rawValue }
}

extension TurnstileMachine.Event: ModelEventClass {}

private enum TurnstileRuleset: FiniteRulesetDescription {
    typealias EventType = TurnstileMachine.Event
    typealias RuleDiagnostic = NoDiagnostic

    static let model = TurnstileModel()
    static let stepFields = StepField.stateFields + [.read("action") { .string($0.rawValue) }]

    static func machine(initial: TurnstileMachine.State, settings: NoSettings) -> TurnstileMachine {
        TurnstileMachine(state: initial)
    }

    static func machine(startingAt state: TurnstileMachine.State) -> TurnstileMachine { TurnstileMachine(state: state) }

    static func event(_ type: TurnstileMachine.Event) -> TurnstileMachine.Event? { type }

    static func writeDecision(_ action: TurnstileMachine.Action, to writer: inout JSONWriter) {
        writer.key("action")
        writer.string(escaping: action.rawValue)
    }

    static var noDecision: TurnstileMachine.Action { .none }

    static func forEachDiagnostic(of action: TurnstileMachine.Action, _ body: (NoDiagnostic) -> Void) {}
}
