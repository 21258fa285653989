@testable import DeviceOracleHTTP
import DeviceOracleJSON
import XCTest

/// The connection's rules, one per test, driven with a manual clock: no sockets, no sleeps.
/// `ServerTests` keeps a few real-socket tests that show the loop performs these decisions.
final class ConnectionStateMachineTests: XCTestCase {
    /// Records the effects the machine decides, as the loop would perform them; its
    /// memory budget holds `budget` bytes.
    final class RecordingEffects {
        struct Answer: Equatable {
            var status: Int
            var connection: ResponseSerializer.ConnectionField
            var retryAfter: String?
        }

        var answers: [Answer] = []
        var answeredBodies: [String] = []
        var framings: [ConnectionStateMachine.AnswerFraming] = []
        var refusals: [Int] = []
        var refusalDetails: [String] = []
        var continues = 0
        var accessStatuses: [Int] = []
        /// When each access record says its request began to arrive.
        var accessStarts: [Int64] = []
        var budget = Int.max
        var reserved = 0
        var isOutputBackedUp = false
        var isOutputDrained = true

        /// Records `effect`; what its request holds when it was an answer that went whole
        /// (the loop then says so with `answerBodyQueued`; a body written as it is sent
        /// stays queued, its holding in `streamingAnswer`).
        func perform(_ effect: ConnectionStateMachine.Effect) -> ConnectionStateMachine.Holding? {
            switch effect {
            case .sendContinue:
                continues += 1
            case .send(let answer):
                let (response, framing, connection, accessLine) = (answer.response, answer.framing, answer.connection,
                                                                   answer.accessLine)
                framings.append(framing)
                answers.append(Answer(status: response.status, connection: connection,
                                      retryAfter: response.headers.first { $0.0 == "Retry-After" }?.1))
                answeredBodies.append(String(decoding: response.body, as: UTF8.self))
                if let accessLine {
                    accessStatuses.append(accessLine.status)
                    accessStarts.append(accessLine.startedAt)
                }
                guard response.bodyStream == nil else {
                    streamingAnswer = answer.holding
                    return nil
                }
                return answer.holding
            case .sendRefusal(let response):
                refusals.append(response.status)
                refusalDetails.append(String(decoding: response.body, as: UTF8.self))
            case .record(let line, _):
                accessStatuses.append(line.status)
                accessStarts.append(line.startedAt)
            case .streamStarted:
                streamsInFlight += 1
            case .sendStreamedHead(let response, let framing, let connection):
                streamedHeads.append((response.status, framing, connection, response.headers))
            case .sendStreamedBytes(let bytes, _):
                streamedBytes += bytes
            case .sendStreamedEnd(let trailers):
                streamedTrailers.append(trailers)
            case .streamedAnswerEnded(let accessLine, _):
                streamsInFlight -= 1
                if let accessLine {
                    accessStatuses.append(accessLine.status)
                    accessFields.append(accessLine.fields)
                }
            case .largeWorkEnded:
                trims += 1
            case .releaseMemory(let bytes):
                reserved -= bytes
            case .holdMemory(let bytes):
                reserved += bytes
            case .logError(let message):
                errors.append(message)
            }
            return nil
        }

        /// What the loop does with `answerBodyQueued`'s action: the memory given back at
        /// once (the effects it may ask for are performed by the caller's loop).
        func perform(_ action: ConnectionStateMachine.Action) {
            if case .releaseMemory(let bytes) = action { reserved -= bytes }
        }

        /// What the request of an answer whose body is written as it is sent holds.
        var streamingAnswer: ConnectionStateMachine.Holding?

        /// A streamed answer as it would go out: its head's status and fields, then its body
        /// bytes (unframed), then its trailers.
        var streamedHeads: [(status: Int, framing: ResponseSerializer.BodyFraming, connection: ResponseSerializer.ConnectionField,
                             headers: [(String, String)])] = []
        var streamedBytes: [UInt8] = []
        var streamedTrailers: [[(String, String)]] = []
        var accessFields: [[LogField]] = []
        var streamsInFlight = 0

        func reserveMemory(_ bytes: Int) -> Bool {
            guard reserved + bytes <= budget else { return false }
            reserved += bytes
            return true
        }

        var trims = 0
        /// What the server logged as its own errors.
        var errors: [String] = []
    }

    /// A streamed request's handler that does what each test scripts: per call, what it
    /// writes and what it answers (`.more` once the script has run out).
    final class ScriptedHandler: StreamedRequestHandler, @unchecked Sendable {
        var onReceive: [(output: String, progress: StreamedProgress)] = []
        var onBodyEnded: [(output: String, progress: StreamedProgress)] = []
        /// What the call with no bytes right after `begin` says (`.more` when nil).
        var afterBegin: (output: String, progress: StreamedProgress)?
        var received = ""
        /// Runs at each call with bytes (a test changes the effects mid-call).
        var whenReceiving: (() -> Void)?
        /// What the handler says it holds (`heldBytes`).
        var held = 0
        /// What `cut` writes and answers; nil: it has no cut (the default's behaviour).
        var onCut: ((HTTPError) -> (output: String, progress: StreamedProgress))?
        var cuts: [HTTPError] = []

        var heldBytes: Int { held }

        func cut(_ problem: HTTPError, output: inout [UInt8]) -> StreamedProgress? {
            cuts.append(problem)
            guard let step = onCut?(problem) else { return nil }
            output += Array(step.output.utf8)
            return step.progress
        }

        func receive(_ bytes: UnsafeRawBufferPointer, output: inout [UInt8]) -> StreamedProgress {
            if bytes.isEmpty {
                defer { afterBegin = nil }
                output += Array((afterBegin?.output ?? "").utf8)
                return afterBegin?.progress ?? .more
            }
            received += String(decoding: bytes, as: UTF8.self)
            whenReceiving?()
            guard !onReceive.isEmpty else { return .more }
            let step = onReceive.removeFirst()
            output += Array(step.output.utf8)
            return step.progress
        }

        func bodyEnded(output: inout [UInt8]) -> StreamedProgress {
            let step = onBodyEnded.removeFirst()
            output += Array(step.output.utf8)
            return step.progress
        }
    }

    private let handler = ScriptedHandler()
    private lazy var router = Router([
        Route(path: "/hello", methods: [.GET]) { _ in HTTPResponse(status: 200, body: Array("hi".utf8)) },
        Route(path: "/echo", methods: [.POST], body: .json) { HTTPResponse(status: 200, body: $0.body) },
        Route(path: "/stream", methods: [.POST], body: .json,
              streamed: StreamedBody(mediaTypes: ["application/x-ndjson"]) { [handler] _ in handler }) { _ in
            HTTPResponse(status: 200)
        },
        Route(path: "/written", methods: [.GET]) { _ in HTTPResponse(status: 200, bodyStream: NoPieces()) },
    ])
    /// The router held in place, as the loop's context holds it.
    private final class HeldRouter: RouterHolder {
        let router: Router

        init(_ router: Router) {
            self.router = router
        }
    }

    private lazy var routing = HeldRouter(router)
    private let effects = RecordingEffects()
    /// The machine as the loop holds it (it is not copyable: one connection, one machine).
    final class Connection {
        var machine: ConnectionStateMachine

        init(_ machine: consuming ConnectionStateMachine) {
            self.machine = machine
        }
    }

