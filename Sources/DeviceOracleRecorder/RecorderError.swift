/// Why a recorder did not write a message. Nothing was written when one is thrown.
public enum RecorderError: Error, Equatable, Sendable {
    /// The message would be `bytes` bytes of UTF-8, over `limit` (1,024): the unified
    /// log would cut it, and the service would count it `malformed`.
    case messageTooLong(bytes: Int, limit: Int)
    /// A value JSON cannot hold (a `Date`, an object, a non-finite number, a
    /// dictionary key that is not a string), at a JSON Pointer into the message.
    case unsupportedValue(at: String, type: String)
    /// A member given twice: in `members` and as a parameter of its own (`ruleset`,
    /// `initial`), or in `fields` and as `type`/`observed`. The service would refuse a
    /// duplicate key.
    case duplicateMember(String)
}
