import Synchronization

/// A value made once, on its first use, whichever thread asks first. A model's graphs
/// are explored only when a plan, diagram, coverage or repro route needs them: made
/// with every endpoint, the four models' exploration was ~10 M instructions on every
/// start of the command line.
final class MadeOnFirstUse<Value: Sendable>: Sendable {
    private let make: @Sendable () -> Value
    private let made = Mutex<Value?>(nil)

    init(_ make: @escaping @Sendable () -> Value) {
        self.make = make
    }

    /// Made under the lock: a second caller waits for the first one's value rather
    /// than exploring again.
    var value: Value {
        made.withLock { made in
            if let value = made { return value }
            let value = make()
            made = value
            return value
        }
    }
}
