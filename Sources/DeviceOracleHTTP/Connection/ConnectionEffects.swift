/// What a `ConnectionStateMachine` writes its decisions into: the connection's output
/// (answers are bytes in a queue; sending them is the event loop's job) and the
/// server's shared accounts. The machine decides what goes here and when; an
/// implementation only carries it out, and a test one records it.
protocol ConnectionEffects: AnyObject {
    /// Parsing stops while this much output waits or a streamed body is still going out.
    var isOutputBackedUp: Bool { get }
    /// Every answer byte queued so far has gone to the socket: a paused stream may go on.
    var isOutputDrained: Bool { get }
    /// The server is shutting down: answers close their connection.
    var isDraining: Bool { get }
    /// Access records (the access log's lines, `/metrics`' counts) are built only as far
    /// as someone reads them.
    var answerRecording: AnswerRecording { get }

    /// `100 Continue`, for a body that may now be sent.
    func queueContinue()
    /// Queues `response` to the request `head`, framed as the machine decided, with
    /// `connection` as its Connection field. True when its body goes on streaming after
    /// the queued part (`accessLine` is then written when the stream ends, and the
    /// machine hears of that in `streamEnded`).
    func queueAnswer(_ response: consuming HTTPResponse, to head: RequestHead, framing: ConnectionStateMachine.AnswerFraming,
                     connection: ResponseSerializer.ConnectionField, accessLine: AccessLineFields?) -> Bool
    /// Queues an answer after which the connection closes (`Connection: close`).
    func queueRefusal(_ response: HTTPResponse)
    func logAccess(_ line: AccessLineFields, bytes: Int)

    /// A streamed request's handler was made: the request is in flight until
    /// `streamedAnswerEnded` (or the connection closes).
    func streamStarted()
    /// A streamed answer's head (no body): chunked, or close-delimited to HTTP/1.0.
    func queueStreamedHead(_ response: HTTPResponse, framing: ResponseSerializer.BodyFraming,
                           connection: ResponseSerializer.ConnectionField)
    /// What a streamed request's handler wrote: a chunk, or the bytes as they are.
    func queueStreamedBytes(_ bytes: [UInt8], chunked: Bool)
    /// The last chunk of a chunked streamed answer, with its trailer fields.
    func queueStreamedEnd(trailers: [(String, String)])
    /// A streamed answer has ended, or was cut after it began: its access record
    /// (`bytes` of body sent), and the request is no longer in flight.
    func streamedAnswerEnded(accessLine: AccessLineFields?, bytes: Int)

    /// Takes `bytes` of the memory budget if they fit.
    func reserveMemory(_ bytes: Int) -> Bool
    func releaseMemory(_ bytes: Int)
    /// Counts `bytes` the process holds already (an answer's work): never refused.
    func holdMemory(_ bytes: Int)
    /// Megabytes were freed: the heap may be trimmed once things are quiet.
    func largeWorkEnded()
}