    private var connection: Connection!
    /// After every input the loop performs the effects the machine decided, in order.
    private var machine: ConnectionStateMachine {
        _read { yield connection.machine }
        _modify {
            yield &connection.machine
            while let effect = connection.machine.nextEffect() {
                if let holding = effects.perform(effect) { effects.perform(connection.machine.answerBodyQueued(holding)) }
            }
        }
    }
    /// The loop's output as the test sets it (`effects`' two flags).
    private var output: ConnectionStateMachine.OutputState {
        .init(isBackedUp: effects.isOutputBackedUp, isDrained: effects.isOutputDrained)
    }
    private var offloaded: [HTTPRequest] = []
    /// What the stream's handler writes during one call (the loop's buffer).
    private var streamOutput: [UInt8] = []
    /// Accepted at ten seconds on the monotonic clock.
    private let start: Int64 = 10 * second
    private static let second: Int64 = 1_000_000_000
    private var second: Int64 { Self.second }

    /// `draining`: accepted after the server's drain began.
    private func accept(draining: Bool = false, _ configure: (inout ServerConfiguration) -> Void = { _ in }) {
        var configuration = ServerConfiguration()
        configuration.headerTimeout = 10
        configuration.bodyTimeout = 30
        configuration.sendTimeout = 30
        configuration.idleTimeout = 60
        configuration.minReceiveRate = 0
        configure(&configuration)
        connection = Connection(ConnectionStateMachine(
            settings: .init(configuration: configuration, router: router, answerRecording: .lines), now: start,
            draining: draining))
    }

    /// What the loop does with a read of `text` at `now`: parse it, run handlers inline
    /// (large bodies are offloaded: kept in `offloaded`), check the receive rate.
    private func read(_ text: String, at now: Int64) {
        read(Array(text.utf8), at: now)
    }

    private func read(_ bytes: [UInt8], at now: Int64) {
        guard machine.bytesRead(bytes.count, now: now) == .parse else { return }
        bytes.withUnsafeBytes { input in
            var index = 0
            parse(input, index: &index, at: now)
        }
        XCTAssertEqual(machine.readEnded(now: now), .proceed)
        callDueStreamHandler(at: now)
    }

    /// What the loop does with `input`: parse it, making the calls the machine asks for:
    /// route handlers inline (large bodies are offloaded: kept in `offloaded`), and the
    /// stream's handler.
    private func parse(_ input: UnsafeRawBufferPointer, index: inout Int, at now: Int64) {
        var next = machine.parse(input, index: &index, now: now, output: output)
        while true {
            switch consume next {
            case .stop:
                return
            case .runHandler(let routeIndex, let request):
                XCTAssertEqual(finished(router.routes[routeIndex].handler(request), at: now), .proceed)
                next = machine.parse(input, index: &index, now: now, output: output)
            case .offload(_, let request):
                offloaded.append(request)
                return
            case .performEffects:
                // performed after every input (`machine`)
                next = machine.parse(input, index: &index, now: now, output: output)
            case .reserve(let bytes):
                next = machine.budgetAnswered(granted: effects.reserveMemory(bytes), input: input, index: &index,
                                              now: now, output: output)
            case .route(let head):
                next = machine.headRouted(head, to: routing.choose(for: head), input: input, index: &index, now: now,
                                          output: output)
            case .makeStreamHandler(let streamed, let request):
                next = machine.streamHandlerMade(streamed.handler(request), input: input, index: &index, now: now,
                                                 output: output)
            case .callStreamHandler(let handler, let call):
                let progress = call.perform(on: handler, input: input, output: &streamOutput)
                next = machine.streamHandlerAnswered(call, progress: progress, heldBytes: handler.heldBytes,
                                                     output: &streamOutput, input: input, index: &index, now: now,
                                                     output: output)
            }
        }
    }

    /// What the loop does with a route's handler's answer: an answer handed over at once
    /// is performed as the effect it would have been.
    private func finished(_ response: HTTPResponse, at now: Int64) -> ConnectionStateMachine.Action {
        switch machine.handlerFinished(response, now: now) {
        case .none: return .none
        case .proceed: return .proceed
        case .send(let answer):
            if let holding = effects.perform(.send(answer)) { effects.perform(machine.answerBodyQueued(holding)) }
            return .proceed
        }
    }

    /// What the loop does once the output has gone with no new bytes: parse on.
    private func parseWithoutInput(at now: Int64) {
        var index = 0
        parse(ConnectionStateMachine.noBytes, index: &index, at: now)
    }

    /// The armed timer fires at `now`; a stream it cuts hears of it at once, as the loop
    /// makes the call the machine decided.
    private func fire(at now: Int64) -> ConnectionStateMachine.Action {
        var action = machine.timerFired(now: now)
        if case .reserve(let bytes) = action {
            action = machine.budgetAnswered(granted: effects.reserveMemory(bytes), now: now)
        }
        callDueStreamHandler(at: now)
        return action
    }

    private func callDueStreamHandler(at now: Int64) {
        if machine.hasDueStreamCall { parseWithoutInput(at: now) }
    }

    private let hello = "GET /hello HTTP/1.1\r\nHost: t\r\n\r\n"

    private func postHead(_ length: Int, extra: String = "") -> String {
        "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n\(extra)Content-Length: \(length)\r\n\r\n"
    }

    // MARK: Header and idle timeouts

    func testANewConnectionWaitsTheHeaderTimeoutForItsFirstHead() {
        accept()

        let timer = machine.armedTimer

        XCTAssertEqual(timer?.kind, .header)
        XCTAssertEqual(timer?.deadline, start + 10 * second)
    }

    func testANewConnectionThatSendsNothingIsClosedSilentlyAtTheHeaderTimeout() {
        accept()

        let action = fire(at: start + 10 * second)

        XCTAssertEqual(action, .close)
        XCTAssertEqual(effects.refusals, [])
    }

    func testATimerDoesNothingBeforeItsDeadline() {
        accept()

        let action = fire(at: start + 10 * second - 1)

        XCTAssertEqual(action, .none)
        XCTAssertEqual(machine.armedTimer?.kind, .header)
    }

    func testAPartialHeadGets408AtTheHeaderTimeoutThenALingeringClose() {
        accept()
        read("GET /hello HTTP/1.1\r\nHo", at: start + second)
        XCTAssertEqual(machine.nextWait(hasPendingOutput: false, sentSome: false, now: start + second),
                       .poll(.read, .keep), "the head's deadline runs from accept")

        let action = fire(at: start + 10 * second)

        XCTAssertEqual(action, .proceed)
        XCTAssertEqual(effects.refusals, [408])
        XCTAssertTrue(effects.refusalDetails[0].contains("did not arrive within 10.0 s"))
        XCTAssertEqual(machine.nextWait(hasPendingOutput: false, sentSome: false, now: start + 10 * second),
                       .shutdownWriteAndLinger(deadline: start + 11 * second))
    }

    func testAKeepAliveConnectionWaitsTheIdleTimeoutAfterAnAnswer() {
        accept()
        read(hello, at: start + second)

        let wait = machine.nextWait(hasPendingOutput: false, sentSome: false, now: start + second)

        XCTAssertEqual(effects.answers, [.init(status: 200, connection: .none)])
        XCTAssertEqual(wait, .poll(.read, .arm(.idle, deadline: start + 61 * second)))
    }

    func testAnIdleKeepAliveConnectionIsClosedSilentlyAtTheIdleTimeout() {
        accept()
        read(hello, at: start + second)
        _ = machine.nextWait(hasPendingOutput: false, sentSome: false, now: start + second)

        let action = fire(at: start + 61 * second)

        XCTAssertEqual(action, .close)
        XCTAssertEqual(effects.refusals, [])
    }

    func testEachAnswerRestartsTheIdleTimeout() {
        accept()
        read(hello, at: start + second)
        _ = machine.nextWait(hasPendingOutput: false, sentSome: false, now: start + second)

        read(hello, at: start + 50 * second)
        let wait = machine.nextWait(hasPendingOutput: false, sentSome: false, now: start + 50 * second)

        XCTAssertEqual(wait, .poll(.read, .arm(.idle, deadline: start + 110 * second)))
    }

