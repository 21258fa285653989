/// Civil dates from Unix time without Foundation (Howard Hinnant's days-from-civil
/// inverse), for the `Date` header and the log's `ts`.
enum Timestamps {
    struct Civil {
        var year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, weekday: Int
    }

    static func civil(unixSeconds: Int) -> Civil {
        let days = unixSeconds >= 0 ? unixSeconds / 86400 : (unixSeconds - 86399) / 86400
        let secondsOfDay = unixSeconds - days * 86400
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        // 1970-01-01 was a Thursday (4, counting Sunday as 0).
        let weekday = ((days % 7) + 11) % 7
        return Civil(year: year, month: month, day: day, hour: secondsOfDay / 3600,
                     minute: secondsOfDay / 60 % 60, second: secondsOfDay % 60, weekday: weekday)
    }

    private static let dayNames = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// IMF-fixdate (RFC 9110 §5.6.7): `Sun, 06 Nov 1994 08:49:37 GMT`.
    static func imfFixdate(unixSeconds: Int) -> [UInt8] {
        let c = civil(unixSeconds: unixSeconds)
        var out: [UInt8] = []
        out.reserveCapacity(29)
        out += dayNames[c.weekday].utf8
        out += ", ".utf8
        append2(&out, c.day)
        out.append(0x20)
        out += monthNames[c.month - 1].utf8
        out.append(0x20)
        append4(&out, c.year)
        out.append(0x20)
        appendTime(&out, c)
        out += " GMT".utf8
        return out
    }

    /// RFC 3339 UTC with milliseconds: `2026-11-29T23:45:00.123Z`.
    static func rfc3339(unixMilliseconds: Int) -> [UInt8] {
        let seconds = unixMilliseconds >= 0 ? unixMilliseconds / 1000 : (unixMilliseconds - 999) / 1000
        let millis = unixMilliseconds - seconds * 1000
        let c = civil(unixSeconds: seconds)
        var out: [UInt8] = []
        out.reserveCapacity(24)
        append4(&out, c.year)
        out.append(UInt8(ascii: "-"))
        append2(&out, c.month)
        out.append(UInt8(ascii: "-"))
        append2(&out, c.day)
        out.append(UInt8(ascii: "T"))
        appendTime(&out, c)
        out.append(UInt8(ascii: "."))
        out.append(UInt8(48 + millis / 100))
        append2(&out, millis % 100)
        out.append(UInt8(ascii: "Z"))
        return out
    }

    private static func appendTime(_ out: inout [UInt8], _ c: Civil) {
        append2(&out, c.hour)
        out.append(UInt8(ascii: ":"))
        append2(&out, c.minute)
        out.append(UInt8(ascii: ":"))
        append2(&out, c.second)
    }

    private static func append2(_ out: inout [UInt8], _ value: Int) {
        out.append(UInt8(48 + value / 10 % 10))
        out.append(UInt8(48 + value % 10))
    }

    private static func append4(_ out: inout [UInt8], _ value: Int) {
        append2(&out, value / 100)
        append2(&out, value % 100)
    }
}
