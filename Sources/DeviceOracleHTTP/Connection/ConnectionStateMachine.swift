/// Everything one HTTP/1.1 connection decides, and nothing it does: which request a
/// byte belongs to, when a handler runs, which answer goes out, which timeout applies
/// and what happens when it fires, when reading waits for the memory budget, when the
/// connection lingers or closes. `HTTPConnection` feeds it events (bytes read, peer
/// closed, a timer fired, a handler finished, output sent) and performs what it returns.
///
/// Time is an argument (`now:`, monotonic nanoseconds), never read from a clock, so
/// every timeout rule is tested with a manual clock (`ConnectionStateMachineTests`).
/// User code never runs inside: routing (which may run a route's query check) and a
/// route's handler are requested by `parse` (`route`, `runHandler`, `offload`,
/// `makeStreamHandler`, `callStreamHandler`) and their result comes back as an input
/// (`headRouted`, `handlerFinished`, `streamHandlerMade`, `streamHandlerAnswered`).
/// What the loop does for it comes back as values: one small enum per input (the next
/// step of a parse round, proceed, wait for this, close...), and the answers, their
/// pieces, access records and the memory given back or held as `Effect`s, performed in
/// the order decided (`nextEffect`). A reservation of the memory budget is asked for
/// too (`reserve`) and its answer comes back as an input (`budgetAnswered`): the
/// machine consults nothing.
struct ConnectionStateMachine: ~Copyable {
    /// The rules every connection of a server follows, shared (one reference per connection).
    final class Settings: Sendable {
        /// Each route's streamed body, by the route's index (what a stream holds of the
        /// budget, and how its handler is made): the router itself is the loop's.
        let streamedBodies: [StreamedBody?]
        let headLimits: HeadLimits
        let maxBodyBytes: Int
        let maxStreamBytes: Int
        let headerTimeout: Double
        let bodyTimeout: Double
        let minReceiveRate: Double
        let minReceiveRateGrace: Double
        let memoryWait: Double
        let memoryLimit: Int
        let memoryPerBodyByte: Int
        let offloadBodyBytes: Int
        /// Each `TimerKind`'s duration, clamped to a year so no configured value overflows.
        let timerNanoseconds: [Int64]
        /// Access records (the access log's lines, `/metrics`' counts) are built only as far
        /// as someone reads them.
        let answerRecording: AnswerRecording

        init(configuration: ServerConfiguration, router: Router, answerRecording: AnswerRecording) {
            self.answerRecording = answerRecording
            streamedBodies = router.routes.map(\.streamed)
            headLimits = configuration.headLimits
            maxBodyBytes = configuration.maxBodyBytes
            maxStreamBytes = configuration.maxStreamBytes
            headerTimeout = configuration.headerTimeout
            bodyTimeout = configuration.bodyTimeout
            minReceiveRate = configuration.minReceiveRate
            minReceiveRateGrace = configuration.minReceiveRateGrace
            memoryWait = configuration.memoryWait
            memoryLimit = configuration.maxMemoryBytes
            memoryPerBodyByte = configuration.memoryPerBodyByte
            offloadBodyBytes = configuration.offloadBodyBytes
            timerNanoseconds = TimerKind.allCases.map { kind in
                let seconds = switch kind {
                case .header: configuration.headerTimeout
                case .body: configuration.bodyTimeout
                case .send: configuration.sendTimeout
                case .idle: configuration.idleTimeout
                case .linger: ConnectionStateMachine.lingerSeconds
                case .memoryRetry: ConnectionStateMachine.memoryRetrySeconds
                }
                return Int64((min(max(seconds, 0.001), 31_536_000) * 1e9).rounded())
            }
        }
    }

    /// How an answer's body goes on the wire (RFC 9112 §6). The machine decides it from
    /// the request and the answer; the connection performs it.
    enum AnswerFraming: Equatable {
        /// `response.body`, with its Content-Length.
        case whole
        /// HEAD to an answer written as it is sent: a GET's header fields (chunked to an
        /// HTTP/1.1 client), and the body is never made.
        case headOfStream(chunked: Bool)
        /// An answer written as it is sent: its first piece is made at once, and a stream
        /// that ends within it goes whole, with a Content-Length. A longer one is chunked,
        /// or, to an HTTP/1.0 client (which has no chunked coding), sent as it is written
        /// after a Content-Length counted first (`HTTPResponse.streamLength`).
        case stream(chunked: Bool)
    }

    /// The framing of `response` to a request with this method and version. (Not the
    /// head itself: read from an exchange's facts to be passed, the head was copied, its
    /// fields' storage retained and released, once a request.)
    static func framing(of response: borrowing HTTPResponse, method: HTTPMethod, version: HTTPVersion) -> AnswerFraming {
        guard response.bodyStream != nil else { return .whole }
        let chunked = version != .http1_0
        return method == .HEAD ? .headOfStream(chunked: chunked) : .stream(chunked: chunked)
    }

    static let maxLingerBytes = 64 * 1024
    /// A stream its handler ended early (an NDJSON problem line) has a peer still
    /// sending at full speed, which 64 KiB would cut within a millisecond, resetting the
    /// connection before the peer read the answer's end: it may send this much more
    /// (still within `lingerSeconds`).
    static let maxStreamLingerBytes = 16 * 1024 * 1024
    /// How long a lingering close reads and discards before it closes anyway.
    static let lingerSeconds = 1.0
    /// How often a body waiting for the memory budget tries again.
    static let memoryRetrySeconds = 0.02
    /// A chunked body's share of the memory budget is taken this many bytes at a time,
    /// since its length is unknown until it ends.
    static let chunkedReservationBytes = 1024 * 1024

    /// The request between its head and its answer. Not copyable: it is moved from state
    /// to state, never copied and destroyed on the way. What moves is one pointer: its
    /// facts (`Facts`, ~170 bytes with the head, read and changed as its own members)
    /// stay in one place from the head's arrival to the answer, and it alone owns them
    /// (freed with it). Moved whole, they were copied (memcpy) some thirty times a
    /// request, at each take and put of the state.
    @dynamicMemberLookup
    struct Exchange: ~Copyable {
        private let facts: UnsafeMutablePointer<Facts>

        /// A request whose head has arrived while `waiting`: its start, its rate clock and
        /// what it carries go on from there.
        @inline(__always)
        init(head: RequestHead, after waiting: AwaitingHead) {
            facts = .allocate(capacity: 1)
            facts.initialize(to: Facts(head: head, startedAt: waiting.startedAt, rateClock: waiting.rateClock,
                                       carried: waiting.carried))
        }

        deinit {
            facts.deinitialize(count: 1)
            facts.deallocate()
        }

        subscript<Value>(dynamicMember member: WritableKeyPath<Facts, Value>) -> Value {
            _read { yield facts.pointee[keyPath: member] }
            _modify { yield &facts.pointee[keyPath: member] }
        }

        /// `count` bytes read at `now` (`startsRequest`: the first of a request's) counted
        /// by its rate clock where the facts are: borrowed from the state's payload, the
        /// state is not taken out and put back for it (each read of a body).
        func countRead(_ count: Int, at now: Int64, startsRequest: Bool) {
            facts.pointee.rateClock.count(count, at: now, startsRequest: startsRequest)
        }

        /// Its rate clock starts again (a wait of the server's), where the facts are.
        func restartRateClock(at now: Int64) {
            facts.pointee.rateClock.restart(at: now)
        }

        /// Changes what it carries where its facts are: borrowed from the state's payload,
        /// the state is not taken out and put back for it (`modifyCarried`).
        func modifyCarried(_ change: (inout Carried) -> Void) {
            change(&facts.pointee.carried)
        }

        /// The answer decided from the head alone (404, 405, 415...), sent once the body has been read.
        var decided: HTTPResponse? {
            get { facts.pointee.decidedAnswer?.response }
            set { facts.pointee.decidedAnswer = newValue.map(DecidedAnswer.init) }
        }

        /// What an access line of a refusal says of the request.
        var summary: HeadSummary {
            HeadSummary(method: facts.pointee.head.method.rawValue, path: facts.pointee.head.path,
                        userAgent: facts.pointee.head.userAgent)
        }

        struct Facts {
            var head: RequestHead
            /// The route that answers (its index in the router); nil when `decided` does.
            var routeIndex: Int? = nil
            /// `decided`, boxed: it is rare.
            fileprivate var decidedAnswer: DecidedAnswer?
            var keepsBody = false
            /// The body goes to the route's `StreamedRequestHandler` as it arrives.
            var streams = false
            /// When its head began to arrive (the access line's duration counts from it).
            var startedAt: Int64
            /// The minimum-rate clock, from its head's first read (restarted by the server's own waits).
            var rateClock: ReceiveRateClock
            /// Handed on from the head's case to the next after the answer.
            var carried: Carried
            /// The body as read so far (a kept body only). Appended to in place: the
            /// exchange owns its facts, so this array is the only reference to its storage.
            var body: [UInt8] = []
            /// What the request holds of the memory budget.
            var holding = Holding()
            /// The reservation asked for and not answered yet (`budgetAnswered`).
            var asked = AskedReservation.none
            /// Body bytes arrived since the connection last waited: the body timeout starts again.
            var bodyProgress = false
            /// The last `parse` stopped here because output waited, maybe with an event due
            /// that needs no more bytes (the end of a body whose last bytes were all read):
            /// parsing goes on once the output has gone, whether or not more bytes arrive.
            var stoppedForOutput = false

            init(head: RequestHead, startedAt: Int64, rateClock: ReceiveRateClock, carried: Carried) {
                self.head = head
                self.startedAt = startedAt
                self.rateClock = rateClock
                self.carried = carried
            }
        }
    }

    final class DecidedAnswer {
        let response: HTTPResponse

        init(_ response: HTTPResponse) {
            self.response = response
        }
    }