    func testTheNextHeadsFirstBytesSwitchTheIdleTimeoutToTheHeaderTimeout() {
        accept()
        read(hello, at: start + second)
        _ = machine.nextWait(hasPendingOutput: false, sentSome: false, now: start + second)

        read("GET /hel", at: start + 5 * second)
        let wait = machine.nextWait(hasPendingOutput: false, sentSome: false, now: start + 5 * second)

        XCTAssertEqual(wait, .poll(.read, .arm(.header, deadline: start + 15 * second)))
    }

    // MARK: Body timeout and minimum rate

    func testABodyThatStopsArrivingGets408AtTheBodyTimeout() {
        accept()
        read(postHead(10) + "[1,", at: start + second)
        XCTAssertEqual(machine.nextWait(hasPendingOutput: false, sentSome: false, now: start + second),
                       .poll(.read, .arm(.body, deadline: start + 31 * second)))

        let action = fire(at: start + 31 * second)

        XCTAssertEqual(action, .proceed)
        XCTAssertEqual(effects.refusals, [408])
        XCTAssertEqual(effects.accessStatuses, [408])
    }

    func testBodyBytesRestartTheBodyTimeout() {
        accept()
        read(postHead(10) + "[1,", at: start + second)
        _ = machine.nextWait(hasPendingOutput: false, sentSome: false, now: start + second)

        read("2,", at: start + 20 * second)
        let wait = machine.nextWait(hasPendingOutput: false, sentSome: false, now: start + 20 * second)

        XCTAssertEqual(wait, .poll(.read, .arm(.body, deadline: start + 50 * second)))
    }

    func testABodyTrickledBelowTheMinimumRateGets408OnceItsGraceHasPassed() {
        accept {
            $0.minReceiveRate = 200
            $0.minReceiveRateGrace = 0.3
        }
        read(postHead(1000), at: start)
        for tenth in 1...3 { read("1", at: start + Int64(tenth) * second / 10) }
        XCTAssertEqual(effects.refusals, [], "within the grace period")

        read("1", at: start + 4 * second / 10)

        XCTAssertEqual(effects.refusals, [408])
        XCTAssertTrue(effects.refusalDetails[0].contains("under 200.0 bytes/s on average after its first 0.3 s"))
    }

    func testAHeadTrickledBelowTheMinimumRateGets408BeforeTheHeaderTimeout() {
        accept {
            $0.minReceiveRate = 200
            $0.minReceiveRateGrace = 0.3
        }
        for (tenth, byte) in "GET /hello".utf8.enumerated() { read([byte], at: start + Int64(tenth) * second / 10) }

        XCTAssertEqual(effects.refusals, [408])
    }

    func testARequestPipelinedBehindALargeOneEarnsNoCreditFromIt() {
        accept {
            $0.minReceiveRate = 200
            $0.minReceiveRateGrace = 0.3
        }
        let large = "[" + String(repeating: " ", count: 49_998) + "]"
        read(postHead(large.utf8.count), at: start)
        read(large + "POST /echo HTTP/1.1\r\nHost: t\r\nX-Slow: ", at: start + second / 10)
        XCTAssertEqual(effects.answers.map(\.status), [200])

        for tenth in 2...5 { read("a", at: start + Int64(tenth) * second / 10) }

        XCTAssertEqual(effects.refusals, [408], "timed from the first answer, with none of its 50 kB as credit")
    }

    func testABodyThatKeepsTheMinimumRateIsServed() {
        accept {
            $0.minReceiveRate = 200
            $0.minReceiveRateGrace = 0.2
        }
        let body = Array(("[" + String(repeating: "1,", count: 299) + "1]").utf8)  // 600 bytes
        read(postHead(body.count), at: start)

        for (tenth, piece) in stride(from: 0, to: body.count, by: 60).enumerated() {  // 600 bytes/s for a second
            read(Array(body[piece..<min(piece + 60, body.count)]), at: start + Int64(tenth + 1) * second / 10)
        }

        XCTAssertEqual(effects.refusals, [])
        XCTAssertEqual(effects.answers.map(\.status), [200])
    }

    func testAMinimumRateOfZeroTurnsTheRuleOff() {
        accept {
            $0.minReceiveRate = 0
            $0.minReceiveRateGrace = 0.1
        }
        read(postHead(3), at: start)

        for (index, byte) in "[1]".utf8.enumerated() { read([byte], at: start + Int64(index + 1) * second) }

        XCTAssertEqual(effects.refusals, [])
        XCTAssertEqual(effects.answers.map(\.status), [200])
    }

    // MARK: Send timeout

    func testAPeerThatDoesNotReadIsClosedAtTheSendTimeout() {
        accept()
        read(hello, at: start)
        XCTAssertEqual(machine.nextWait(hasPendingOutput: true, sentSome: false, now: start),
                       .poll(.write, .arm(.send, deadline: start + 30 * second)))

        let action = fire(at: start + 30 * second)

        XCTAssertEqual(action, .close)
    }

    func testTheSendTimeoutCountsFromTheLastBytesTheSocketTook() {
        accept()
        read(hello, at: start)
        _ = machine.nextWait(hasPendingOutput: true, sentSome: false, now: start)

        let stalled = machine.nextWait(hasPendingOutput: true, sentSome: false, now: start + 10 * second)
        let moving = machine.nextWait(hasPendingOutput: true, sentSome: true, now: start + 20 * second)

        XCTAssertEqual(stalled, .poll(.write, .keep))
        XCTAssertEqual(moving, .poll(.write, .arm(.send, deadline: start + 50 * second)))
    }

    // MARK: Closing and lingering

    func testAnHTTP10AnswerClosesWithALingeringClose() {
        accept()
        read("GET /hello HTTP/1.0\r\n\r\n", at: start)

        let wait = machine.nextWait(hasPendingOutput: false, sentSome: false, now: start)

        XCTAssertEqual(effects.answers, [.init(status: 200, connection: .close)])
        XCTAssertEqual(wait, .shutdownWriteAndLinger(deadline: start + second))
    }

    func testAnHTTP10ClientThatAsksForKeepAliveIsToldItIsKept() {
        accept()

        read("GET /hello HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", at: start)

        XCTAssertEqual(effects.answers, [.init(status: 200, connection: .keepAlive)])
    }

    func testLingeringEndsAtTheLingerTimeout() {
        accept()
        read("GET /hello HTTP/1.1\r\nHost: t\r\nContent-Length: abc\r\n\r\n", at: start)
        _ = machine.nextWait(hasPendingOutput: false, sentSome: false, now: start)

        let action = fire(at: start + second)

        XCTAssertEqual(effects.refusals, [400])
        XCTAssertEqual(action, .close)
    }

    func testLingeringDiscardsWhatThePeerSendsUpToItsAllowance() {
        accept()
        read("GET /hello HTTP/1.1\r\nHost: t\r\nContent-Length: abc\r\n\r\n", at: start)
        _ = machine.nextWait(hasPendingOutput: false, sentSome: false, now: start)

        let first = machine.bytesRead(60 * 1024, now: start)
        let past = machine.bytesRead(4 * 1024, now: start)

        XCTAssertEqual(first, .discarded)
        XCTAssertEqual(past, .close)
    }

    func testAPeerThatClosesAfterItsRequestStillGetsTheAnswerThenACloseWithoutLinger() {
        accept()
        read(hello, at: start)

        let action = machine.peerClosed(hasPendingOutput: true)
        let wait = machine.nextWait(hasPendingOutput: false, sentSome: false, now: start)

        XCTAssertEqual(action, .proceed)
        XCTAssertEqual(wait, .close)
    }

