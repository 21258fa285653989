import XCTest
import DeviceOracleRules

/// The state models: what breadth-first search finds in the real machines, that
/// the abstraction is sound, and that plans cover what they claim.
final class ExplorationTests: XCTestCase {
    // MARK: Reachable states and transitions

    func testPlaybackNeverReachesPlayingWhileWaitingToResume() {
        let graph = StateGraph(PlaybackModel())

        XCTAssertEqual(graph.nodes, [
            PlaybackState(isPlaying: false, resumeAfterInterruption: false),
            PlaybackState(isPlaying: true, resumeAfterInterruption: false),
            PlaybackState(isPlaying: false, resumeAfterInterruption: true),
        ])
        XCTAssertEqual(graph.transitions.count, 3 * 9)
        XCTAssertNil(graph.index(of: PlaybackState(isPlaying: true, resumeAfterInterruption: true)))
    }

    func testEveryEventClassStandsForAnEventThatFallsInIt() {
        // A class stands for its first event in the model's alphabet: every class has one.
        XCTAssertEqual(PlaybackModel.EventClass.allCases.map { PlaybackModel.EventClass($0.event) },
                       PlaybackModel.EventClass.allCases)
        XCTAssertEqual(AudioSessionModel.EventClass.allCases.map { AudioSessionModel.EventClass($0.event) },
                       AudioSessionModel.EventClass.allCases)
    }

    func testTheStandingEventsArePlansEvents() {
        XCTAssertEqual(PlaybackModel.EventClass.routeChangedOtherKnown.event, .routeChanged(reason: .newDeviceAvailable))
        XCTAssertEqual(PlaybackModel.EventClass.routeChangedUnknown.event, .routeChanged(reason: nil))
        XCTAssertEqual(AudioSessionModel.EventClass.interruptionEndedWithoutHint.event, .interruptionEnded(shouldResume: nil))
        XCTAssertEqual(AudioSessionModel.EventClass.playSound.event, .playSound(name: "tap"))
    }

    func testAGraphFromEveryStateHasEveryStateAsANode() {
        let every = [false, true].flatMap { playing in
            [false, true].map { PlaybackMachine(state: PlaybackState(isPlaying: playing, resumeAfterInterruption: $0)) }
        }
        let graph = StateGraph(PlaybackModel(), starts: every)

        XCTAssertEqual(graph.nodes.count, 4)
        XCTAssertEqual(graph.startNodes.map { graph.nodes[$0] }, every.map(\.state))
        XCTAssertEqual(graph.machine(at: graph.startNodes[3]).state, PlaybackState(isPlaying: true, resumeAfterInterruption: true))
    }

    // MARK: Shortest routes

    func testTheShortestRouteIsNeverLongerThanAnyEventSequenceBetweenTwoStates() {
        // Every sequence of up to three event classes from every node: none reaches a
        // node in fewer steps than the route, and every node it reaches has a route.
        let graph = StateGraph(HapticsModel())
        let classes = graph.eventClassCount
        for origin in graph.nodes.indices {
            var fewest = [origin: 0], frontier = [origin]
            for length in 1...3 {
                frontier = frontier.flatMap { node in (0..<classes).map { graph.transition(from: node, eventClass: $0).to } }
                for node in frontier where fewest[node] == nil { fewest[node] = length }
            }
            for (target, length) in fewest {
                let route = graph.shortestRoute(from: origin, to: target)
                XCTAssertEqual(route?.count, length, "\(graph.nodes[origin]) to \(graph.nodes[target])")
                XCTAssertEqual(route?.first.map { graph.transitions[$0].from } ?? origin, origin)
                XCTAssertEqual(route?.last.map { graph.transitions[$0].to } ?? origin, target)
            }
        }
    }

    func testOfEquallyShortRoutesTheOneWhoseEventClassesComeFirstIsTaken() {
        let graph = StateGraph(PlaybackModel())
        let idle = graph.index(of: PlaybackState())!, waiting = graph.index(of: PlaybackState(resumeAfterInterruption: true))!

        let route = graph.shortestRoute(from: idle, to: waiting)!

        XCTAssertEqual(route.map { graph.model.eventClasses[graph.transitions[$0].eventClass] }, ["userPlayed", "interruptionBegan"])
    }