    /// What a request holds of the server's memory budget. It goes with the request's
    /// answer (`Answer.holding`) and is given back once that answer has gone
    /// (`answerBodyQueued`), or when the request ends without one.
    struct Holding {
        /// The body bytes its share covers (`share(of:)` them is counted).
        var bodyBytes = 0
        /// A streamed request's share (`StreamedBody.memoryShare`), whatever its length,
        /// grown in steps with what its handler holds.
        var streamShare = 0
        /// What its answer holds beyond the body's share (`HTTPResponse.heldBytes`).
        var answerBytes = 0
    }

    /// A request whose body is handed to its handler read by read, and its answer.
    struct Stream: ~Copyable {
        enum Answer {
            /// The handler has not said yet; nothing is sent.
            case undecided
            /// The head has gone; body bytes follow as chunks (close-delimited to HTTP/1.0).
            case begun(status: Int, chunked: Bool, keepAlive: Bool)
            /// The answer is queued whole; the rest of the body is read and thrown away.
            case ended(keepAlive: Bool)
        }

        var exchange: Exchange
        let handler: any StreamedRequestHandler
        var answer = Answer.undecided
        var receivedBytes = 0
        var sentBytes = 0
        /// The handler call decided and not made yet: `parse` asks for it before anything else.
        var due: StreamCall?
        /// The rest of a read the handler did not take when it paused
        /// (`StreamedProgress.pause`): handed over first once the output has gone.
        var heldInput: [UInt8] = []

        var isUndecided: Bool {
            if case .undecided = answer { return true }
            return false
        }
    }

    /// A call of the current stream's handler, which the loop makes when `parse` asks
    /// (`callStreamHandler`) and reports with `streamHandlerAnswered`. Indirect: a
    /// stream's payload would otherwise grow the state every request copies.
    indirect enum StreamCall {
        /// `receive(bytes)`. A `pause` it returns keeps the rest of `pauseFrom`: the same
        /// bytes, or those of the call that returned `begin` just before (this one then
        /// gets none).
        case receive(StreamInput, pauseFrom: StreamInput)
        /// `bodyEnded` (again after it returned `begin`).
        case bodyEnded
        /// `cut(problem)`: the server ends a stream whose answer has begun.
        case cut(HTTPError)

        /// Makes the call: the loop's part, never the machine's. `input`: the bytes last
        /// given to `parse`.
        func perform(on handler: any StreamedRequestHandler, input: UnsafeRawBufferPointer,
                     output: inout [UInt8]) -> StreamedProgress? {
            switch self {
            case .receive(let bytes, _): bytes.withBytes(in: input) { handler.receive($0, output: &output) }
            case .bodyEnded: handler.bodyEnded(output: &output)
            case .cut(let problem): handler.cut(problem, output: &output)
            }
        }
    }

    /// Bytes a stream's handler is given.
    enum StreamInput {
        case none
        /// `input[range]` of the bytes given to `parse`.
        case read(Range<Int>)
        /// The rest of a read the handler paused in, handed over first once the output has gone.
        case held([UInt8])

        func withBytes<Result>(in input: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
            switch self {
            case .none: body(ConnectionStateMachine.noBytes)
            case .read(let range): body(UnsafeRawBufferPointer(rebasing: input[range]))
            case .held(let bytes): bytes.withUnsafeBytes(body)
            }
        }
    }

    /// Between requests or inside a head, and (as `.routing`) a head being routed.
    struct AwaitingHead: CarriesOn {
        /// The connection has answered a request before: its wait is the idle timeout.
        var hasAnswered: Bool
        /// The last `parse` stopped here because output waited (`Exchange.stoppedForOutput`).
        var stoppedForOutput = false
        /// When the head began to arrive: its first read between requests, or, for a head
        /// already read behind an answer (pipelined), that answer's request's start.
        var startedAt: Int64
        /// The minimum-rate clock of the head (and then its body), restarted at its first read.
        var rateClock: ReceiveRateClock
        /// Its timer is the header or idle timeout, or the send timeout of the answer before.
        var carried: Carried
    }

    /// A payload that holds what its case carries (`Carried`) itself, not in an exchange.
    protocol CarriesOn {
        var carried: Carried { get set }
    }

    /// What every case but `closed` carries in its payload (an exchange's facts while a
    /// request is in one) and hands on at each transition: facts of the connection, not
    /// of one request.
    struct Carried {
        var closing: Closing
        /// The send timeout, armed while an answer goes out, runs on into the next
        /// request's cases; an answer's next case starts unarmed (the idle clock restarts).
        var timer = ArmedTimer()
    }

    /// What, once told, holds for the rest of the connection whatever its case (`Carried`).
    /// Told by `peerClosed` and `drainBegan`, which change it where it is.
    struct Closing {
        /// The peer closed its side: answers close, without lingering.
        var peerClosedInput = false
        /// The server drains: answers close, and an idle connection closes.
        var draining = false
    }

    /// A request whose body waits for the memory budget.
    struct AwaitingMemory: ~Copyable {
        var exchange: Exchange
        var since: Int64
        /// The body bytes the budget must take a share of before reading goes on.
        var bodyBytes: Int
        /// The memory wait has passed: a refusal of this try is the last (`503`).
        var isLastTry = false
    }

    /// A reservation of the memory budget asked for (`reserve`), whose answer
    /// (`budgetAnswered`) decides what comes next.
    enum AskedReservation {
        case none
        /// The request waiting in `.awaitingMemory`: its stream's share, or its body's.
        case admission(bytes: Int)
        /// The share of `bodyBytes` more of the body being received (`.receivingBody`, which
        /// reads nothing before the answer): refused, it waits in `.awaitingMemory`.
        case body(bodyBytes: Int)
        /// A stream that holds more: its share grows to `wanted`, or it ends with `503`.
        case streamGrowth(wanted: Int)
    }

    struct Lingering: CarriesOn {
        var discarded = 0
        /// What is read and discarded at most: more after a refusal whose client sends
        /// its body anyway, so it reads the answer instead of a reset.
        var allowance: Int
        var carried: Carried
    }

    /// Send what is queued, then close, lingering (up to `lingerAllowance`) or not.
    struct ClosingAfterWrite: CarriesOn {
        var linger: Bool
        var lingerAllowance: Int
        var carried: Carried
    }

    private enum State: ~Copyable {
        /// Between requests, or inside a head (the framer knows which).
        case awaitingHead(AwaitingHead)
        /// A head has arrived and the loop routes it (`route`, `headRouted`); nothing
        /// more is parsed until then. The payload is what it was awaited with.
        case routing(AwaitingHead)
        /// A head has arrived; its body (maybe empty) is read.
        case receivingBody(Exchange)
        /// A head has arrived whose body goes to a `StreamedRequestHandler` as it is read;
        /// its answer goes out as the handler writes it.
        case streaming(Stream)
        /// The budget took a streamed request's share: its handler is to be made (by the
        /// loop, `makeStreamHandler`), before any of its body is read.
        case startingStream(Exchange)
        /// The body needs more of the budget than it has: reading is paused (its bytes
        /// wait in the socket) until they fit or `memoryWait` passes.
        case awaitingMemory(AwaitingMemory)
        /// The handler runs (on the worker pool when offloaded); nothing more is parsed.
        case running(Exchange)
        case closingAfterWrite(ClosingAfterWrite)
        /// Write side shut; reading and discarding so the peer sees the answer, not a reset.
        case lingering(Lingering)
        case closed
        /// Only while a case's payload is changed in place (no copy of its body).
        case modifying
    }

    /// What the loop does for the machine, in the order decided (`nextEffect`): answers
    /// and their pieces into the connection's output, access records, the heap timer.
    /// An answer to queue, framed as decided, with `connection` as its Connection field
    /// (`omitsBody`: to a HEAD). Once its body has been queued to its end (at once when
    /// whole, or when its stream ends) the loop says so with `answerBodyQueued`; its
    /// access record is then written.
    struct Answer {
        var response: HTTPResponse
        let omitsBody: Bool
        let framing: AnswerFraming
        let connection: ResponseSerializer.ConnectionField
        let accessLine: AccessLineFields?
        /// What its request holds of the budget, given back with `answerBodyQueued`.
        let holding: Holding
    }

    /// What the loop does once a route's handler has answered (`handlerFinished`).
    enum Answered {
        /// Nothing was waiting for it (the connection closed meanwhile).
        case none
        /// Its answer is among the effects: as `Action.proceed`.
        case proceed
        /// Queue this answer, the only thing decided (no trip through the effects), then
        /// as `Action.proceed`.
        case send(Answer)
    }

    enum Effect {
        /// `100 Continue`, for a body that may now be sent.
        case sendContinue
        case send(Answer)
        /// An answer after which the connection closes (`Connection: close`).
        case sendRefusal(HTTPResponse)
        /// An answer's access record (`bytes` of body sent).
        case record(AccessLineFields, bytes: Int)
        /// A streamed request's handler was made: the request is in flight until
        /// `streamedAnswerEnded` (or the connection closes).
        case streamStarted
        /// A streamed answer's head (no body): chunked, or close-delimited to HTTP/1.0.
        case sendStreamedHead(HTTPResponse, framing: ResponseSerializer.BodyFraming,
                              connection: ResponseSerializer.ConnectionField)
        /// What a streamed request's handler wrote: a chunk, or the bytes as they are.
        case sendStreamedBytes([UInt8], chunked: Bool)
        /// The last chunk of a chunked streamed answer, with its trailer fields.
        case sendStreamedEnd(trailers: [(String, String)])
        /// A streamed answer has ended, or was cut after it began: its access record
        /// (`bytes` of body sent), and the request is no longer in flight.
        case streamedAnswerEnded(accessLine: AccessLineFields?, bytes: Int)
        /// Megabytes were freed: the heap may be trimmed once things are quiet.
        case largeWorkEnded
        /// Gives `bytes` back to the server's memory budget.
        case releaseMemory(Int)
        /// Counts `bytes` the process holds already (an answer's work) in the budget: never refused.
        case holdMemory(Int)
        /// Logs an error of the server's own (never the request's data).
        case logError(String)
    }