    func testAPeerThatClosesMidBodyIsClosedAtOnce() {
        accept()
        read(postHead(10) + "[1,", at: start)

        let action = machine.peerClosed(hasPendingOutput: false)

        XCTAssertEqual(action, .close)
    }

    func testAPeerThatClosesWhileItsHandlerRunsGetsTheAnswerWithConnectionCloseAndNoLinger() {
        accept { $0.offloadBodyBytes = 1 }
        read(postHead(3) + "[1]", at: start)
        XCTAssertEqual(machine.peerClosed(hasPendingOutput: false), .setInterest(.none))

        _ = finished(HTTPResponse(status: 200), at: start + second)
        let wait = machine.nextWait(hasPendingOutput: false, sentSome: false, now: start + second)

        XCTAssertEqual(effects.answers, [.init(status: 200, connection: .close)])
        XCTAssertEqual(wait, .close)
    }

    func testARequestPipelinedBehindAnOffloadedOneWaitsForItsAnswer() {
        accept { $0.offloadBodyBytes = 1 }
        read(postHead(3) + "[1]" + hello, at: start)
        XCTAssertEqual(effects.answers, [])
        XCTAssertTrue(machine.keepsUnparsedInput, "the pipelined request is kept for later")

        _ = finished(HTTPResponse(status: 201), at: start + second)

        XCTAssertTrue(machine.isReadingRequests)
        XCTAssertEqual(effects.answers.map(\.status), [201])
    }

    func testDrainingClosesAKeepAliveConnectionOnceItsAnswerHasGone() {
        accept()
        read(hello, at: start)
        XCTAssertEqual(machine.drainBegan(hasPendingOutput: true), .none, "its answer is still going out")

        let wait = machine.nextWait(hasPendingOutput: false, sentSome: false, now: start)

        XCTAssertEqual(wait, .close)
    }

    func testAnAnswerDuringADrainSaysConnectionClose() {
        accept()
        XCTAssertEqual(machine.drainBegan(hasPendingOutput: false), .close, "an idle connection closes at once")

        read(hello, at: start)

        XCTAssertEqual(effects.answers, [.init(status: 200, connection: .close)])
    }

    // MARK: What holds once told, whatever the request's case

    func testAConnectionAcceptedDuringADrainClosesAfterItsFirstAnswer() {
        accept(draining: true)

        read(hello, at: start)

        XCTAssertEqual(effects.answers, [.init(status: 200, connection: .close)])
    }

    func testADrainThatBeginsMidBodyClosesAfterThatRequestsAnswer() {
        accept()
        read(postHead(10) + "[1,", at: start)
        XCTAssertEqual(machine.drainBegan(hasPendingOutput: false), .none, "its request is in flight")

        read("2,3,45]", at: start + second)

        XCTAssertEqual(effects.answers, [.init(status: 200, connection: .close)])
    }

    func testADrainThatBeginsWhileAHandlerRunsClosesAfterItsAnswerLingering() {
        accept { $0.offloadBodyBytes = 1 }
        read(postHead(3) + "[1]", at: start)
        XCTAssertEqual(machine.drainBegan(hasPendingOutput: false), .none, "its handler runs")

        _ = finished(HTTPResponse(status: 200), at: start + second)

        XCTAssertEqual(effects.answers, [.init(status: 200, connection: .close)])
        XCTAssertEqual(machine.nextWait(hasPendingOutput: false, sentSome: false, now: start + second),
                       .shutdownWriteAndLinger(deadline: start + 2 * second))
    }

    func testADrainThatBeginsWhileABodyWaitsForTheBudgetClosesAfterItsAnswer() {
        accept()
        effects.budget = 0
        read(postHead(3), at: start)
        XCTAssertEqual(machine.drainBegan(hasPendingOutput: false), .none, "its request is in flight")

        _ = machine.nextWait(hasPendingOutput: false, sentSome: false, now: start)
        effects.budget = 1000
        _ = fire(at: start + second / 50)
        read("[1]", at: start + second / 10)

        XCTAssertEqual(effects.answers, [.init(status: 200, connection: .close)])
    }

    func testAPeerThatClosesWhileItsBodyWaitsForTheBudgetGetsItsAnswerWithConnectionCloseAndNoLinger() {
        accept()
        effects.budget = 0
        read(postHead(3), at: start)
        XCTAssertEqual(machine.peerClosed(hasPendingOutput: false), .setInterest(.none))

        _ = machine.nextWait(hasPendingOutput: false, sentSome: false, now: start)
        effects.budget = 1000
        _ = fire(at: start + second / 50)
        read("[1]", at: start + second / 10)  // sent before its close, read once the budget took it

        XCTAssertEqual(effects.answers, [.init(status: 200, connection: .close)])
        XCTAssertEqual(machine.nextWait(hasPendingOutput: false, sentSome: false, now: start + second / 10), .close)
    }

    func testAPeerThatClosesWhileItsRefusalIsSentIsClosedWithoutLingering() {
        accept()
        read("GET /hello HTTP/1.1\r\nHo", at: start + second)
        _ = fire(at: start + 10 * second)
        XCTAssertEqual(effects.refusals, [408])

        XCTAssertEqual(machine.peerClosed(hasPendingOutput: true), .setInterest(.write))

        XCTAssertEqual(machine.nextWait(hasPendingOutput: false, sentSome: false, now: start + 10 * second), .close)
    }

    func testASendTimeoutArmedForAnAnswerRunsOnWhileAPipelinedRequestIsRead() {
        accept()
        read(hello, at: start)
        XCTAssertEqual(machine.nextWait(hasPendingOutput: true, sentSome: false, now: start),
                       .poll(.write, .arm(.send, deadline: start + 30 * second)))

        read(postHead(3) + "[1", at: start + 10 * second)
        let wait = machine.nextWait(hasPendingOutput: true, sentSome: false, now: start + 10 * second)

        XCTAssertEqual(wait, .poll(.write, .keep), "its deadline stands in the next request's case")
        XCTAssertEqual(fire(at: start + 30 * second), .close)
    }

    // MARK: When a request began

    func testARequestIsTimedFromItsHeadsFirstReadNotFromTheAnswerBefore() {
        accept()
        read(hello, at: start + second)

        read("GET /hel", at: start + 5 * second)
        read("lo HTTP/1.1\r\nHost: t\r\n\r\n", at: start + 6 * second)

        XCTAssertEqual(effects.accessStarts, [start + second, start + 5 * second])
    }

    func testAHeadAlreadyReadBehindAnAnswerIsTimedFromItsPredecessorsStart() {
        accept()
        read(hello + "GET /hel", at: start + second)

        read("lo HTTP/1.1\r\nHost: t\r\n\r\n", at: start + 3 * second)

        XCTAssertEqual(effects.accessStarts, [start + second, start + second])
    }

    func testARefusedHeadIsTimedFromItsFirstRead() {
        accept()
        read("GET /hello HTTP/1.1\r\nHo", at: start + 2 * second)

        _ = fire(at: start + 10 * second)

        XCTAssertEqual(effects.refusals, [408])
        XCTAssertEqual(effects.accessStarts, [start + 2 * second])
    }

    // MARK: Pipelining, 100-continue, offloading

    func testPipelinedRequestsAreAnsweredInOrderFromOneRead() {
        accept()

        read(hello + "GET /nope HTTP/1.1\r\nHost: t\r\n\r\n" + hello, at: start)

        XCTAssertEqual(effects.answers.map(\.status), [200, 404, 200])
    }