    func testOfEquallyShortRoutesOneTheRulesDoNotFlagIsTaken() {
        // Playing to paused: `interruptionEnded` comes first among the classes, but an
        // end with no begin is flagged (`endWithoutBegin`); `userPaused` is not.
        let graph = StateGraph(PlaybackModel())
        let playing = graph.index(of: PlaybackState(isPlaying: true))!, idle = graph.index(of: PlaybackState())!
        let endWithoutBegin = graph.transition(from: playing, eventClass: 1)
        XCTAssertEqual(endWithoutBegin.to, idle)
        XCTAssertTrue(endWithoutBegin.diagnosed)

        let route = graph.shortestRoute(from: playing, to: idle)!

        XCTAssertEqual(route.map { graph.model.eventClasses[graph.transitions[$0].eventClass] }, ["userPaused"])
    }

    func testANodeOutOfReachHasNoRoute() {
        let graph = StateGraph(HapticsModel())
        let supported = graph.startNodes[0], unsupported = graph.startNodes[1]

        XCTAssertNil(graph.shortestRoute(from: unsupported, to: supported))
        XCTAssertEqual(graph.shortestRoute(from: supported, to: supported), [])
    }

    func testHapticsExploresBothHardwareKindsAndNeverRunsTheEngineWhileIdle() {
        let graph = StateGraph(HapticsModel())

        XCTAssertEqual(graph.nodes.count, 11)
        XCTAssertEqual(graph.transitions.count, 11 * 8)
        XCTAssertEqual(graph.startNodes.map { graph.nodes[$0] },
                       [HapticsState(phase: .idle, engine: .stopped), HapticsState(phase: .idle, engine: .unsupported)])
        XCTAssertNil(graph.index(of: HapticsState(phase: .idle, engine: .running)))
        XCTAssertEqual(graph.nodes.filter { $0.engine == .unsupported }.count, 4)
    }

    func testAudioSessionReaches38StatesAndNeverIsActiveInTheBackground() {
        let graph = StateGraph(AudioSessionModel())

        XCTAssertEqual(graph.nodes.count, 38)
        XCTAssertEqual(graph.transitions.count, 38 * 16)
        XCTAssertFalse(graph.nodes.contains { $0.active && !$0.foreground })
        XCTAssertFalse(graph.nodes.contains { $0.active && $0.interrupted })
    }

    func testRefreshModelsWhatARunLeavesTheNext() {
        let model = RefreshModel()
        let graph = StateGraph(model)

        XCTAssertEqual(model.eventClasses.count, 2 + 3 * 3 * 3)
        XCTAssertEqual(graph.nodes.map { model.fields(of: $0) }, [
            [ModelField("staleTempFile", .bool(false)), ModelField("pageToRepeat", .bool(false))],
            [ModelField("staleTempFile", .bool(false)), ModelField("pageToRepeat", .bool(true))],
            [ModelField("staleTempFile", .bool(true)), ModelField("pageToRepeat", .bool(false))],
        ])
        XCTAssertEqual(graph.transitions.count, 3 * 29)
    }

    func testRefreshStaleTempFileComesFromACrashWhileStagingAndIsRemovedFirst() {
        let model = RefreshModel()
        let graph = StateGraph(model)
        let crashWhileStaging = model.eventClasses.firstIndex(of: "crash(stage=write,page=middle)")!

        let crash = graph.transition(from: 0, eventClass: crashWhileStaging)
        let next = graph.transition(from: crash.to, eventClass: 0)

        XCTAssertEqual(graph.nodes[crash.to], RefreshModel.Node(staleTempFile: true, pageToRepeat: false))
        XCTAssertEqual(crash.decision, "crashed")
        XCTAssertEqual(next.decision, "succeeded (removeStaleTemp, completeSuccess)")
        XCTAssertEqual(next.to, 0)
    }

