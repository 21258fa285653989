import XCTest
import Foundation
@testable import DeviceOracleWire

/// `GET /rulesets/{name}/diagram`: the reachable graph, drawn from the rules.
final class DiagramTests: XCTestCase {
    private func text(_ endpoint: RulesetEndpoint, _ format: DiagramFormat) -> String {
        String(decoding: endpoint.diagram(format), as: UTF8.self)
    }

    func testPlaybackMermaidDiagram() {
        XCTAssertEqual(text(PlaybackRuleset.endpoint, .mermaid), """
            stateDiagram-v2
                direction LR
                state "(none set)" as s0
                state "isPlaying" as s1
                state "resumeAfterInterruption" as s2
                [*] --> s0
                s0 --> s0 : interruptionBegan, interruptionEnded(shouldResume=true), interruptionEnded(shouldResume=false), userPaused, outputDisconnected, routeChanged(reason=oldDeviceUnavailable), routeChanged(reason=otherKnown), routeChanged(reason=unknown) / none
                s0 --> s1 : userPlayed / play
                s1 --> s2 : interruptionBegan / pause
                s1 --> s0 : interruptionEnded(shouldResume=true), interruptionEnded(shouldResume=false), userPaused, outputDisconnected, routeChanged(reason=oldDeviceUnavailable) / pause
                s1 --> s1 : userPlayed, routeChanged(reason=otherKnown), routeChanged(reason=unknown) / none
                s2 --> s0 : interruptionBegan, interruptionEnded(shouldResume=false), userPaused, outputDisconnected, routeChanged(reason=oldDeviceUnavailable) / none
                s2 --> s1 : interruptionEnded(shouldResume=true), userPlayed / play
                s2 --> s2 : routeChanged(reason=otherKnown), routeChanged(reason=unknown) / none

            """)
    }

    func testEveryTransitionIsOnExactlyOneEdgeAndNoLabelBreaksMermaid() {
        let transitions = [27, 88, 87, 608]
        for (endpoint, count) in zip(Rulesets.all, transitions) {
            let edges = text(endpoint, .mermaid).split(separator: "\n").filter { $0.contains(" --> s") && !$0.contains("[*]") }
            let labels = edges.map { $0.split(separator: " : ", maxSplits: 1)[1] }
            let events = labels.map { $0.split(separator: " / ")[0].split(separator: ", ").count }.reduce(0, +)

            XCTAssertEqual(events, count, endpoint.name)
            // Mermaid ends a transition label at a colon or a semicolon.
            XCTAssertFalse(labels.contains { $0.contains(":") || $0.contains(";") }, endpoint.name)
        }
    }