    /// The connection's output as `parse` sees it (the loop's, given with each call).
    struct OutputState {
        /// Parsing stops while this much output waits or a streamed body is still going out.
        var isBackedUp: Bool
        /// Every answer byte queued so far has gone to the socket: a paused stream may go on.
        var isDrained: Bool
    }

    /// What the event loop does with bytes just read.
    enum Arrival: Equatable {
        /// Parse them (`parse`), then call `readEnded`.
        case parse
        /// Lingering: they were discarded.
        case discarded
        case close
    }

    /// Why `parse` returned. Not copyable: the loop takes the request out of it, never a copy.
    enum ParseResult: ~Copyable {
        /// Route this head (`RouterHolder.choose(for:)`) and give the choice with
        /// `headRouted`, which returns the next step (it parses on, the same input).
        case route(RequestHead)
        /// Nothing more can be parsed now: more bytes are needed, output is backed up, or
        /// the state no longer reads. Unparsed bytes are kept if `keepsUnparsedInput`.
        case stop
        /// Run this handler now and report with `handlerFinished` (`proceed`: perform the
        /// effects), then parse on.
        case runHandler(routeIndex: Int, request: HTTPRequest)
        /// Run this handler on another thread; `handlerFinished` when it answers.
        case offload(routeIndex: Int, request: HTTPRequest)
        /// Make the handler of this streamed request (`StreamedBody.handler`) and give it
        /// with `streamHandlerMade`, which returns the next step.
        case makeStreamHandler(StreamedBody, HTTPRequest)
        /// Make this call of the stream's handler now and report it with
        /// `streamHandlerAnswered`, which returns the next step.
        case callStreamHandler(any StreamedRequestHandler, StreamCall)
        /// Perform the effects decided (`nextEffect`), then parse on (the same input):
        /// the output's state they change decides whether parsing goes on.
        case performEffects
        /// Reserve `bytes` of the memory budget and say whether it took them with
        /// `budgetAnswered`, which returns the next step (it parses on, the same input).
        case reserve(bytes: Int)
    }

    /// What the event loop does after an event.
    enum Action: Equatable {
        case none
        /// Perform the effects decided (`nextEffect`) and a stream handler's call due
        /// (`hasDueStreamCall`), send what is queued, parse what waited behind it, then ask
        /// `nextWait`. Inside a parse round (an inline handler's answer): perform the
        /// effects, then parse on.
        case proceed
        /// Perform the effects decided (`nextEffect`) and nothing more: memory given back,
        /// a cut stream's access line.
        case performEffects
        /// Reserve `bytes` of the memory budget and say whether it took them with
        /// `budgetAnswered`, which returns what to do next.
        case reserve(bytes: Int)
        /// Give `bytes` back to the memory budget, the only thing decided (no trip through
        /// the effects): the share of a request's body once its answer has gone.
        case releaseMemory(Int)
        case setInterest(Interest)
        case close
    }

    enum Interest: Equatable {
        case none, read, write
    }

    enum TimerChange: Equatable {
        case keep
        case disarm
        case arm(TimerKind, deadline: Int64)
    }

    /// What the connection waits for once its output has been sent as far as it goes.
    enum Wait: Equatable {
        case poll(Interest, TimerChange)
        /// Shut the write side, read (and discard) until the peer closes or the deadline.
        case shutdownWriteAndLinger(deadline: Int64)
        case close
        /// Lingering or closed: change nothing.
        case unchanged
    }

    /// The minimum-rate clock of the request being received: since when, and how many
    /// bytes have arrived since then. In the payload of the cases that receive (a head's
    /// `AwaitingHead`, an exchange's facts).
    struct ReceiveRateClock {
        var startedAt: Int64
        var bytes = 0

        mutating func restart(at now: Int64) {
            startedAt = now
            bytes = 0
        }

        /// `count` bytes were read at `now`; `startsRequest`: the first of a request's.
        mutating func count(_ count: Int, at now: Int64, startsRequest: Bool) {
            if startsRequest { restart(at: now) }
            bytes += count
        }
    }

    /// What the loop's one timer is armed for, and when it fires (`Carried`).
    struct ArmedTimer {
        var kind: TimerKind?
        var deadline: Int64 = 0
    }

    let settings: Settings
    /// Everything of a request lives in its case's payload, and so do a head's start and
    /// rate clock (`AwaitingHead`, then the `Exchange`) and what every case carries on
    /// (`Carried`: what holds once told, what the timer is armed for). Beside it are only
    /// the two channels, input and output, each with why it is not in a payload.
    private var state: State
    /// Beside: the input channel, as the outbox is the output one. The byte stream's
    /// parser, whose position spans requests (a pipelined head may be half read while the
    /// previous request is answered) and which parses in place.
    private var framer: RequestFramer
    /// Not state but the output channel: effects decided and not yet taken by the loop
    /// (`nextEffect`), `outbox[outboxIndex..<outboxCount]`. Its slots are reused (a taken
    /// one holds a placeholder), so a request allocates nothing.
    private var outbox: [Effect] = []
    private var outboxIndex = 0
    private var outboxCount = 0

    /// A new connection, accepted at `now` (`draining`: after the drain began): its first
    /// head is due within the header timeout.
    init(settings: Settings, now: Int64, draining: Bool = false) {
        self.settings = settings
        state = .awaitingHead(AwaitingHead(
            hasAnswered: false, startedAt: now, rateClock: ReceiveRateClock(startedAt: now),
            carried: Carried(closing: Closing(draining: draining),
                             timer: ArmedTimer(kind: .header,
                                               deadline: now + settings.timerNanoseconds[TimerKind.header.rawValue]))))
        framer = RequestFramer(limits: settings.headLimits, maxBodyBytes: settings.maxBodyBytes, checksContentLength: false)
    }

    /// The loop's recycled buffers are lent to the framer while this connection parses
    /// (`RecycledBuffers`), and taken back after.
    mutating func lend(_ buffers: inout RecycledBuffers) {
        swap(&framer.recycled, &buffers)
    }

    /// An answered request's head bytes and body, for the next request's.
    mutating func recycle(_ request: consuming HTTPRequest) {
        var buffers = request.takeBuffers()
        framer.recycled.keep(&buffers)
    }

    /// The timer the loop has armed for this connection, if any.
    var armedTimer: (kind: TimerKind, deadline: Int64)? {
        let timer = self.timer
        return timer.kind.map { ($0, timer.deadline) }
    }

    /// Where the body being read is stored (tests check that reads append in place).
    var bodyStorage: UnsafeRawPointer? {
        switch state {
        case .receivingBody(let exchange): exchange.body.withUnsafeBytes { $0.baseAddress }
        default: nil
        }
    }

    var isClosed: Bool { phase == .closed }

    /// Requests are parsed (pending input may be given to `parse`).
    var isReadingRequests: Bool { phase.isReadingRequests }

    /// Bytes `parse` left are kept for later (not dropped, as when closing).
    var keepsUnparsedInput: Bool {
        switch phase {
        case .awaitingHead, .routing, .receivingBody, .streaming, .startingStream, .running, .awaitingMemory: true
        case .closingAfterWrite, .lingering, .closed, .modifying: false
        }
    }

    /// A request whose head has arrived and whose answer is not fully sent (http.md:
    /// such requests complete at shutdown).
    func hasRequestInFlight(hasPendingOutput: Bool) -> Bool {
        switch phase {
        case .routing, .running, .awaitingMemory, .receivingBody, .streaming, .startingStream: true
        case .awaitingHead, .closingAfterWrite: hasPendingOutput
        case .lingering, .closed, .modifying: false
        }
    }

    /// Parsing must go on once the output has gone even if no more bytes arrive: held
    /// input of a paused stream, or an event due without input.
    var resumesWithoutInput: Bool {
        switch state {
        case .awaitingHead(let waiting): waiting.stoppedForOutput
        case .receivingBody(let exchange): exchange.stoppedForOutput
        case .startingStream: true
        case .streaming(let stream):
            stream.exchange.stoppedForOutput || stream.due != nil || !stream.heldInput.isEmpty
        default: false
        }
    }

    /// A stream's handler call was decided outside `parse` (a timeout or the minimum rate
    /// cut the stream): `parse`, even with no bytes, asks for it.
    var hasDueStreamCall: Bool {
        switch state {
        case .startingStream: true
        case .streaming(let stream): stream.due != nil
        default: false
        }
    }

    /// The share of the budget an offloaded handler's request holds, for its completion
    /// to give back when the connection has closed meanwhile.
    var offloadedReservation: Int {
        switch state {
        case .running(let exchange): share(of: exchange.holding.bodyBytes)
        default: 0
        }
    }

    /// The state's case without its payload: what most decisions look at. Reading it
    /// borrows the state (matching the state itself in `if case` would consume it).
    private enum Phase: Equatable {
        case awaitingHead, routing, receivingBody, streaming, startingStream, awaitingMemory, running
        case closingAfterWrite, lingering, closed, modifying

        var isReadingRequests: Bool {
            switch self {
            case .awaitingHead, .receivingBody, .streaming, .startingStream: true
            case .routing, .awaitingMemory, .running, .closingAfterWrite, .lingering, .closed, .modifying: false
            }
        }
    }

    /// Puts `new` in the state.
    @inline(__always)
    private mutating func put(_ new: consuming State) {
        state = new
    }

    /// The state's case, read from the enum. A copy kept beside it (set by every put and
    /// take) measured no cheaper once the payloads held a head's start and the closing
    /// facts: callgrind, c=64 small playback body, 30,622 instructions a read with it,
    /// 30,567 without.
    private var phase: Phase {
        switch state {
        case .awaitingHead: .awaitingHead
        case .routing: .routing
        case .receivingBody: .receivingBody
        case .streaming: .streaming
        case .startingStream: .startingStream
        case .awaitingMemory: .awaitingMemory
        case .running: .running
        case .closingAfterWrite: .closingAfterWrite
        case .lingering: .lingering
        case .closed: .closed
        case .modifying: .modifying
        }
    }