    func testRefreshRunAfterACursorFaultFetchesThatPageAgainAndStoresItOnce() {
        let model = RefreshModel()
        var job = model.starts[0]
        let cursorFault = model.eventClasses.firstIndex(of: "expire(stage=cursor,page=last)")!

        let faulted = model.apply(eventClass: cursorFault, to: &job).event
        XCTAssertEqual(model.node(of: job), RefreshModel.Node(staleTempFile: false, pageToRepeat: true))
        let repeated = model.apply(eventClass: 0, to: &job).event

        XCTAssertEqual(repeated.pages.first?.items.map(\.id), faulted.pages.last?.items.map(\.id))
        XCTAssertEqual(job.machine.state.store.items.map(\.id), ["item-0", "item-1", "item-2", "item-3", "item-4"])
        XCTAssertEqual(model.node(of: job), RefreshModel.Node(staleTempFile: false, pageToRepeat: false))
    }

    /// An empty run commits one transaction (its success marker) but writes no page.
    func testRefreshEmptyRunLeavesNoPageToRepeat() {
        let model = RefreshModel()
        let graph = StateGraph(model)

        let empty = graph.transition(from: 0, eventClass: model.eventClasses.firstIndex(of: "run(noPages)")!)

        XCTAssertEqual(empty.to, 0)
        XCTAssertEqual(empty.decision, "succeeded (completeSuccess)")
    }

    func testRefreshClassifiesAFaultByItsPlaceInTheRun() {
        let model = RefreshModel()
        func run(pages: Int, fault page: Int?) -> RefreshRun<Int> {
            try! RefreshRun(at: 0, pages: Array(repeating: RefreshPage(), count: pages),
                       fault: page.map { RefreshFault(kind: .error, stage: .download, page: $0) })
        }

        let names = [run(pages: 1, fault: 0), run(pages: 5, fault: 3), run(pages: 5, fault: 4), run(pages: 2, fault: nil),
                     run(pages: 0, fault: nil)].map { model.eventClasses[model.eventClass(of: $0)] }

        XCTAssertEqual(names, ["error(stage=download,page=first)", "error(stage=download,page=middle)",
                               "error(stage=download,page=last)", "run(noFault)", "run(noPages)"])
    }

    func testEveryRepresentativeEventBelongsToItsOwnClass() {
        func check<Model: StateModel>(_ model: Model) {
            var machine = model.starts[0]
            for eventClass in model.eventClasses.indices {
                let event = model.apply(eventClass: eventClass, to: &machine).event
                XCTAssertEqual(model.eventClass(of: event), eventClass, "\(Model.self) \(model.eventClasses[eventClass])")
            }
        }
        check(PlaybackModel())
        check(HapticsModel())
        check(AudioSessionModel())
        check(RefreshModel())
    }

    func testTheAbstractionIsSoundAlongRandomWalks() {
        func check<Model: StateModel>(_ model: Model) {
            let graph = StateGraph(model)
            for path in RandomWalk.paths(model, count: 20, length: 200, seed: 42) {
                var machine = model.starts[path.start]
                var node = graph.startNodes[path.start]
                for eventClass in path.eventClasses {
                    let predicted = graph.transition(from: node, eventClass: eventClass)
                    let decision = model.label(of: model.apply(eventClass: eventClass, to: &machine).decision)
                    XCTAssertEqual(decision, predicted.decision, "\(Model.self)")
                    XCTAssertEqual(graph.index(of: model.node(of: machine)), predicted.to, "\(Model.self)")
                    node = predicted.to
                }
            }
        }
        check(PlaybackModel())
        check(HapticsModel())
        check(AudioSessionModel())
        check(RefreshModel())
    }

    // MARK: Transition-covering plans