    /// Reads `request` at the start, routes its head and says what the machine asks for
    /// next ("performEffects", "reserve BYTES", "something else"; nil, after a failure,
    /// when parse did not give the head to route).
    private func routeOne(_ request: String) -> String? {
        let request = Array(request.utf8)
        _ = machine.bytesRead(request.count, now: start)
        var index = 0
        return request.withUnsafeBytes { input -> String? in
            switch machine.parse(input, index: &index, now: start, output: output) {
            case .route(let head):
                switch machine.headRouted(head, to: routing.choose(for: head), input: input, index: &index, now: start,
                                          output: output) {
                case .performEffects: return "performEffects"
                case .reserve(let bytes): return "reserve \(bytes)"
                default: return "something else"
                }
            default:
                XCTFail("parse did not return the head to route")
                return nil
            }
        }
    }

    func testAnAnswerThatEndsReadingIsStillHandedToTheLoop() {
        accept()
        let next = routeOne("GET /nowhere HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")

        XCTAssertEqual(next, "performEffects", "the 404 to send")
        XCTAssertEqual(effects.answers.map(\.status), [404])
        XCTAssertFalse(machine.isReadingRequests, "the answer closes the connection")
    }

    func testParsingStopsWhileOutputIsBackedUp() {
        accept()
        effects.isOutputBackedUp = true

        read(hello, at: start)

        XCTAssertEqual(effects.answers, [])
        XCTAssertTrue(machine.keepsUnparsedInput)
    }

    func testExpectContinueGets100WhenTheBodyIsAdmitted() {
        accept()

        read(postHead(3, extra: "Expect: 100-continue\r\n"), at: start)

        XCTAssertEqual(effects.continues, 1)
    }

    func testExpectContinueOnARefusedRequestIsAnsweredAtOnceAndClosed() {
        accept()

        read("POST /nope HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n", at: start)

        XCTAssertEqual(effects.continues, 0)
        XCTAssertEqual(effects.answers, [.init(status: 404, connection: .close)])
    }

    func testAChunkedBodyReachesTheHandler() {
        accept()

        read("POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n[1]\r\n0\r\n\r\n", at: start)

        XCTAssertEqual(effects.answers.map(\.status), [200])
    }

    func testABodyInManyReadsReachesTheHandlerWhole() {
        accept()
        let body = "[" + (0..<300).map(String.init).joined(separator: ",") + "]"
        read(postHead(body.utf8.count), at: start)

        for piece in Array(body.utf8).chunked(into: 7) { read(piece, at: start) }

        XCTAssertEqual(effects.answeredBodies, [body])
    }

    func testABodyReadInManySmallReadsIsAppendedInPlaceNeverCopied() {
        accept { $0.offloadBodyBytes = 1 << 20 }
        let body = "[" + String(repeating: "1,", count: 14_999) + "1]"
        read(postHead(body.utf8.count), at: start)
        var storage: Set<UnsafeRawPointer> = []

        for piece in Array(body.utf8).chunked(into: 100) {
            read(piece, at: start)
            if let address = machine.bodyStorage { storage.insert(address) }
        }

        // A copy per read (quadratic in the body's length) would move it on every read.
        XCTAssertEqual(storage.count, 1, "its Content-Length is reserved once; each read appends to it")
        XCTAssertEqual(effects.answeredBodies, [body])
    }

    func testAChunkedBodyInManyReadsReachesTheHandlerWhole() {
        accept()
        let body = "[" + (0..<300).map(String.init).joined(separator: ",") + "]"
        let chunks = Array(body.utf8).chunked(into: 50).map { String($0.count, radix: 16) + "\r\n" + String(decoding: $0, as: UTF8.self) + "\r\n" }
        read("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n", at: start)

        for piece in Array((chunks.joined() + "0\r\n\r\n").utf8).chunked(into: 11) { read(piece, at: start) }

        XCTAssertEqual(effects.answeredBodies, [body])
    }

    func testEachRequestOnAConnectionGetsOnlyItsOwnBody() {
        accept()

        read(postHead(3) + "[1]" + postHead(5) + "[2,3]", at: start)

        XCTAssertEqual(effects.answeredBodies, ["[1]", "[2,3]"])
    }

    func testABodyLargerThanTheOffloadSizeRunsItsHandlerElsewhere() {
        accept { $0.offloadBodyBytes = 10 }
        let body = "[" + String(repeating: "1,", count: 10) + "1]"
        read(postHead(body.utf8.count) + body, at: start)
        XCTAssertEqual(offloaded.count, 1)
        XCTAssertTrue(machine.hasRequestInFlight(hasPendingOutput: false))

        let action = finished(HTTPResponse(status: 200), at: start + second)

        XCTAssertEqual(action, .proceed)
        XCTAssertEqual(effects.answers.map(\.status), [200])
    }

    // MARK: Memory budget

    func testABodyOverTheBudgetWaitsUnreadThenGets503WithRetryAfterAtTheMemoryWait() {
        accept { $0.memoryWait = 10 }
        effects.budget = 0
        read(postHead(1000), at: start)
        XCTAssertEqual(machine.nextWait(hasPendingOutput: false, sentSome: false, now: start),
                       .poll(.none, .arm(.memoryRetry, deadline: start + second / 50)))
        XCTAssertEqual(fire(at: start + second / 50), .proceed)
        XCTAssertEqual(effects.answers, [], "still waiting")

        _ = machine.nextWait(hasPendingOutput: false, sentSome: false, now: start + second / 50)
        let action = fire(at: start + 10 * second)

        XCTAssertEqual(action, .proceed)
        XCTAssertEqual(effects.answers, [.init(status: 503, connection: .close, retryAfter: "1")])
        XCTAssertEqual(machine.nextWait(hasPendingOutput: false, sentSome: false, now: start + 10 * second),
                       .shutdownWriteAndLinger(deadline: start + 11 * second))
        XCTAssertEqual(machine.bytesRead(64 * 1024 + 999, now: start + 10 * second), .discarded,
                       "the refused body is discarded on top of the usual allowance")
    }

    func testABodyWaitingForTheBudgetIsReadOnceRoomFreesAndOnlyThenGets100Continue() {
        accept()
        effects.budget = 0
        read(postHead(3, extra: "Expect: 100-continue\r\n"), at: start)
        XCTAssertEqual(effects.continues, 0)
        _ = machine.nextWait(hasPendingOutput: false, sentSome: false, now: start)

        effects.budget = 1000
        let action = fire(at: start + second / 50)
        read("[1]", at: start + second / 10)

        XCTAssertEqual(action, .proceed)
        XCTAssertEqual(effects.continues, 1)
        XCTAssertEqual(effects.answers.map(\.status), [200])
        XCTAssertEqual(effects.reserved, 0, "the share is given back with the answer")
    }

    func testAnAnswerHoldingMoreThanItsBodysShareIsCountedUntilItHasGone() throws {
        accept { $0.offloadBodyBytes = 1 }
        read(postHead(3) + "[1]", at: start)
        XCTAssertEqual(effects.reserved, 3)
        var response = HTTPResponse(status: 200, bodyStream: NoPieces())
        response.heldBytes = 5000

        _ = finished(response, at: start + second)
        XCTAssertEqual(effects.reserved, 5000, "the body's share and what the answer holds beyond it")
        XCTAssertEqual(machine.answerBodyQueued(try XCTUnwrap(effects.streamingAnswer)), .performEffects)

        XCTAssertEqual(effects.reserved, 0)
    }

    // MARK: Framing