    func testPlaybackJSONDiagramHasTheMermaidNodesAndEdgesWithTheirFields() {
        XCTAssertEqual(text(PlaybackRuleset.endpoint, .json), #"{"ruleset":"playback/1","nodes":["#
            + #"{"id":"s0","label":"(none set)","fields":{"isPlaying":false,"resumeAfterInterruption":false}},"#
            + #"{"id":"s1","label":"isPlaying","fields":{"isPlaying":true,"resumeAfterInterruption":false}},"#
            + #"{"id":"s2","label":"resumeAfterInterruption","fields":{"isPlaying":false,"resumeAfterInterruption":true}}],"#
            + #""starts":["s0"],"edges":["#
            + #"{"from":"s0","to":"s0","events":["interruptionBegan","interruptionEnded(shouldResume=true)","interruptionEnded(shouldResume=false)","userPaused","outputDisconnected","routeChanged(reason=oldDeviceUnavailable)","routeChanged(reason=otherKnown)","routeChanged(reason=unknown)"],"decision":"none"},"#
            + #"{"from":"s0","to":"s1","events":["userPlayed"],"decision":"play"},"#
            + #"{"from":"s1","to":"s2","events":["interruptionBegan"],"decision":"pause"},"#
            + #"{"from":"s1","to":"s0","events":["interruptionEnded(shouldResume=true)","interruptionEnded(shouldResume=false)","userPaused","outputDisconnected","routeChanged(reason=oldDeviceUnavailable)"],"decision":"pause"},"#
            + #"{"from":"s1","to":"s1","events":["userPlayed","routeChanged(reason=otherKnown)","routeChanged(reason=unknown)"],"decision":"none"},"#
            + #"{"from":"s2","to":"s0","events":["interruptionBegan","interruptionEnded(shouldResume=false)","userPaused","outputDisconnected","routeChanged(reason=oldDeviceUnavailable)"],"decision":"none"},"#
            + #"{"from":"s2","to":"s1","events":["interruptionEnded(shouldResume=true)","userPlayed"],"decision":"play"},"#
            + #"{"from":"s2","to":"s2","events":["routeChanged(reason=otherKnown)","routeChanged(reason=unknown)"],"decision":"none"}]}"#)
    }

    func testJSONDiagramsNameEveryTransitionOnceAndEveryEdgeEndIsANode() throws {
        let transitions = [27, 88, 87, 608]
        for (endpoint, count) in zip(Rulesets.all, transitions) {
            let graph = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(endpoint.diagram(.json))) as? [String: Any])
            let nodes = try XCTUnwrap(graph["nodes"] as? [[String: Any]]).compactMap { $0["id"] as? String }
            let edges = try XCTUnwrap(graph["edges"] as? [[String: Any]])
            let starts = try XCTUnwrap(graph["starts"] as? [String])

            XCTAssertEqual(edges.map { ($0["events"] as? [String])?.count ?? 0 }.reduce(0, +), count, endpoint.name)
            XCTAssertTrue(edges.allSatisfy { nodes.contains($0["from"] as? String ?? "") && nodes.contains($0["to"] as? String ?? "") })
            XCTAssertTrue(starts.allSatisfy(nodes.contains), endpoint.name)
        }
    }

    func testDOTRendersWithGraphviz() throws {
        guard let dot = ["/usr/bin/dot", "/usr/local/bin/dot"].first(where: FileManager.default.isExecutableFile) else {
            // .ci/run installs Graphviz and sets this, so CI never skips the test.
            if ProcessInfo.processInfo.environment["DEVICE_ORACLE_REQUIRE_DOT"] != nil {
                return XCTFail("Graphviz's dot is not installed, and DEVICE_ORACLE_REQUIRE_DOT is set")
            }
            throw XCTSkip("Graphviz's dot is not installed (Debian: apt-get install graphviz); .ci/run installs it")
        }
        for endpoint in Rulesets.all {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: dot)
            process.arguments = ["-Tsvg"]
            let input = Pipe(), output = Pipe(), errors = Pipe()
            process.standardInput = input
            process.standardOutput = output
            process.standardError = errors
            try process.run()
            input.fileHandleForWriting.write(Data(endpoint.diagram(.dot)))
            try input.fileHandleForWriting.close()
            let svg = output.fileHandleForReading.readDataToEndOfFile()
            let complaints = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()

            XCTAssertEqual(process.terminationStatus, 0, "\(endpoint.name): \(complaints)")
            XCTAssertEqual(complaints, "", endpoint.name)
            let text = String(decoding: svg, as: UTF8.self)
            XCTAssertTrue(text.contains("<svg"), endpoint.name)
            XCTAssertTrue(text.contains(">saveSucceeded</text>") || endpoint.name != "haptics/1")
        }
    }

    func testDOTQuotesItsLabels() {
        let dot = text(HapticsRuleset.endpoint, .dot)

        XCTAssertTrue(dot.hasPrefix("digraph \"haptics/1\" {\n"))
        XCTAssertTrue(dot.contains(#"    start1 -> s1;"#))
        XCTAssertTrue(dot.contains(#"    s2 -> s4 [label="saveSucceeded\n/ startEngine, playHaptic"];"#))
    }

    func testAnUnknownFormatSaysWhichThereAre() {
        guard case .failure(let error) = DiagramFormat.named("mermiad") else { return XCTFail("accepted") }

        XCTAssertEqual(error.detail, "unknown diagram format 'mermiad'; did you mean 'mermaid'? (formats: mermaid, dot, json)")
    }
}