    /// Total steps of the optimal plan (a new path restarts for free), against
    /// the lower bound of one step per transition.
    func testTransitionPlansCoverEveryTransitionWithTheOptimalNumberOfSteps() {
        func steps<Model: StateModel>(_ model: Model) -> Int {
            let graph = StateGraph(model)
            let paths = TransitionCover.paths(covering: graph, maxLength: 1000)
            XCTAssertEqual(Set(paths.flatMap(graph.transitionIndices)).count, graph.transitions.count, "\(Model.self)")
            return paths.map(\.eventClasses.count).reduce(0, +)
        }

        XCTAssertEqual(steps(PlaybackModel()), 42)
        XCTAssertEqual(steps(HapticsModel()), 117)
        XCTAssertEqual(steps(AudioSessionModel()), 754)
        XCTAssertEqual(steps(RefreshModel()), 109)
    }

    /// playback: 9 transitions leave each of 3 states, but the state waiting to
    /// resume is entered only 3 times and the playing one 6: the plan must walk
    /// there again, which costs 15 steps beyond the 27 (3 × 1 + 6 × 2).
    func testPlaybackPlanPaysOnlyForReachingTheStatesFewTransitionsEnter() {
        let graph = StateGraph(PlaybackModel())
        var entries = [Int](repeating: 0, count: graph.nodes.count)
        for transition in graph.transitions { entries[transition.to] += 1 }

        XCTAssertEqual(entries, [18, 6, 3])
        XCTAssertEqual(TransitionCover.paths(covering: graph, maxLength: 1000).map(\.eventClasses.count), [42])
    }

    func testPlansRespectMaxLengthAndStillCoverEverything() {
        let graph = StateGraph(HapticsModel())

        let paths = TransitionCover.paths(covering: graph, maxLength: 5)

        XCTAssertTrue(paths.allSatisfy { (1...5).contains($0.eventClasses.count) })
        XCTAssertEqual(Set(paths.flatMap(graph.transitionIndices)).count, graph.transitions.count)
    }

    func testAOneStepPlanCoversOnlyWhatLeavesTheStarts() {
        let graph = StateGraph(PlaybackModel())

        let paths = TransitionCover.paths(covering: graph, maxLength: 1)

        XCTAssertEqual(Set(paths.flatMap(graph.transitionIndices)), Set(0..<9))
    }

    // MARK: Random walks

    func testSplitMix64MatchesTheReferenceOutput() {
        var generator = SplitMix64(seed: 0)

        XCTAssertEqual([generator.next(), generator.next(), generator.next()],
                       [0xE220_A839_7B1D_CDAF, 0x6E78_9E6A_A1B9_65F4, 0x06C4_5D18_8009_454F])
    }

    func testBoundedDrawsStayInRangeAndReachEveryValue() {
        var generator = SplitMix64(seed: 7)

        let draws = (0..<1000).map { _ in generator.next(below: 9) }

        XCTAssertEqual(Set(draws), Set(0..<9))
    }

    func testRandomWalksAreReproducibleBySeed() {
        let model = AudioSessionModel()

        let first = RandomWalk.paths(model, count: 3, length: 50, seed: 2026)
        let again = RandomWalk.paths(model, count: 3, length: 50, seed: 2026)
        let other = RandomWalk.paths(model, count: 3, length: 50, seed: 2027)

        XCTAssertEqual(first, again)
        XCTAssertNotEqual(first, other)
        XCTAssertEqual(first.map(\.eventClasses.count), [50, 50, 50])
    }

    func testRandomWalksStartOnEitherHapticsHardware() {
        let starts = Set(RandomWalk.paths(HapticsModel(), count: 20, length: 1, seed: 1).map(\.start))

        XCTAssertEqual(starts, [0, 1])
    }

    func testAMaximumPathLengthBelowOneCountsAsOneStepNotATrap() {
        let graph = StateGraph(PlaybackModel())
        XCTAssertEqual(TransitionCover.paths(covering: graph, maxLength: 0).map(\.eventClasses),
                       TransitionCover.paths(covering: graph, maxLength: 1).map(\.eventClasses))
    }

    func testDrawingFromAnEmptyRangeGivesZeroNotATrap() {
        var random = SplitMix64(seed: 7)
        XCTAssertEqual(random.next(below: 0), 0)
    }
}