    func testAnAnswerWrittenAsItIsSentIsChunkedToHTTP11CountedToHTTP10AndNeverMadeForHEAD() {
        let cases: [(request: String, framing: ConnectionStateMachine.AnswerFraming)] = [
            ("GET /written HTTP/1.1\r\nHost: t\r\n\r\n", .stream(chunked: true)),
            ("GET /written HTTP/1.0\r\n\r\n", .stream(chunked: false)),
            ("HEAD /written HTTP/1.1\r\nHost: t\r\n\r\n", .headOfStream(chunked: true)),
            ("HEAD /written HTTP/1.0\r\n\r\n", .headOfStream(chunked: false)),
            (hello, .whole),
        ]
        for (request, framing) in cases {
            accept()
            read(request, at: start)
            XCTAssertEqual(effects.framings.last, framing, request)
        }
    }

    func testABodysShareOfTheBudgetIsAskedForBeforeItIsRead() {
        accept()
        let next = routeOne(postHead(1000))

        XCTAssertEqual(next, "reserve 1000", "the share to reserve")
        var index = 0
        _ = machine.budgetAnswered(granted: false, input: ConnectionStateMachine.noBytes, index: &index, now: start,
                                   output: output)
        XCTAssertFalse(machine.isReadingRequests, "refused, the body waits for the budget")
    }

    func testABodysShareOfTheBudgetIsGivenBackWhenTheConnectionCloses() {
        accept()
        read(postHead(1000) + "[", at: start)
        XCTAssertEqual(effects.reserved, 1000)

        XCTAssertEqual(machine.closed(), .performEffects)

        XCTAssertEqual(effects.reserved, 0)
    }

    // MARK: Streamed bodies

    private func streamHead(_ framing: String = "Transfer-Encoding: chunked", version: String = "1.1") -> String {
        "POST /stream HTTP/\(version)\r\nHost: t\r\nContent-Type: Application/X-NDJSON; charset=utf-8\r\n\(framing)\r\n\r\n"
    }

    private func chunk(_ text: String) -> String {
        String(text.utf8.count, radix: 16) + "\r\n" + text + "\r\n"
    }

    private func wait(_ now: Int64, pending: Bool = false) -> ConnectionStateMachine.Wait {
        machine.nextWait(hasPendingOutput: pending, sentSome: false, now: now)
    }

    private let begin200 = StreamedProgress.begin(HTTPResponse(status: 200, contentType: "application/x-ndjson"),
                                                  trailers: ["X-Lines"])

    func testAStreamedBodyIsHandedOverReadByReadAndTheAnswerBeginsWhenTheHandlerSays() {
        accept()
        handler.onReceive = [("", .more), ("", .more), ("A\n", begin200)]

        read(streamHead() + chunk("a\n"), at: start)
        read(chunk("b\n"), at: start + second)
        XCTAssertTrue(effects.streamedHeads.isEmpty, "nothing is sent while the handler is undecided")
        read(chunk("c\n"), at: start + 2 * second)

        XCTAssertEqual(handler.received, "a\nb\nc\n")
        XCTAssertEqual(effects.streamedHeads.map(\.status), [200])
        XCTAssertEqual(effects.streamedHeads[0].framing, .chunked)
        XCTAssertEqual(effects.streamedHeads[0].headers.first { $0.0 == "Trailer" }?.1, "X-Lines")
        XCTAssertEqual(String(decoding: effects.streamedBytes, as: UTF8.self), "A\n")
        XCTAssertEqual(effects.refusals + effects.answers.map(\.status), [], "no 415, no whole answer")
    }

    func testAStreamedRequestHoldsAConstantShareOfTheBudgetNotItsLength() {
        accept()

        read(streamHead("Content-Length: 1000000000"), at: start)

        XCTAssertEqual(effects.reserved, StreamedBody.defaultMemoryShare)
        XCTAssertEqual(effects.refusals, [], "--max-body-bytes does not apply to a streamed body")
    }

    func testRespondBeforeTheAnswerBeginsSendsThatAnswerAndClosesLingering() {
        accept()
        handler.onReceive = [("", .respond(HTTPResponse(status: 422)))]

        read(streamHead() + chunk("bad\n") + chunk("more\n"), at: start)

        XCTAssertEqual(effects.answers, [.init(status: 422, connection: .close)])
        XCTAssertEqual(handler.received, "bad\n", "the rest of the body is not handed over")
        XCTAssertEqual(wait(start), .shutdownWriteAndLinger(deadline: start + second))
        XCTAssertEqual(effects.reserved, 0)
    }

    func testAHandlerThatWritesBeforeItsAnswerBeginsGets500AndTheServerGoesOn() {
        accept()
        handler.onReceive = [("secret line\n", .more)]

        read(streamHead() + chunk("secret\n"), at: start)

        XCTAssertEqual(effects.answers, [.init(status: 500, connection: .close)])
        XCTAssertEqual(effects.streamedBytes, [], "what it wrote is never sent")
        XCTAssertEqual(effects.errors.count, 1)
        XCTAssertFalse(effects.errors[0].contains("secret"), "the log holds no request data")
        XCTAssertEqual(effects.reserved, 0)
        XCTAssertEqual(wait(start), .shutdownWriteAndLinger(deadline: start + second))
    }

    func testAHandlerThatBeginsItsAnswerTwiceIsClosedAfterWhatWasWritten() {
        accept()
        handler.onReceive = [("A\n", begin200), ("B\n", begin200)]

        read(streamHead() + chunk("a\n") + chunk("b\n"), at: start)

        XCTAssertEqual(effects.streamedHeads.map(\.status), [200], "its status has gone: no 500 can follow")
        XCTAssertEqual(String(decoding: effects.streamedBytes, as: UTF8.self), "A\n")
        XCTAssertEqual(effects.errors.count, 1)
        XCTAssertEqual(effects.accessStatuses, [200])
        XCTAssertEqual(effects.reserved, 0)
        XCTAssertEqual(wait(start), .close)
    }

    func testAHandlerThatAsksForMoreAfterTheBodyEndedGets500() {
        accept()
        handler.onBodyEnded = [("", .more)]

        read(streamHead() + chunk("a\n") + "0\r\n\r\n", at: start)

        XCTAssertEqual(effects.answers.map(\.status), [500])
        XCTAssertEqual(effects.errors.count, 1)
    }

    func testTheAnswerEndsWithItsTrailersAndOneAccessRecordWithTheHandlersLogFields() {
        accept()
        handler.onReceive = [("", begin200), ("B\n", .more)]
        handler.onBodyEnded = [("C\n", .end(trailers: [("X-Lines", "2")], readsRest: true, logFields: [LogField("verdict", "pass")]))]

        read(streamHead() + chunk("a\n") + chunk("b\n") + "0\r\n\r\n", at: start)

        XCTAssertEqual(String(decoding: effects.streamedBytes, as: UTF8.self), "B\nC\n")
        XCTAssertEqual(effects.streamedTrailers.map { $0.map(\.0) + $0.map(\.1) }, [["X-Lines", "2"]])
        XCTAssertEqual(effects.accessStatuses, [200])
        XCTAssertEqual(effects.accessFields.first?.map(\.value), ["pass"])
        XCTAssertEqual(effects.streamsInFlight, 0)
        XCTAssertEqual(wait(start), .poll(.read, .arm(.idle, deadline: start + 60 * second)), "kept alive")
    }

    func testAnHTTP10ClientsStreamedAnswerIsCloseDelimited() {
        accept()
        handler.onReceive = [("", begin200)]
        handler.onBodyEnded = [("", .end(trailers: [("X-Lines", "1")], readsRest: true))]

        read(streamHead("Content-Length: 2", version: "1.0") + "a\n", at: start)

        XCTAssertEqual(effects.streamedHeads.first?.framing, .closeDelimited)
        XCTAssertEqual(effects.streamedHeads.first?.connection, .close)
        XCTAssertNil(effects.streamedHeads.first?.headers.first { $0.0 == "Trailer" })
        XCTAssertEqual(effects.streamedTrailers.count, 0, "no chunked coding, so no trailers")
        XCTAssertEqual(wait(start), .shutdownWriteAndLinger(deadline: start + second), "the close ends the body")
    }