    /// `body` of the current request's exchange, borrowed from the state (nil between requests).
    private func withCurrentExchange<Result>(_ body: (borrowing Exchange) -> Result) -> Result? {
        switch state {
        case .receivingBody(let exchange): body(exchange)
        case .awaitingMemory(let waiting): body(waiting.exchange)
        case .running(let exchange): body(exchange)
        case .startingStream(let exchange): body(exchange)
        case .streaming(let stream): body(stream.exchange)
        default: nil
        }
    }

    /// When the head awaited or being routed began to arrive.
    private var waitingSince: Int64? {
        switch state {
        case .awaitingHead(let waiting): waiting.startedAt
        case .routing(let waiting): waiting.startedAt
        default: nil
        }
    }

    /// The minimum-rate clock of the request being received (a head's, or a body's).
    private var rateClock: ReceiveRateClock? {
        switch state {
        case .awaitingHead(let waiting): waiting.rateClock
        case .receivingBody(let exchange): exchange.rateClock
        case .startingStream(let exchange): exchange.rateClock
        case .streaming(let stream): stream.exchange.rateClock
        default: nil
        }
    }

    /// What the current case carries (`Carried`), from its payload.
    private var carried: Carried {
        switch state {
        case .awaitingHead(let waiting): waiting.carried
        case .routing(let waiting): waiting.carried
        case .receivingBody(let exchange): exchange.carried
        case .startingStream(let exchange): exchange.carried
        case .running(let exchange): exchange.carried
        case .awaitingMemory(let waiting): waiting.exchange.carried
        case .streaming(let stream): stream.exchange.carried
        case .closingAfterWrite(let closing): closing.carried
        case .lingering(let lingering): lingering.carried
        case .closed: Carried(closing: Closing())
        case .modifying: Carried(closing: Closing())
        }
    }

    /// What holds once told (the peer's close, the drain).
    private var closing: Closing { carried.closing }

    /// What the loop's one timer is armed for.
    private var timer: ArmedTimer { carried.timer }

    /// Changes what the current case carries, in its payload: an exchange's facts through
    /// the borrowed payload, the other payloads taken out and put back.
    private mutating func modifyCarried(_ change: (inout Carried) -> Void) {
        switch state {
        case .receivingBody(let exchange): return exchange.modifyCarried(change)
        case .startingStream(let exchange): return exchange.modifyCarried(change)
        case .running(let exchange): return exchange.modifyCarried(change)
        case .awaitingMemory(let waiting): return waiting.exchange.modifyCarried(change)
        case .streaming(let stream): return stream.exchange.modifyCarried(change)
        default: break
        }
        switch takeState() {
        case .awaitingHead(let waiting): put(.awaitingHead(Self.changing(waiting, change)))
        case .routing(let waiting): put(.routing(Self.changing(waiting, change)))
        case .closingAfterWrite(let closing): put(.closingAfterWrite(Self.changing(closing, change)))
        case .lingering(let lingering): put(.lingering(Self.changing(lingering, change)))
        case let other: put(other)
        }
    }

    /// `payload` with `change` made to what it carries.
    @inline(__always)
    private static func changing<Payload: CarriesOn>(_ payload: Payload, _ change: (inout Carried) -> Void) -> Payload {
        var payload = payload
        change(&payload.carried)
        return payload
    }

    /// Arms (or disarms) the loop's one timer.
    private mutating func setTimer(_ timer: ArmedTimer) {
        modifyCarried { $0.timer = timer }
    }

    /// The connection awaits a head after answering a request (its wait is the idle timeout).
    private var hasAnswered: Bool {
        switch state {
        case .awaitingHead(let waiting): waiting.hasAnswered
        default: false
        }
    }

    private var closingAfterWrite: ClosingAfterWrite? {
        switch state {
        case .closingAfterWrite(let closing): closing
        default: nil
        }
    }

    /// The last `parse` stopped because output waited (a fact of the reading cases; a
    /// starting stream's parse always stops for its handler first).
    @inline(__always)
    private var stoppedForOutput: Bool {
        switch state {
        case .awaitingHead(let waiting): waiting.stoppedForOutput
        case .receivingBody(let exchange): exchange.stoppedForOutput
        case .streaming(let stream): stream.exchange.stoppedForOutput
        default: false
        }
    }

    private mutating func markStoppedForOutput(_ stopped: Bool) {
        if phase == .awaitingHead, case .awaitingHead(var waiting) = takeState() {
            waiting.stoppedForOutput = stopped
            put(.awaitingHead(waiting))
        } else {
            modifyReadingExchange { $0.stoppedForOutput = stopped }
        }
    }

    /// Body bytes arrived since the connection last waited (`nextWait`).
    private var bodyProgress: Bool {
        switch state {
        case .receivingBody(let exchange): exchange.bodyProgress
        case .streaming(let stream): stream.exchange.bodyProgress
        default: false
        }
    }

    /// Changes the exchange of a request whose body is being read, in place.
    private mutating func modifyReadingExchange(_ change: (inout Exchange) -> Void) {
        switch takeState() {
        case .receivingBody(var exchange):
            change(&exchange)
            put(.receivingBody(exchange))
        case .streaming(var stream):
            change(&stream.exchange)
            put(.streaming(stream))
        case let other:
            put(other)
        }
    }

    /// The next effect decided and not yet performed, in order; nil once all were taken.
    mutating func nextEffect() -> Effect? {
        guard outboxIndex < outboxCount else {
            outboxIndex = 0
            outboxCount = 0
            return nil
        }
        var effect = Effect.largeWorkEnded
        swap(&effect, &outbox[outboxIndex])  // taken, not copied: the loop holds the only reference
        outboxIndex += 1
        return effect
    }

    private var hasEffects: Bool { outboxIndex < outboxCount }

    private mutating func emit(_ effect: consuming Effect) {
        if outboxCount < outbox.count {
            outbox[outboxCount] = effect
        } else {
            outbox.append(effect)
        }
        outboxCount += 1
    }

    // MARK: Inputs

    /// `count` bytes were read.
    mutating func bytesRead(_ count: Int, now: Int64) -> Arrival {
        if phase == .lingering, case .lingering(var lingering) = takeState() {
            lingering.discarded += count
            let isOver = lingering.discarded >= lingering.allowance
            put(.lingering(lingering))
            return isOver ? .close : .discarded
        }
        // The rate clock of the request being received counts them where it is: in the
        // exchange's facts, changed through the borrowed payload; a head's is in its
        // `AwaitingHead` (taken out and put back). The other cases receive no request
        // (what a pipelined one sends meanwhile is timed from its predecessor's answer).
        let startsRequest = framer.isBetweenRequests
        switch phase {
        case .awaitingHead:
            guard case .awaitingHead(var waiting) = takeState() else { break }
            if startsRequest { waiting.startedAt = now }
            waiting.rateClock.count(count, at: now, startsRequest: startsRequest)
            put(.awaitingHead(waiting))
        case .receivingBody, .startingStream, .streaming:
            switch state {
            case .receivingBody(let exchange): exchange.countRead(count, at: now, startsRequest: startsRequest)
            case .startingStream(let exchange): exchange.countRead(count, at: now, startsRequest: startsRequest)
            case .streaming(let stream): stream.exchange.countRead(count, at: now, startsRequest: startsRequest)
            default: break
            }
        case .routing, .running, .awaitingMemory, .closingAfterWrite, .lingering, .closed, .modifying:
            break
        }
        return .parse
    }

    /// Parses `input[index...]` until a handler must run or nothing more can be parsed now.
    /// `output`: the connection's output as it is now.
    mutating func parse(_ input: UnsafeRawBufferPointer, index: inout Int, now: Int64,
                                                    output: OutputState) -> ParseResult {
        if stoppedForOutput { markStoppedForOutput(false) }
        while true {
            // What the last step decided goes out first, whether or not reading goes on.
            if hasEffects { return .performEffects }
            // The case is read once a step: each read of it goes through the whole state.
            let phase = self.phase
            guard phase.isReadingRequests else { break }
            let isStream = phase == .streaming || phase == .startingStream
            if isStream, let call = takeDueStreamCall(now: now) { return call }
            if output.isBackedUp {
                markStoppedForOutput(true)
                break
            }
            if phase == .streaming, let resumed = resumeHeldInput(isDrained: output.isDrained) {
                // A paused stream goes on once its output has gone, before any later byte.
                guard resumed else { break }
                continue
            }
            guard let event = framer.next(input, index: &index) else { break }
            switch event {
            case .head(let head):
                beginRouting(now: now)
                return .route(head)
            case .body(let range):
                if let bytes = receivedBody(range, of: input, now: now) { return .reserve(bytes: bytes) }
            case .end:
                return requestComplete(input, index: &index, now: now, output: output)
            case .failure(let error, let summary):
                refuse(error, summary: summary, now: now)
            }
        }
        return .stop
    }

    /// The handler `parse` asked for with `makeStreamHandler` was made: the stream's
    /// body goes to it as it is read.
    /// Returns what `parse` decides next (`input[index...]`).
    mutating func streamHandlerMade(_ handler: any StreamedRequestHandler,
                                                                input: UnsafeRawBufferPointer, index: inout Int,
                                                                now: Int64, output: OutputState) -> ParseResult {
        if phase == .startingStream, case .startingStream(let exchange) = takeState() {
            put(.streaming(Stream(exchange: exchange, handler: handler)))
        }
        return parse(input, index: &index, now: now, output: output)
    }

