import XCTest
import DeviceOracleJSON
@testable import DeviceOracleWire

/// Which line of an NDJSON body is the head, the tail or an element (streaming.md, "Request").
final class NDJSONLayoutTests: XCTestCase {
    private let playbackHead: Set<String> = ["ruleset", "initial", "observedFinal"]

    /// Every line's number and role, in the order the layout decided them.
    private func roles(_ lines: [String], head: Set<String>? = nil) throws -> [String] {
        var layout = NDJSONLayout(headMembers: head ?? playbackHead)
        var decided: [(NDJSONLayout.Line, NDJSONLayout.Role)] = []
        for (offset, text) in lines.enumerated() {
            layout.next(NDJSONLayout.Line(number: offset + 1, document: try JSONReader.parse(Array(text.utf8)))) { decided.append(($0, $1)) }
        }
        decided += layout.end()
        return decided.map { line, role in
            switch role {
            case .head: "\(line.number) head"
            case .element(let index): "\(line.number) element \(index)"
            case .tail(let repeats): "\(line.number) tail" + (repeats ? " repeating the head's" : "")
            case .secondHead: "\(line.number) second head"
            }
        }
    }

    func testAFirstLineNamingOnlyHeadMembersIsTheHead() throws {
        let decided = try roles([#"{"ruleset":"playback/1","initial":{"isPlaying":true}}"#, #"{"type":"userPaused"}"#])

        XCTAssertEqual(decided, ["1 head", "2 element 0"])
    }

    func testAnEmptyObjectIsAnEmptyHead() throws {
        XCTAssertEqual(try roles(["{}", #"{"type":"userPaused"}"#]), ["1 head", "2 element 0"])
    }

    func testAnyOtherFirstLineIsTheFirstElement() throws {
        let decided = try roles([#"{"type":"userPlayed","initial":{}}"#, #"{"type":"userPaused"}"#])

        XCTAssertEqual(decided, ["1 element 0", "2 element 1"])
    }

    func testOnlyTheFirstLineCanBeAHead() throws {
        XCTAssertEqual(try roles([#"{"type":"userPlayed"}"#, "{}"]), ["1 element 0", "2 element 1"])
    }

    func testTheHeadMembersAreTheRulesets() throws {
        XCTAssertEqual(try roles([#"{"config":{}}"#], head: ["ruleset", "config", "observedFinal"]), ["1 head"])
        XCTAssertEqual(try roles([#"{"config":{}}"#]), ["1 element 0"])
    }

    func testALastLineWithOnlyObservedFinalIsTheTail() throws {
        let decided = try roles([#"{"type":"userPlayed"}"#, #"{"observedFinal":{"isPlaying":true}}"#])

        XCTAssertEqual(decided, ["1 element 0", "2 tail"])
    }

    func testAnObservedFinalLineThatIsNotLastIsAnElement() throws {
        let decided = try roles([#"{"type":"userPlayed"}"#, #"{"observedFinal":{}}"#, #"{"type":"userPaused"}"#])

        XCTAssertEqual(decided, ["1 element 0", "2 element 1", "3 element 2"])
    }

    func testATailAfterAHeadThatGaveObservedFinalRepeatsIt() throws {
        let repeated = try roles([#"{"observedFinal":{"isPlaying":true}}"#, #"{"observedFinal":{}}"#])
        let nullInHead = try roles([#"{"observedFinal":null}"#, #"{"observedFinal":{}}"#])

        XCTAssertEqual(repeated, ["1 head", "2 tail repeating the head's"])
        XCTAssertEqual(nullInHead, ["1 head", "2 tail"])
    }

    func testEveryRulesetsHeadMayNameItsBodysMembersButTheSequence() {
        let heads = Dictionary(uniqueKeysWithValues: Rulesets.all.map { ($0.name, $0.headMembers) })

        XCTAssertEqual(heads, [
            "playback/1": ["ruleset", "initial", "observedFinal"],
            "haptics/1": ["ruleset", "initial", "observedFinal", "pattern", "expectedParameters", "supportsHaptics",
                          "timingToleranceMs"],
            // Refresh reads `initial` only to refuse "unknown" (late-start.md), on line 1.
            "refresh/1": ["ruleset", "initial", "observedFinal", "config", "store", "schedule"],
            "audio-session/1": ["ruleset", "initial", "observedFinal", "category"],
        ])
    }
}