    func testOutputWaitingForThePeerStopsReadingTheBody() {
        accept()
        handler.onReceive = [("A\n", begin200)]
        read(streamHead() + chunk("a\n"), at: start)

        effects.isOutputBackedUp = true
        read(chunk("b\n"), at: start + second)

        XCTAssertEqual(handler.received, "a\n", "no more is handed over while output waits")
        XCTAssertEqual(wait(start + second, pending: true), .poll(.write, .arm(.send, deadline: start + 31 * second)))
    }

    func testEndWithReadsRestReadsTheBodyToItsEndAndKeepsTheConnection() {
        accept()
        handler.onReceive = [("", begin200), ("", .end(trailers: [], readsRest: true))]

        read(streamHead() + chunk("a\n") + chunk("b\n") + chunk("ignored\n") + "0\r\n\r\n" + hello, at: start)

        XCTAssertEqual(handler.received, "a\nb\n")
        XCTAssertEqual(effects.streamedTrailers.count, 1)
        XCTAssertEqual(effects.answers, [.init(status: 200, connection: .none)], "the pipelined GET is answered")
    }

    func testAnEndDecidedWithTheBeginIsSentWithoutWaitingForMoreBody() {
        accept()
        handler.onReceive = [("", begin200)]
        handler.afterBegin = ("{\"problem\":{}}\n", .end(trailers: [("Oracle-Verdict", "invalid")], readsRest: false))

        read(streamHead() + chunk("a\nbad\n"), at: start)

        XCTAssertEqual(effects.streamedTrailers.count, 1, "the answer ends at once, the body still open")
        XCTAssertEqual(effects.accessStatuses, [200])
        XCTAssertEqual(wait(start), .shutdownWriteAndLinger(deadline: start + second))
    }

    func testEndWithoutReadsRestClosesAfterTheAnswerLingering() {
        accept()
        handler.onReceive = [("", begin200), ("{\"problem\":{}}\n", .end(trailers: [("Oracle-Verdict", "invalid")], readsRest: false))]

        read(streamHead() + chunk("a\n") + chunk("bad\n") + chunk("unread\n"), at: start)

        XCTAssertEqual(handler.received, "a\nbad\n")
        XCTAssertEqual(effects.accessStatuses, [200])
        XCTAssertEqual(wait(start), .shutdownWriteAndLinger(deadline: start + second))
    }

    func testAStreamItsHandlerEndedLetsAFastSenderGoOnLongEnoughToReadTheAnswer() {
        accept()
        handler.onReceive = [("", begin200), ("{\"problem\":{}}\n", .end(trailers: [("Oracle-Verdict", "invalid")], readsRest: false))]
        read(streamHead() + chunk("a\n") + chunk("bad\n"), at: start)
        _ = wait(start)

        let megabytes = (0..<8).map { _ in machine.bytesRead(1 << 20, now: start) }

        XCTAssertEqual(megabytes, Array(repeating: .discarded, count: 8), "discarded, not reset after 64 KiB")
        XCTAssertEqual(machine.bytesRead(ConnectionStateMachine.maxStreamLingerBytes, now: start), .close)
    }

    func testALengthOverMaxStreamBytesIs413() {
        accept { $0.maxStreamBytes = 100 }

        read(streamHead("Content-Length: 101"), at: start)

        XCTAssertEqual(effects.refusals, [413])
        XCTAssertTrue(effects.refusalDetails[0].contains("over the limit of 100 bytes"))
    }

    func testAChunkedBodyOverMaxStreamBytesAfterTheAnswerBeganClosesAfterWhatWasWritten() {
        accept { $0.maxStreamBytes = 10 }
        handler.onReceive = [("A\n", begin200)]
        read(streamHead() + chunk("a\n"), at: start)

        read(chunk("0123456789\n"), at: start + second)

        XCTAssertEqual(effects.refusals, [], "the status has gone: no 413 can follow")
        XCTAssertEqual(handler.received, "a\n")
        XCTAssertEqual(effects.accessStatuses, [200])
        XCTAssertEqual(wait(start + second), .close)
    }

    func testASlowStreamWhoseHandlerCompletesUnitsIsNotCutByTheMinimumRate() {
        accept { $0.minReceiveRate = 1024 }
        read(streamHead(), at: start)

        for tick in 1...60 {
            handler.onReceive = [("", .completedUnit)]
            read(chunk("{\"line\":\(tick)}\n"), at: start + Int64(tick) * second)
        }

        XCTAssertEqual(effects.refusals, [], "a line a second for a minute")
        XCTAssertTrue(machine.isReadingRequests)
    }

    func testASlowStreamWithoutCompletedUnitsIsCutAtTheMinimumRate() {
        accept { $0.minReceiveRate = 1024 }
        read(streamHead(), at: start)

        for tick in 1...10 { read(chunk("{\"part\":\(tick)}"), at: start + Int64(tick) * second) }

        XCTAssertEqual(effects.refusals, [408])
    }

    func testTimeTheAnswerWaitsForThePeerDoesNotCountAgainstTheStreamsRate() {
        accept { $0.minReceiveRate = 1024 }
        handler.onReceive = [("A\n", begin200)]
        read(streamHead() + chunk("a\n"), at: start)

        _ = wait(start + 20 * second, pending: true)
        read(chunk("b"), at: start + 21 * second)

        XCTAssertEqual(effects.refusals, [])
        XCTAssertTrue(machine.isReadingRequests)
    }

    func testAStreamInProgressWhenTheDrainBeginsGoesOnToItsEndThenCloses() {
        accept()
        handler.onReceive = [("A\n", begin200)]
        handler.onBodyEnded = [("", .end(trailers: [("X-Lines", "2")], readsRest: true))]
        read(streamHead() + chunk("a\n"), at: start)

        XCTAssertEqual(machine.drainBegan(hasPendingOutput: false), .none, "still in flight")
        XCTAssertEqual(machine.nextWait(hasPendingOutput: false, sentSome: false, now: start),
                       .poll(.read, .arm(.body, deadline: start + 30 * second)))
        read(chunk("b\n") + "0\r\n\r\n", at: start + second)

        XCTAssertEqual(handler.received, "a\nb\n")
        XCTAssertEqual(effects.streamedTrailers.count, 1)
        XCTAssertEqual(machine.nextWait(hasPendingOutput: false, sentSome: false, now: start + second), .close)
    }

    func testAStalledStreamIsCutAtTheBodyTimeout() {
        accept()
        read(streamHead() + chunk("a\n"), at: start)
        XCTAssertEqual(wait(start), .poll(.read, .arm(.body, deadline: start + 30 * second)))

        let action = fire(at: start + 30 * second)

        XCTAssertEqual(action, .proceed)
        XCTAssertEqual(effects.refusals, [408])
    }

    // MARK: Streams under backpressure and within the budget (issue 42)

    private let endInvalid = StreamedProgress.end(trailers: [("Oracle-Verdict", "invalid")], readsRest: false)