    /// The stream's handler answered `call` (what `parse` asked for with
    /// `callStreamHandler`): `progress` is its answer (nil only from `cut`: it has none),
    /// `output` what it wrote, `heldBytes` what it says it holds now, and `input` the bytes
    /// last given to `parse` (`index`: how far it went). Returns what `parse` decides next.
    mutating func streamHandlerAnswered(
        _ call: StreamCall, progress: StreamedProgress?, heldBytes: Int, output written: inout [UInt8],
        input: UnsafeRawBufferPointer, index: inout Int, now: Int64, output: OutputState
    ) -> ParseResult {
        let asked = answered(call, progress: progress, heldBytes: heldBytes, output: &written, input: input, now: now)
        written.removeAll()  // what it wrote before its answer began, or in a cut unheard, goes
        if let bytes = asked { return .reserve(bytes: bytes) }
        return parse(input, index: &index, now: now, output: output)
    }

    /// Returns the bytes asked of the budget for the stream to go on, if any.
    private mutating func answered(
        _ call: StreamCall, progress: StreamedProgress?, heldBytes: Int, output: inout [UInt8],
        input: UnsafeRawBufferPointer, now: Int64
    ) -> Int? {
        guard phase == .streaming, case .streaming(let stream) = takeState() else { return nil }
        switch (call, progress) {
        case (.cut, .end(let trailers, _, let logFields)?):
            // Its status has gone: the handler ended its answer saying why (in-band), and
            // nothing more is read.
            return apply(.end(trailers: trailers, readsRest: false, logFields: logFields), to: stream,
                         output: &output, pauseFrom: .none, input: input, heldBytes: heldBytes, bodyEnded: false,
                         now: now)
        case (.cut, _):
            closeAfterWhatWasWritten(stream)
            return nil
        case (.bodyEnded, let progress?):
            return apply(progress, to: stream, output: &output, pauseFrom: .none, input: input, heldBytes: heldBytes,
                         bodyEnded: true, now: now)
        case (.receive(_, let pauseFrom), let progress?):
            return apply(progress, to: stream, output: &output, pauseFrom: pauseFrom, input: input,
                         heldBytes: heldBytes, bodyEnded: false, now: now)
        case (.bodyEnded, nil), (.receive, nil):
            put(.streaming(stream))  // only `cut` may have no answer
            return nil
        }
    }

    /// The wait for output is the server's, not the sender's: a stream's rate clock starts again.
    private mutating func restartStreamsRateClock(at now: Int64) {
        switch state {
        case .streaming(let stream): stream.exchange.restartRateClock(at: now)
        default: break
        }
    }

    /// The head `parse` found is routed, with what it was awaited with.
    @inline(__always)
    private mutating func beginRouting(now: Int64) {
        if phase == .awaitingHead, case .awaitingHead(let waiting) = takeState() {
            put(.routing(waiting))
            return
        }
        // A head behind a request that did not end as the rules say (never expected):
        // timed from now.
        let waiting = AwaitingHead(hasAnswered: true, startedAt: now, rateClock: ReceiveRateClock(startedAt: now),
                                   carried: carried)
        put(.routing(waiting))
    }

    /// After a read's bytes were parsed: past its grace period, a request that has
    /// averaged under the minimum rate is refused. Then the loop goes on (`proceed`).
    mutating func readEnded(now: Int64) -> Action {
        guard isReadingRequests, !framer.isBetweenRequests, settings.minReceiveRate > 0,
              let rateClock else { return .proceed }
        let seconds = Double(now - rateClock.startedAt) / 1e9 - settings.minReceiveRateGrace
        guard seconds > 0 && Double(rateClock.bytes) < settings.minReceiveRate * seconds else { return .proceed }
        refuse(HTTPError(status: 408, detail: "the request arrived at under \(settings.minReceiveRate) bytes/s on average after its first \(settings.minReceiveRateGrace) s"),
               summary: HeadSummary(), now: now)
        return .proceed
    }

    /// The peer closed its side (a read returned 0).
    mutating func peerClosed(hasPendingOutput: Bool) -> Action {
        switch phase {
        case .awaitingHead:
            // An incomplete request can no longer complete; answers already queued still go out.
            guard hasPendingOutput else { return .close }
            var carried = self.carried
            carried.closing.peerClosedInput = true
            put(.closingAfterWrite(ClosingAfterWrite(linger: false, lingerAllowance: 0, carried: carried)))
            return .proceed
        case .routing, .receivingBody, .streaming, .startingStream, .lingering:
            return .close
        case .running, .awaitingMemory, .closingAfterWrite, .closed, .modifying:
            modifyCarried { $0.closing.peerClosedInput = true }
            return .setInterest(hasPendingOutput ? .write : .none)
        }
    }

    /// The armed timer's deadline has passed.
    mutating func timerFired(now: Int64) -> Action {
        let timer = self.timer
        guard let kind = timer.kind, now >= timer.deadline else { return .none }
        setTimer(ArmedTimer())
        switch kind {
        case .header where framer.isInsideHead:
            refuse(HTTPError(status: 408, detail: "the request head did not arrive within \(settings.headerTimeout) s"),
                   summary: HeadSummary(), now: now)
            return .proceed
        case .body:
            refuse(HTTPError(status: 408, detail: "the request body made no progress for \(settings.bodyTimeout) s"),
                   summary: HeadSummary(), now: now)
            return .proceed
        case .memoryRetry:
            guard phase == .awaitingMemory, case .awaitingMemory(var waiting) = takeState() else {
                return .none
            }
            waiting.isLastTry = now - waiting.since >= Int64(settings.memoryWait * 1e9)
            let bytes = waiting.exchange.streams ? streamShare(waiting.exchange) : share(of: waiting.bodyBytes)
            waiting.exchange.asked = .admission(bytes: bytes)
            put(.awaitingMemory(waiting))
            return .reserve(bytes: bytes)
        case .header, .idle, .send, .linger:
            return .close
        }
    }

    /// The loop routed the head `parse` gave it (`route`): the request is answered,
    /// its body read or streamed as `choice` says. Returns what `parse` decides next
    /// (`input[index...]`).
    mutating func headRouted(_ head: consuming RequestHead, to choice: consuming Router.Choice,
                                                         input: UnsafeRawBufferPointer, index: inout Int, now: Int64,
                                                         output: OutputState) -> ParseResult {
        if phase == .routing, case .routing(let waiting) = takeState(),
           let bytes = receivedHead(head, choice: choice, after: waiting, now: now) {
            return .reserve(bytes: bytes)
        }
        return parse(input, index: &index, now: now, output: output)
    }

    /// The budget answered the reservation `parse` asked for (`reserve`): `granted` if it
    /// took the bytes. Returns what `parse` decides next (`input[index...]`).
    mutating func budgetAnswered(granted: Bool, input: UnsafeRawBufferPointer, index: inout Int, now: Int64,
                                 output: OutputState) -> ParseResult {
        reservationAnswered(granted: granted, now: now)
        return parse(input, index: &index, now: now, output: output)
    }

    /// The budget answered the reservation `timerFired` asked for (`reserve`): `granted`
    /// if it took the bytes. Then the loop goes on (`proceed`).
    mutating func budgetAnswered(granted: Bool, now: Int64) -> Action {
        reservationAnswered(granted: granted, now: now)
        return .proceed
    }

    /// The handler `parse` asked for has answered: its answer to send, as the only thing
    /// decided (`send`) or among the effects (`proceed`).
    mutating func handlerFinished(_ response: consuming HTTPResponse, now: Int64) -> Answered {
        guard phase == .running, case .running(let exchange) = takeState() else { return .none }
        let answer = answer(response, exchange: exchange, forceClose: false, now: now)
        guard !hasEffects else {
            emit(.send(answer))
            return .proceed
        }
        return .send(answer)
    }

    /// The body of an answer (`Effect.send`) has been queued to its end: at once when it
    /// went whole, or when its stream ended (or was cut by a close). What its request held
    /// (`Answer.holding`) is given back (`performEffects`).
    mutating func answerBodyQueued(_ holding: Holding) -> Action {
        // The usual request's release is one effect, its body's share: with nothing
        // decided before it, that is given back at once rather than through the outbox.
        if !hasEffects {
            var effects = 0, released: Int?
            Self.forEachRelease(of: holding, bodyShare: share(of: holding.bodyBytes),
                                offloadBodyBytes: settings.offloadBodyBytes) { effect in
                effects += 1
                if case .releaseMemory(let bytes) = effect { released = bytes }
            }
            if effects == 1, let released { return .releaseMemory(released) }
        }
        release(holding)
        return hasEffects ? .performEffects : .none
    }

    /// Output has been sent as far as the socket takes it (`hasPendingOutput`: some is left;
    /// `sentSome`: the socket took bytes since the last wait): what to wait for next.
    mutating func nextWait(hasPendingOutput: Bool, sentSome: Bool, now: Int64) -> Wait {
        if !hasPendingOutput, let ending = closingAfterWrite {
            guard ending.linger, !ending.carried.closing.peerClosedInput else { return .close }
            let deadline = now + settings.timerNanoseconds[TimerKind.linger.rawValue]
            put(.lingering(Lingering(allowance: ending.lingerAllowance,
                                     carried: Carried(closing: ending.carried.closing,
                                                      timer: ArmedTimer(kind: .linger, deadline: deadline)))))
            return .shutdownWriteAndLinger(deadline: deadline)
        }
        // Draining: an answer that was still going out when the drain began has now
        // gone; the connection is idle and closes like the idle ones did then.
        if !hasRequestInFlight(hasPendingOutput: hasPendingOutput), closing.draining { return .close }
        switch phase {
        case .awaitingHead:
            if hasPendingOutput { return .poll(.write, armSend(sentSome: sentSome, now: now)) }
            if framer.isBetweenRequests { return .poll(.read, rearm(hasAnswered ? .idle : .header, now: now)) }
            return .poll(.read, rearm(.header, now: now))
        case .receivingBody, .streaming, .startingStream:
            // A stream's output waiting for the peer stops reading (backpressure): the
            // send timeout runs, and the body timeout starts again once it has gone.
            // The wait is not the sender's, so the rate clock starts again too.
            if hasPendingOutput {
                if phase == .streaming { restartStreamsRateClock(at: now) }
                return .poll(.write, armSend(sentSome: sentSome, now: now))
            }
            if framer.isInsideHead { return .poll(.read, rearm(.header, now: now)) }
            guard timer.kind != .body || bodyProgress else { return .poll(.read, .keep) }
            if bodyProgress { modifyReadingExchange { $0.bodyProgress = false } }
            return .poll(.read, .arm(.body, deadline: arm(.body, now: now)))
        case .routing, .running, .closingAfterWrite:
            if hasPendingOutput { return .poll(.write, armSend(sentSome: sentSome, now: now)) }
            setTimer(ArmedTimer())
            return .poll(.none, .disarm)
        case .awaitingMemory:
            // Only a 100 Continue can be waiting here; the retry timer runs either way.
            return .poll(hasPendingOutput ? .write : .none, rearm(.memoryRetry, now: now))
        case .lingering, .closed, .modifying:
            return .unchanged
        }
    }

