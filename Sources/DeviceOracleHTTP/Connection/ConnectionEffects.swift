/// What a `ConnectionStateMachine` consults while it decides: the connection's output
/// (parsing stops while it is backed up) and a reservation of the server's memory
/// budget, whose answer it needs at once. Everything
/// it decides to do comes back as values (`ConnectionStateMachine.Effect`, memory given
/// back or held included, and each input's result); an implementation only answers, and
/// a test one is a budget and two flags.
protocol ConnectionEffects: AnyObject {
    /// Parsing stops while this much output waits or a streamed body is still going out.
    var isOutputBackedUp: Bool { get }
    /// Every answer byte queued so far has gone to the socket: a paused stream may go on.
    var isOutputDrained: Bool { get }

    /// Takes `bytes` of the memory budget if they fit.
    func reserveMemory(_ bytes: Int) -> Bool
}