    func testAPausedStreamKeepsTheRestOfItsReadAndHandsItOverFirstOnceTheOutputHasGone() {
        accept()
        handler.onReceive = [("", begin200)]
        handler.afterBegin = ("A\n", .pause(unread: 4))
        effects.isOutputDrained = false
        read(streamHead() + "6\r\na\nb\nc\n", at: start)
        XCTAssertEqual(handler.received, "a\nb\nc\n")

        var index = 0
        let later = Array(("\r\n" + chunk("d\n")).utf8)
        later.withUnsafeBytes { parse($0, index: &index, at: start) }
        XCTAssertEqual(index, 0, "a later read waits behind the held rest")
        XCTAssertTrue(machine.resumesWithoutInput)

        effects.isOutputDrained = true
        handler.onReceive = [("B\nC\n", .completedUnit), ("D\n", .completedUnit)]
        parseWithoutInput(at: start)
        later.withUnsafeBytes { parse($0, index: &index, at: start) }

        XCTAssertEqual(handler.received, "a\nb\nc\nb\nc\nd\n", "the rest, then the later read, in order")
        XCTAssertEqual(String(decoding: effects.streamedBytes, as: UTF8.self), "A\nB\nC\nD\n")
        XCTAssertFalse(machine.resumesWithoutInput)
    }

    func testAPausedReadsRestIsCountedInTheStreamsShare() {
        accept()
        handler.onReceive = [("", begin200)]
        let line = String(repeating: "x", count: 99) + "\n"
        handler.afterBegin = ("A\n", .pause(unread: 100 * 100))
        effects.isOutputDrained = false

        read(streamHead() + chunk(String(repeating: line, count: 101)), at: start)

        XCTAssertEqual(effects.reserved, StreamedBody.defaultMemoryShare + 64 * 1024)
    }

    func testAStreamsShareFollowsWhatItsHandlerHoldsLineByLine() {
        accept()
        read(streamHead(), at: start)
        XCTAssertEqual(effects.reserved, StreamedBody.defaultMemoryShare)

        handler.held = 1_000_000
        read(chunk("{\"long\":\"line so far"), at: start)
        XCTAssertEqual(effects.reserved, StreamedBody.defaultMemoryShare + 16 * 64 * 1024, "in 64 KiB steps")

        handler.held = 0
        read(chunk("\"}\n"), at: start)
        XCTAssertEqual(effects.reserved, StreamedBody.defaultMemoryShare, "given back once the line has gone")
    }

    func testManySlowStreamsHoldWhatTheyHoldNotTheWholeBudget() {
        let budget = 512 * 1024 * 1024
        effects.budget = budget
        var connections: [Connection] = []
        for _ in 0..<128 {
            accept()
            read(streamHead() + chunk(#"{"type":"userPlayed"}"# + "\n"), at: start)
            connections.append(connection)
        }

        XCTAssertEqual(effects.reserved, 128 * StreamedBody.defaultMemoryShare)
        accept()
        read(postHead(1000) + String(repeating: " ", count: 998) + "{}", at: start)
        XCTAssertEqual(effects.answers.map(\.status), [200], "a normal request still fits")
    }

    func testAStreamWhoseHoldingTheBudgetCannotTakeEndsWith503InBand() {
        accept()
        effects.budget = StreamedBody.defaultMemoryShare + 64 * 1024
        handler.onReceive = [("A\n", begin200)]
        handler.onCut = { ("{\"problem\":{\"status\":\($0.status)}}\n", self.endInvalid) }
        read(streamHead() + chunk("a\n"), at: start)

        handler.held = 1_000_000
        read(chunk("{\"long"), at: start)

        XCTAssertEqual(handler.cuts.map(\.status), [503])
        XCTAssertEqual(String(decoding: effects.streamedBytes, as: UTF8.self), "A\n{\"problem\":{\"status\":503}}\n")
        XCTAssertEqual(effects.streamedTrailers.count, 1, "the answer ends with its last chunk and trailers")
        XCTAssertEqual(effects.reserved, 0)
    }

    func testAStreamWhoseHoldingTheBudgetCannotTakeBeforeItsAnswerIs503() {
        accept()
        effects.budget = StreamedBody.defaultMemoryShare
        read(streamHead(), at: start)

        handler.held = 1_000_000
        read(chunk("{\"head"), at: start)

        XCTAssertEqual(effects.refusals, [503])
        XCTAssertEqual(effects.reserved, 0)
    }

    func testALineSlowerThanTheMinimumRateEndsABegunStreamInBand() {
        accept { $0.minReceiveRate = 1024 }
        handler.onReceive = [("A\n", begin200)]
        handler.onCut = { ("{\"problem\":{\"status\":\($0.status)}}\n", self.endInvalid) }
        read(streamHead() + chunk(#"{"type":"userPlayed"}"# + "\n"), at: start)

        read(chunk(#"{"type":"userPlayed"}"# + "\n"), at: start + 25 * second)

        XCTAssertEqual(handler.cuts.map(\.status), [408])
        XCTAssertEqual(effects.refusals, [], "its status has gone: the problem is in the answer")
        XCTAssertEqual(String(decoding: effects.streamedBytes, as: UTF8.self), "A\n{\"problem\":{\"status\":408}}\n")
        XCTAssertEqual(effects.streamedTrailers.map { $0.map(\.1) }, [["invalid"]])
        XCTAssertEqual(effects.accessStatuses, [200])
        XCTAssertEqual(effects.reserved, 0)
        XCTAssertEqual(wait(start + 25 * second), .shutdownWriteAndLinger(deadline: start + 26 * second))
    }

    func testABegunStreamStalledPastTheBodyTimeoutEndsInBand() {
        accept()
        handler.onReceive = [("A\n", begin200)]
        handler.onCut = { ("{\"problem\":{\"status\":\($0.status)}}\n", self.endInvalid) }
        read(streamHead() + chunk("a\n"), at: start)
        _ = wait(start)

        XCTAssertEqual(fire(at: start + 30 * second), .proceed)

        XCTAssertEqual(handler.cuts.map(\.status), [408])
        XCTAssertEqual(effects.streamedTrailers.count, 1)
        XCTAssertEqual(effects.refusals, [])
    }

    func testAContentLengthBodyWhoseLastBytesBackedUpTheOutputIsSeenToEndOnceItHasGone() {
        accept()
        handler.onReceive = [("", begin200)]
        handler.afterBegin = (String(repeating: "A", count: 100) + "\n", .completedUnit)
        handler.whenReceiving = { [effects] in effects.isOutputBackedUp = true }
        handler.onBodyEnded = [("{\"summary\":true}\n", .end(trailers: [("X-Lines", "1")], readsRest: true))]
        read(streamHead("Content-Length: 2") + "a\n", at: start)
        XCTAssertEqual(effects.streamedTrailers.count, 0, "the body's end is due but output waits")
        XCTAssertTrue(machine.resumesWithoutInput, "so parsing goes on once it has gone, with no more bytes")

        effects.isOutputBackedUp = false
        parseWithoutInput(at: start + second)

        XCTAssertEqual(effects.streamedTrailers.count, 1, "the summary and the last chunk, not a 30 s stall")
        XCTAssertEqual(wait(start + second), .poll(.read, .arm(.idle, deadline: start + 61 * second)))
    }

    func testEveryStreamsEndSchedulesTheHeapTrim() {
        accept()
        handler.onReceive = [("", begin200)]
        handler.onBodyEnded = [("", .end(trailers: [], readsRest: true))]
        read(streamHead("Content-Length: 2") + "a\n", at: start)
        XCTAssertEqual(effects.trims, 1, "a small stream that ended")

        accept()
        handler.onReceive = [("A\n", begin200)]
        read(streamHead() + chunk("a\n"), at: start)
        _ = machine.closed()
        XCTAssertEqual(effects.trims, 2, "a stream whose peer left")
    }
}

private extension Array {
    func chunked(into size: Int) -> [[Element]] {
        stride(from: 0, to: count, by: size).map { Array(self[$0..<Swift.min($0 + size, count)]) }
    }
}

/// A body stream that writes nothing: what the machine is told of is its existence.
private final class NoPieces: HTTPBodyStream {
    func next(into piece: WrittenBytes, minimum: Int) -> Bool { false }
    func byteCount() -> Int { 0 }
}
