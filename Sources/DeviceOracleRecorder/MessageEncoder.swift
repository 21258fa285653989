import Foundation

/// Writes the JSON text of one message: compact, keys in a fixed order (the
/// message's leading members as the caller lists them, every other object's keys
/// sorted), strings escaped as RFC 8259 requires, numbers canonical.
///
/// Numbers: an integer is written in decimal without a fraction; a floating value
/// with no fraction below 2^53 in magnitude is written as that integer (`1.0` is `1`),
/// any other finite one in Swift's shortest round-trip form. Booleans: a Swift `Bool`,
/// and the two Boolean `NSNumber`s Foundation hands out (`NSNumber(value: true)`,
/// `kCFBooleanTrue`; they are singletons on every platform), are `true`/`false`;
/// every other `NSNumber` is a number by its `objCType` (`d`/`f` floating,
/// `Q`/`L`/`I`/`S`/`C` unsigned, the rest signed), so an `NSNumber` holding `1` is
/// `1` even where Foundation would also cast it to `Bool`.
struct MessageEncoder {
    private(set) var text = ""

    mutating func beginObject() { text.append("{") }
    mutating func endObject() { text.append("}") }

    /// Writes `key: value` after the members already written in this object.
    mutating func member(_ key: String, _ value: Any, path: String, first: Bool) throws(RecorderError) {
        if !first { text.append(",") }
        string(key)
        text.append(":")
        try self.value(value, path: path + "/" + Self.escapedPointerToken(key))
    }

    mutating func value(_ value: Any, path: String) throws(RecorderError) {
        if let optional = Self.unwrappedOptional(value) {
            guard let wrapped = optional else { return text.append("null") }
            return try self.value(wrapped, path: path)
        }
        if let number = value as? NSNumber, type(of: value) is NSNumber.Type {
            return try self.number(number, path: path)
        }
        if let boolean = Self.exactly(value, Bool.self) { return text.append(boolean ? "true" : "false") }
        if let integer = Self.integer(value) { return text.append(integer) }
        if let double = Self.exactly(value, Double.self) { return try floating(double, path: path) }
        if let float = Self.exactly(value, Float.self) { return try floating(Double(float), path: path) }
        if let string = value as? String { return self.string(string) }
        if value is NSNull { return text.append("null") }
        if let object = value as? [AnyHashable: Any] { return try self.object(object, path: path) }
        if let array = value as? [Any] {
            text.append("[")
            for (index, element) in array.enumerated() {
                if index > 0 { text.append(",") }
                try self.value(element, path: path + "/\(index)")
            }
            return text.append("]")
        }
        throw .unsupportedValue(at: path, type: String(describing: type(of: value)))
    }

    /// An object with its keys sorted, so the same values always give the same text.
    mutating func object(_ object: [AnyHashable: Any], path: String) throws(RecorderError) {
        var members: [(key: String, value: Any)] = []
        members.reserveCapacity(object.count)
        for (key, value) in object {
            guard let name = key.base as? String else {
                throw .unsupportedValue(at: path, type: "key of type \(type(of: key.base))")
            }
            members.append((name, value))
        }
        members.sort { $0.key < $1.key }
        beginObject()
        for (index, member) in members.enumerated() {
            try self.member(member.key, member.value, path: path, first: index == 0)
        }
        endObject()
    }

    mutating func string(_ string: String) {
        text.append("\"")
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text.append("\\\"")
            case "\\": text.append("\\\\")
            case "\n": text.append("\\n")
            case "\r": text.append("\\r")
            case "\t": text.append("\\t")
            case "\u{08}": text.append("\\b")
            case "\u{0C}": text.append("\\f")
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                text.append("\\u" + String(repeating: "0", count: 4 - hex.count) + hex)
            default: text.unicodeScalars.append(scalar)
            }
        }
        text.append("\"")
    }

    private mutating func number(_ number: NSNumber, path: String) throws(RecorderError) {
        if number === NSNumber(value: true) { return text.append("true") }
        if number === NSNumber(value: false) { return text.append("false") }
        switch String(cString: number.objCType) {
        case "d", "f": try floating(number.doubleValue, path: path)
        case "Q", "L", "I", "S", "C": text.append(String(number.uint64Value))
        default: text.append(String(number.int64Value))
        }
    }

    private mutating func floating(_ double: Double, path: String) throws(RecorderError) {
        guard double.isFinite else { throw .unsupportedValue(at: path, type: "non-finite \(double)") }
        if double.rounded(.towardZero) == double, abs(double) < 9_007_199_254_740_992 {
            text.append(String(Int64(double)))
        } else {
            text.append(String(double))
        }
    }

    private static func exactly<T>(_ value: Any, _: T.Type) -> T? {
        type(of: value) == T.self ? value as? T : nil
    }

    private static func integer(_ value: Any) -> String? {
        if let v = exactly(value, Int.self) { return String(v) }
        if let v = exactly(value, UInt.self) { return String(v) }
        if let v = exactly(value, Int64.self) { return String(v) }
        if let v = exactly(value, UInt64.self) { return String(v) }
        if let v = exactly(value, Int32.self) { return String(v) }
        if let v = exactly(value, UInt32.self) { return String(v) }
        if let v = exactly(value, Int16.self) { return String(v) }
        if let v = exactly(value, UInt16.self) { return String(v) }
        if let v = exactly(value, Int8.self) { return String(v) }
        if let v = exactly(value, UInt8.self) { return String(v) }
        return nil
    }

    /// `.some(wrapped)` for a value that is an `Optional` (`.some(nil)` for `nil`);
    /// `nil` for any other value.
    private static func unwrappedOptional(_ value: Any) -> Any?? {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return nil }
        return .some(mirror.children.first?.value)
    }

    /// RFC 6901: `~` is `~0` and `/` is `~1` in a pointer's token.
    static func escapedPointerToken(_ key: String) -> String {
        key.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
    }
}