    /// The server began to drain: an idle connection closes now (`close`); one with a
    /// request in flight answers it with `Connection: close`, then closes.
    mutating func drainBegan(hasPendingOutput: Bool) -> Action {
        modifyCarried { $0.closing.draining = true }
        return hasRequestInFlight(hasPendingOutput: hasPendingOutput) ? .none : .close
    }

    /// The connection is closed (by the loop, for any reason): `performEffects` gives back
    /// what it held and logs a stream it cut.
    mutating func closed() -> Action {
        // A stream cut by the peer is still one answer in the access log.
        if phase == .streaming, case .streaming(let stream) = takeState() {
            logCutStream(stream)
            put(.streaming(stream))
        }
        // An offloaded handler still holds its request: its completion gives the share back.
        if phase != .running { release(currentHolding) }
        put(.closed)
        return outboxIndex < outboxCount ? .performEffects : .none
    }

    // MARK: Requests

    /// Moves the state out, leaving `.modifying`, so a case's payload is taken out of it
    /// by matching (`if phase == .x, case .x(var payload) = takeState()`), changed in
    /// place and put back. The state, an exchange and a stream are not copyable, so this
    /// is a move: no payload is copied and destroyed on the way, and a body appended to
    /// is the only reference to its storage.
    private mutating func takeState() -> State {
        exchange(&state, with: .modifying)
    }

    /// Every path sets the state (`.routing` until then). Returns the bytes asked of the
    /// budget before the body is read, if any.
    private mutating func receivedHead(_ head: consuming RequestHead, choice: Router.Choice,
                                                                   after waiting: AwaitingHead, now: Int64) -> Int? {
        // What is decided here, read before the head moves into the exchange (not copied).
        let framing = head.framing, expectsContinue = head.expectsContinue
        let hasUnsupportedExpectation = head.hasUnsupportedExpectation
        var exchange = Exchange(head: head, after: waiting)
        switch choice {
        case .respond(let decided):
            exchange.decided = decided
        case .handle(let index, let keeps):
            if hasUnsupportedExpectation {
                exchange.decided = ProblemDetails(status: 417, detail: "only the expectation 100-continue is supported").response
            } else {
                exchange.routeIndex = index
                exchange.keepsBody = keeps
            }
        case .stream(let index):
            if hasUnsupportedExpectation {
                exchange.decided = ProblemDetails(status: 417, detail: "only the expectation 100-continue is supported").response
            } else {
                exchange.routeIndex = index
                exchange.streams = true
            }
        }
        // The framer leaves the Content-Length to this check, since which limit applies
        // depends on the route; it is still a framing error, before 404/405/415.
        let bodyLimit = exchange.streams ? settings.maxStreamBytes : settings.maxBodyBytes
        if case .length(let length) = framing, length > bodyLimit {
            refuse(HTTPError(status: 413, detail: "the body of \(length) bytes is over the limit of \(bodyLimit) bytes"),
                   summary: exchange.summary,
                   now: now)
            return nil
        }
        if let response = exchange.decided, response.status >= 400, framing != .none,
           expectsContinue || hasUnsupportedExpectation {
            // Refused early: the client holds its body back, so answer now and close
            // rather than read a body nobody wants (http.md "Protocol edge cases").
            finish(response, exchange: exchange, forceClose: true, now: now)
            return nil
        }
        if exchange.streams {
            if framing == .chunked { framer.limitBody(to: settings.maxStreamBytes) }
            let bytes = streamShare(exchange)
            exchange.asked = .admission(bytes: bytes)
            put(.awaitingMemory(AwaitingMemory(exchange: exchange, since: now, bodyBytes: 0)))
            return bytes
        }
        switch framing {
        case .length(let length) where exchange.keepsBody:
            return reserve(bodyBytes: length, exchange: exchange)
        case .chunked where exchange.keepsBody:
            return reserve(bodyBytes: min(Self.chunkedReservationBytes, settings.maxBodyBytes), exchange: exchange)
        case .length, .chunked:
            // Read and discarded, so it takes nothing of the budget.
            if expectsContinue { emit(.sendContinue) }
            put(.receivingBody(exchange))
        case .none:
            put(.receivingBody(exchange))
        }
        return nil
    }

