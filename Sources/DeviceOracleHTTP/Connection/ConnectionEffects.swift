/// What a `ConnectionStateMachine` consults while it decides: a reservation of the
/// server's memory budget, whose answer it needs at once. Everything it decides to do
/// comes back as values (`ConnectionStateMachine.Effect`, memory given back or held
/// included, and each input's result), and the output's state is an argument of `parse`;
/// an implementation only answers, and a test one is a budget.
protocol ConnectionEffects: AnyObject {
    /// Takes `bytes` of the memory budget if they fit.
    func reserveMemory(_ bytes: Int) -> Bool
}
