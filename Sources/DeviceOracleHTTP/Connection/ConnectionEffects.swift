/// What a `ConnectionStateMachine` writes its decisions into: the connection's output
/// (answers are bytes in a queue; sending them is the event loop's job) and the
/// server's shared accounts. The machine decides what goes here and when; an
/// implementation only carries it out, and a test one records it.
protocol ConnectionEffects: AnyObject {
    /// Parsing stops while this much output waits or a streamed body is still going out.
    var isOutputBackedUp: Bool { get }
    /// The server is shutting down: answers close their connection.
    var isDraining: Bool { get }
    /// Access records (the access log's lines, `/metrics`' counts) are built only when
    /// someone reads them.
    var recordsAnswers: Bool { get }

    /// `100 Continue`, for a body that may now be sent.
    func queueContinue()
    /// Queues `response` to the request `head`, with `connection` as its Connection field.
    /// True when its body goes on streaming after the queued part (`accessLine` is then
    /// written when the stream ends, and the machine hears of that in `streamEnded`).
    func queueAnswer(_ response: consuming HTTPResponse, to head: RequestHead,
                     connection: ResponseSerializer.ConnectionField, accessLine: AccessLineFields?) -> Bool
    /// Queues an answer after which the connection closes (`Connection: close`).
    func queueRefusal(_ response: HTTPResponse)
    func logAccess(_ line: AccessLineFields, bytes: Int)

    /// Takes `bytes` of the memory budget if they fit.
    func reserveMemory(_ bytes: Int) -> Bool
    func releaseMemory(_ bytes: Int)
    /// Megabytes were freed: the heap may be trimmed once things are quiet.
    func largeWorkEnded()
}