    /// Returns the bytes asked of the budget before more is read, if any.
    private mutating func receivedBody(_ range: Range<Int>, of input: UnsafeRawBufferPointer,
                                                                   now: Int64) -> Int? {
        if phase == .receivingBody, case .receivingBody(var exchange) = takeState() {
            exchange.bodyProgress = true
            guard exchange.keepsBody else {
                put(.receivingBody(exchange))  // a body read and discarded
                return nil
            }
            exchange.body.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[range]))
            if exchange.body.count > exchange.holding.bodyBytes {
                // A chunked body outgrew its share: take the next step of it.
                let more = max(Self.chunkedReservationBytes, exchange.body.count - exchange.holding.bodyBytes)
                return reserve(bodyBytes: more, exchange: exchange)
            }
            put(.receivingBody(exchange))
            return nil
        }
        guard phase == .streaming, case .streaming(var stream) = takeState() else { return nil }
        stream.exchange.bodyProgress = true
        if case .ended = stream.answer {} else {
            stream.receivedBytes += range.count
            stream.due = .receive(.read(range), pauseFrom: .read(range))
        }
        put(.streaming(stream))  // once the answer has ended, the rest is thrown away
        return nil
    }

    /// The request's body has ended: its handler is asked for, or (an answer decided
    /// from its head, a stream) parsing goes on. Returned, not wrapped in an Optional: a
    /// request's handler is asked for without one more copy of the request.
    private mutating func requestComplete(_ input: UnsafeRawBufferPointer, index: inout Int,
                                                                      now: Int64, output: OutputState) -> ParseResult {
        var exchange: Exchange
        switch takeState() {
        case .receivingBody(let received):
            exchange = received
        case .streaming(var stream):
            if case .ended(let keepAlive) = stream.answer {
                endStream(stream, keepAlive: keepAlive, now: now)
            } else {
                stream.due = .bodyEnded
                put(.streaming(stream))
            }
            return parse(input, index: &index, now: now, output: output)
        case let other:
            // The framer ended a request no body was read for: the server's fault, not the client's.
            put(other)
            failed("a request ended outside its body", now: now)
            return .performEffects
        }
        if let response = exchange.decided.take() {
            finish(response, exchange: exchange, forceClose: false, now: now)
            return parse(input, index: &index, now: now, output: output)  // the answer goes out first
        }
        guard let routeIndex = exchange.routeIndex else {
            put(.receivingBody(exchange))
            return parse(input, index: &index, now: now, output: output)
        }
        var received: [UInt8] = []
        swap(&received, &exchange.body)
        let request = exchange.head.request(body: received)
        put(.running(exchange))
        return request.body.count > settings.offloadBodyBytes
            ? .offload(routeIndex: routeIndex, request: request) : .runHandler(routeIndex: routeIndex, request: request)
    }

    /// Queues the answer to the current request and decides what the connection does next.
    private mutating func finish(_ response: consuming HTTPResponse, exchange: borrowing Exchange, forceClose: Bool, now: Int64,
                                 lingerAllowance: Int = maxLingerBytes, overload: ServerMetrics.OverloadCause? = nil) {
        emit(.send(answer(response, exchange: exchange, forceClose: forceClose, now: now,
                          lingerAllowance: lingerAllowance, overload: overload)))
    }

    /// The answer to the current request (what its body holds beyond its share is held
    /// first), and what the connection does next.
    private mutating func answer(_ response: consuming HTTPResponse, exchange: borrowing Exchange, forceClose: Bool, now: Int64,
                                 lingerAllowance: Int = maxLingerBytes,
                                 overload: ServerMetrics.OverloadCause? = nil) -> Answer {
        let closing = exchange.carried.closing
        let keepAlive = exchange.head.keepAlive && !forceClose && !closing.draining && !closing.peerClosedInput
        let field: ResponseSerializer.ConnectionField =
            !keepAlive ? .close : exchange.head.version == .http1_0 ? .keepAlive : .none
        // The log fields move to the access line, their only reader: copied, they were
        // retained here and released with the answer.
        var fields: [LogField] = []
        swap(&fields, &response.logFields)
        let accessLine = AccessLineFields(settings.answerRecording, head: exchange.head, status: response.status,
                                          startedAt: exchange.startedAt, fields: consume fields,
                                          routeIndex: exchange.routeIndex, overload: overload)
        // The answer's work is held already: counted, never refused, until it has gone.
        var holding = exchange.holding
        let held = response.heldBytes - share(of: holding.bodyBytes)
        if held > 0 {
            emit(.holdMemory(held))
            holding.answerBytes = held
        }
        let framing = Self.framing(of: response, method: exchange.head.method, version: exchange.head.version)
        putCaseAfterAnswer(keepAlive: keepAlive, startedAt: exchange.startedAt, closing: closing,
                           lingerAllowance: lingerAllowance, now: now)
        return Answer(response: response, omitsBody: exchange.head.method == .HEAD, framing: framing, connection: field,
                      accessLine: accessLine, holding: holding)
    }

    /// A framing error or timeout: answer, then close with a lingering close.
    private mutating func refuse(_ error: HTTPError, summary: HeadSummary, now: Int64) {
        let carried = self.carried
        if phase == .streaming, case .streaming(var stream) = takeState() {
            let undecided = stream.isUndecided
            switch stream.answer {
            case .begun:
                // Its status has gone: the handler is asked to end its answer saying why
                // (`streamHandlerAnswered`).
                stream.heldInput = []
                stream.due = .cut(error)
                put(.streaming(stream))
            case .ended:
                closeAfterWhatWasWritten(stream)
            case .undecided:
                put(.streaming(stream))
            }
            guard undecided else { return }
        }
        var summary = summary
        var startedAt = waitingSince ?? now
        if let request = withCurrentExchange({ (summary: $0.summary, startedAt: $0.startedAt) }) {
            (summary, startedAt) = request
        }
        release(currentHolding)
        let response = error.response
        let bytes = response.body.count
        emit(.sendRefusal(response))
        if settings.answerRecording != .nothing {
            emit(.record(AccessLineFields(method: summary.method, path: summary.path, status: error.status,
                                          startedAt: startedAt, userAgent: summary.userAgent), bytes: bytes))
        }
        put(.closingAfterWrite(ClosingAfterWrite(linger: true, lingerAllowance: Self.maxLingerBytes, carried: carried)))
    }

    // MARK: Streamed requests

    /// What a streamed request holds of the budget: its route's constant share.
    private func streamShare(_ exchange: borrowing Exchange) -> Int {
        exchange.routeIndex.flatMap { settings.streamedBodies[$0]?.memoryShare } ?? StreamedBody.defaultMemoryShare
    }

    /// The budget took the stream's share: its handler is made (`makeStreamHandler`),
    /// then its body read.
    private mutating func startStream(_ exchange: consuming Exchange, now: Int64) {
        var exchange = exchange
        exchange.holding.streamShare = streamShare(exchange)
        if exchange.head.expectsContinue { emit(.sendContinue) }
        exchange.rateClock.restart(at: now)  // a wait for the budget was the server's, not the client's
        emit(.streamStarted)
        put(.startingStream(exchange))
    }

    /// What `parse` asks for first, if it is due: the stream's handler is made or
    /// called, and nothing else is parsed, until it has answered.
    private mutating func takeDueStreamCall(now: Int64) -> ParseResult? {
        switch phase {
        case .streaming:
            guard case .streaming(var stream) = takeState() else { return nil }
            let due = stream.due.take()
            let handler = stream.handler
            put(.streaming(stream))
            guard let due else { return nil }
            return .callStreamHandler(handler, due)
        case .startingStream:
            let call: (StreamedBody, HTTPRequest)? = withCurrentExchange { exchange in
                guard let routeIndex = exchange.routeIndex, let streamed = settings.streamedBodies[routeIndex] else {
                    return nil
                }
                return (streamed, exchange.head.request(body: []))
            } ?? nil
            guard let (streamed, request) = call else {
                failed("a stream started for a route without a streamed body", now: now)
                return .performEffects
            }
            return .makeStreamHandler(streamed, request)
        default:
            return nil
        }
    }

    /// Its status has gone: the handler hears nothing more, and the connection closes
    /// after what was written (a chunked answer then lacks its last chunk).
    private mutating func closeAfterWhatWasWritten(_ stream: borrowing Stream) {
        logCutStream(stream)
        release(stream.exchange.holding)
        put(.closingAfterWrite(ClosingAfterWrite(linger: false, lingerAllowance: 0, carried: stream.exchange.carried)))
    }

    /// Performs what the handler decided after a call (`bodyEnded`: the call was `bodyEnded`).
    /// `pauseFrom`: the bytes whose rest a `pause` keeps (`input`: the bytes last given to `parse`).
    /// `heldBytes`: what the handler says it holds now.
    /// Returns the bytes asked of the budget for the stream to go on, if any.
    private mutating func apply(_ progress: StreamedProgress, to stream: consuming Stream,
                                                            output: inout [UInt8], pauseFrom: StreamInput,
                                                            input: UnsafeRawBufferPointer, heldBytes: Int, bodyEnded: Bool,
                                                            now: Int64) -> Int? {
        var stream = stream
        switch progress {
        case .more, .completedUnit:
            if bodyEnded { return brokeContract(stream, "it asked for more body after the body had ended", now: now) }
            if stream.isUndecided && !output.isEmpty {
                return brokeContract(stream, "it wrote before its answer began", now: now)
            }
            queueOutput(&output, of: &stream)
            if case .completedUnit = progress { stream.exchange.rateClock.restart(at: now) }
            let asked = followHeldBytes(of: &stream, heldBytes: heldBytes)
            put(.streaming(stream))
            return asked
        case .pause(let unread):
            if bodyEnded { return brokeContract(stream, "it paused after the body had ended", now: now) }
            if stream.isUndecided { return brokeContract(stream, "it paused before its answer began", now: now) }
            queueOutput(&output, of: &stream)
            pauseFrom.withBytes(in: input) { input in
                let kept = min(max(unread, 0), input.count)
                if kept > 0 { stream.heldInput = Array(input[(input.count - kept)...]) }
            }
            stream.exchange.rateClock.restart(at: now)  // a unit was completed
            let asked = followHeldBytes(of: &stream, heldBytes: heldBytes)
            put(.streaming(stream))
            return asked
        case .respond(let response):
            guard stream.isUndecided else { return brokeContract(stream, "it responded after its answer began", now: now) }
            finish(response, exchange: stream.exchange, forceClose: true, now: now)
        case .begin(var response, let trailers):
            guard stream.isUndecided else { return brokeContract(stream, "it began its answer twice", now: now) }
            let head = stream.exchange.head
            let chunked = head.version == .http1_1
            let closing = stream.exchange.carried.closing
            let keepAlive = chunked && head.keepAlive && !closing.draining && !closing.peerClosedInput
            if chunked && !trailers.isEmpty { response.headers.append(("Trailer", trailers.joined(separator: ", "))) }
            emit(.sendStreamedHead(response, framing: chunked ? .chunked : .closeDelimited,
                                   connection: keepAlive ? .none : .close))
            stream.answer = .begun(status: response.status, chunked: chunked, keepAlive: keepAlive)
            queueOutput(&output, of: &stream)
            // Called once more at once, with no bytes: what the same call decided after
            // the answer began (more lines, or its end) comes out without waiting for bytes.
            stream.due = bodyEnded ? .bodyEnded : .receive(.none, pauseFrom: pauseFrom)
            put(.streaming(stream))
        case .end(let trailers, let readsRest, let logFields):
            guard case .begun(let status, let chunked, let keepAlive) = stream.answer else {
                return brokeContract(stream, "it ended an answer it had not begun", now: now)
            }
            queueOutput(&output, of: &stream)
            if chunked { emit(.sendStreamedEnd(trailers: trailers)) }
            let head = stream.exchange.head
            emit(.streamedAnswerEnded(accessLine: AccessLineFields(
                settings.answerRecording, head: head, status: status, startedAt: stream.exchange.startedAt,
                fields: logFields, routeIndex: stream.exchange.routeIndex), bytes: stream.sentBytes))
            stream.answer = .ended(keepAlive: keepAlive)
            if bodyEnded {
                endStream(stream, keepAlive: keepAlive, now: now)
            } else if readsRest {
                put(.streaming(stream))
            } else {
                endStream(stream, keepAlive: false, now: now)
            }
        }
        return nil
    }

    /// Queues what the handler wrote in its last call, once the answer has begun.
    private mutating func queueOutput(_ output: inout [UInt8], of stream: inout Stream) {
        guard !output.isEmpty, case .begun(_, let chunked, _) = stream.answer else { return }
        var piece: [UInt8] = []
        swap(&piece, &output)  // a large piece is sent from its own array
        stream.sentBytes += piece.count
        emit(.sendStreamedBytes(piece, chunked: chunked))
    }

    /// Hands a paused stream the rest of the read it did not take (the next call) once
    /// its output has gone (`isDrained`). True when it did, false when the rest waits,
    /// nil when nothing is held.
    private mutating func resumeHeldInput(isDrained: Bool) -> Bool? {
        guard phase == .streaming, case .streaming(var stream) = takeState() else { return nil }
        let resumed: Bool? = stream.heldInput.isEmpty ? nil : isDrained
        if resumed == true {
            var held: [UInt8] = []
            swap(&held, &stream.heldInput)
            stream.due = .receive(.held(held), pauseFrom: .held(held))
        }
        put(.streaming(stream))
        return resumed
    }

    /// A stream's handler answered what its contract rules out: logged (what, never the
    /// request's data); a `500` when nothing of its answer was sent, else a close after
    /// what was written. The server goes on.
    private mutating func brokeContract(_ stream: consuming Stream, _ what: String, now: Int64) -> Int? {
        emit(.logError("a streamed request's handler broke its contract: \(what)"))
        if stream.isUndecided {
            finish(Self.failure, exchange: stream.exchange, forceClose: true, now: now)
        } else {
            closeAfterWhatWasWritten(stream)
        }
        return nil
    }

    /// The machine found itself where its own rules never lead: logged, and the request
    /// gets `500` and a lingering close.
    private mutating func failed(_ what: String, now: Int64) {
        emit(.logError("the connection failed: \(what)"))
        refuse(HTTPError(status: 500, detail: Self.failureDetail), summary: HeadSummary(), now: now)
    }

    static let failureDetail = "the server failed to answer this request"
    static var failure: HTTPResponse { ProblemDetails(status: 500, detail: failureDetail).response }

    static var noBytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: nil, count: 0) }

    /// A stream's share of the budget is taken in steps of this size as what it holds grows.
    static let streamShareStep = 64 * 1024

    /// A stream's share of the budget follows what it holds after each call: the
    /// route's base share, what its handler holds (`heldBytes`) and a paused read's rest
    /// (its output waiting for the peer is counted by the connection as it waits). When
    /// the budget cannot take more, the stream ends: `503`, in-band once its answer began.
    /// Returns the bytes asked of the budget for the stream to grow, if any.
    private mutating func followHeldBytes(of stream: inout Stream, heldBytes: Int) -> Int? {
        let held = streamShare(stream.exchange) + max(0, heldBytes) + stream.heldInput.count
        let step = Self.streamShareStep
        let wanted = (held + step - 1) / step * step
        let reserved = stream.exchange.holding.streamShare
        if wanted < reserved {
            emit(.releaseMemory(reserved - wanted))
            stream.exchange.holding.streamShare = wanted
        } else if wanted > reserved {
            stream.exchange.asked = .streamGrowth(wanted: wanted)
            return wanted - reserved
        }
        return nil
    }

    /// The stream's answer has been queued whole and its body read (or left unread):
    /// the next request, or a lingering close.
    private mutating func endStream(_ stream: borrowing Stream, keepAlive: Bool, now: Int64) {
        release(stream.exchange.holding)
        putCaseAfterAnswer(keepAlive: keepAlive, startedAt: stream.exchange.startedAt,
                           closing: stream.exchange.carried.closing, lingerAllowance: Self.maxStreamLingerBytes, now: now)
    }

    /// The case after an answer: the next request's head, timed from `startedAt` (a
    /// request pipelined behind the answer was read while it ran) with a fresh rate
    /// clock, or a lingering close of at most `lingerAllowance` bytes. Either way the
    /// closing facts carry on and the timer is unarmed: the idle clock starts again.
    private mutating func putCaseAfterAnswer(keepAlive: Bool, startedAt: Int64, closing: Closing, lingerAllowance: Int,
                                             now: Int64) {
        if keepAlive {
            put(.awaitingHead(AwaitingHead(hasAnswered: true, startedAt: startedAt,
                                           rateClock: ReceiveRateClock(startedAt: now),
                                           carried: Carried(closing: closing))))
        } else {
            put(.closingAfterWrite(ClosingAfterWrite(linger: true, lingerAllowance: lingerAllowance,
                                                     carried: Carried(closing: closing))))
        }
    }

    /// A stream whose answer had begun is cut (a timeout, a framing error, the stream
    /// limit, the peer): its access line says what was sent.
    private mutating func logCutStream(_ stream: borrowing Stream) {
        guard case .begun(let status, _, _) = stream.answer else { return }
        let head = stream.exchange.head
        emit(.streamedAnswerEnded(accessLine: AccessLineFields(
            settings.answerRecording, head: head, status: status, startedAt: stream.exchange.startedAt,
            routeIndex: stream.exchange.routeIndex), bytes: stream.sentBytes))
    }

    // MARK: Memory budget

    /// What `bodyBytes` of a body are counted at in the memory budget.
    private func share(of bodyBytes: Int) -> Int {
        bodyBytes * settings.memoryPerBodyByte
    }

    /// Asks the budget for `bodyBytes` more of the current body (`reserve`); reading
    /// waits for its answer, and until it takes them (`timerFired` with `.memoryRetry`).
    /// Returns the bytes asked.
    private mutating func reserve(bodyBytes: Int, exchange: consuming Exchange) -> Int {
        var exchange = exchange
        exchange.asked = .body(bodyBytes: bodyBytes)
        put(.receivingBody(exchange))
        return share(of: bodyBytes)
    }

    /// The budget's answer to what was asked (`reserve`): a request waiting for memory
    /// goes on, waits for the retry timer, or gets `503` after its last try; a stream
    /// that cannot hold more ends with `503`.
    private mutating func reservationAnswered(granted: Bool, now: Int64) {
        switch takeState() {
        case .awaitingMemory(var waiting):
            guard case .admission = waiting.exchange.asked else {
                put(.awaitingMemory(waiting))
                return
            }
            waiting.exchange.asked = .none
            if granted && waiting.exchange.streams {
                startStream(waiting.exchange, now: now)
            } else if granted {
                var exchange = waiting.exchange
                admitted(bodyBytes: waiting.bodyBytes, of: &exchange, now: now)
                put(.receivingBody(exchange))
            } else if waiting.isLastTry {
                refuseOverBudget(waiting.exchange, now: now)
            } else {
                put(.awaitingMemory(waiting))
            }
        case .receivingBody(var exchange):
            guard case .body(let bodyBytes) = exchange.asked else {
                put(.receivingBody(exchange))
                return
            }
            exchange.asked = .none
            if granted {
                admitted(bodyBytes: bodyBytes, of: &exchange, now: now)
                put(.receivingBody(exchange))
            } else {
                put(.awaitingMemory(AwaitingMemory(exchange: exchange, since: now, bodyBytes: bodyBytes)))
            }
        case .streaming(var stream):
            guard case .streamGrowth(let wanted) = stream.exchange.asked else {
                put(.streaming(stream))
                return
            }
            stream.exchange.asked = .none
            let more = wanted - stream.exchange.holding.streamShare
            if granted { stream.exchange.holding.streamShare = wanted }
            put(.streaming(stream))
            if !granted {
                refuse(HTTPError(status: 503, detail: "the server's memory budget of \(settings.memoryLimit) bytes for requests in flight cannot hold this stream's next \(more) bytes; retry later"),
                       summary: HeadSummary(), now: now)
            }
        case let other:
            put(other)
        }
    }

    /// The budget took its share of `bodyBytes` more of `exchange`'s body: (go on) reading it.
    private mutating func admitted(bodyBytes: Int, of exchange: inout Exchange, now: Int64) {
        exchange.holding.bodyBytes += bodyBytes
        if exchange.body.isEmpty {
            if case .length(let length) = exchange.head.framing {
                if exchange.body.capacity < length, framer.recycled.body.capacity >= length {
                    framer.recycled.moveBody(into: &exchange.body)
                } else {
                    exchange.body.reserveCapacity(length)
                }
            }
            if exchange.head.expectsContinue { emit(.sendContinue) }
        }
        exchange.rateClock.restart(at: now)  // the wait was the server's, not the client's
    }

    /// Gives back what a request held of the budget.
    private mutating func release(_ holding: Holding) {
        Self.forEachRelease(of: holding, bodyShare: share(of: holding.bodyBytes),
                            offloadBodyBytes: settings.offloadBodyBytes) { emit($0) }
    }

    /// Calls `effect` with each effect that gives `holding` back (`bodyShare`: its body's
    /// share), in order: the one rule of `release` and of `answerBodyQueued`'s shortcut.
    /// Static, so `effect` may change the machine.
    @inline(__always)
    private static func forEachRelease(of holding: Holding, bodyShare: Int, offloadBodyBytes: Int,
                                       _ effect: (Effect) -> Void) {
        if holding.streamShare > 0 {
            effect(.releaseMemory(holding.streamShare))
            // However it ended (its end, a cut, a peer that never read and left), a
            // stream's lines, state and output were freed: the heap is trimmed once quiet.
            effect(.largeWorkEnded)
        }
        if holding.answerBytes > 0 {
            effect(.releaseMemory(holding.answerBytes))
            effect(.largeWorkEnded)
        }
        guard holding.bodyBytes > 0 else { return }
        effect(.releaseMemory(bodyShare))
        if holding.bodyBytes >= offloadBodyBytes { effect(.largeWorkEnded) }
    }

    /// What the current request holds of the budget (none between requests).
    private var currentHolding: Holding { withCurrentExchange { $0.holding } ?? Holding() }

    /// The body did not fit within `memoryWait`: `503` at once, before reading it; then a
    /// lingering close that takes in the rest of a body the client sends anyway.
    private mutating func refuseOverBudget(_ exchange: borrowing Exchange, now: Int64) {
        var response = ProblemDetails(status: 503, detail: "the server's memory budget of \(settings.memoryLimit) bytes for requests in flight is in use; retry later").response
        response.headers.append(("Retry-After", "1"))
        var allowance = Self.maxLingerBytes
        if !exchange.head.expectsContinue, case .length(let length) = exchange.head.framing {
            allowance += max(0, length - exchange.body.count)
        }
        finish(response, exchange: exchange, forceClose: true, now: now, lingerAllowance: allowance,
               overload: .memory)
    }

    // MARK: Timers

    /// Arms `kind` from `now` in the current case's payload. Returns its deadline.
    private mutating func arm(_ kind: TimerKind, now: Int64) -> Int64 {
        let deadline = now + settings.timerNanoseconds[kind.rawValue]
        setTimer(ArmedTimer(kind: kind, deadline: deadline))
        return deadline
    }

    /// Arms `kind` unless it is already armed (its deadline stands).
    private mutating func rearm(_ kind: TimerKind, now: Int64) -> TimerChange {
        guard timer.kind != kind else { return .keep }
        return .arm(kind, deadline: arm(kind, now: now))
    }

    /// The send timeout counts from the last time the socket took bytes.
    private mutating func armSend(sentSome: Bool, now: Int64) -> TimerChange {
        guard timer.kind != .send || sentSome else { return .keep }
        return .arm(.send, deadline: arm(.send, now: now))
    }
}

/// What holds the server's router in place (the loop's `ServerContext`): the connection
/// routes a head through it (`choose(for:)`).
protocol RouterHolder: AnyObject {
    var router: Router { get }
}

extension ServerContext: RouterHolder {}

extension RouterHolder {
    /// What the connection does with `head` (`ConnectionStateMachine.ParseResult.route`).
    /// Always inlined: out of line, the path's comparison was called out of line. Reached
    /// through the holder, its closures capture one reference: capturing the router
    /// itself copied its five arrays (retained, then released) for every request.
    @inline(__always)
    func choose(for head: RequestHead) -> Router.Choice {
        let method = head.method
        return head.withPathAndContentType { path, contentType, query in
            // Most requests have no query: nothing is made or asked of it.
            router.choose(method: method, path: path, contentType: contentType, hasQuery: !query.isEmpty) {
                String(decoding: query, as: UTF8.self)
            }
        }
    }
}
