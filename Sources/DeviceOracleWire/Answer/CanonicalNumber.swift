import DeviceOracleJSON

/// A number as the answer spells it (`1.0` → `1`), for details and messages.
func canonicalText(_ number: Double) -> String {
    var writer = JSONWriter(capacity: 32)
    writer.number(number)
    return String(decoding: writer.finish(), as: UTF8.self)
}
