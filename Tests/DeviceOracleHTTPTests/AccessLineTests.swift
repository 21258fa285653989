@testable import DeviceOracleHTTP
import DeviceOracleJSON
import XCTest

/// The access line's bytes, member by member (the server's log readers depend on them).
final class AccessLineTests: XCTestCase {
    private func line(id: UInt64, milliseconds: Int, elapsedNanoseconds: Int64, method: String? = "POST",
                      path: String? = "/playback/apply", userAgent: String? = nil) -> String {
        var out = JSONWriter()
        let fields = AccessLineFields(method: method, path: path, status: 200, startedAt: 0, fields: [LogField("verdict", "pass")],
                                      userAgent: userAgent)
        AccessLine.append(fields, bytes: 15, elapsedNanoseconds: elapsedNanoseconds, id: id,
                          timestampPrefix: Array("2026-11-30T01:44:15.".utf8), milliseconds: milliseconds, to: &out)
        return String(decoding: out.finish(), as: UTF8.self)
    }

    func testEveryMemberInOrder() {
        XCTAssertEqual(line(id: 0xbeef, milliseconds: 7, elapsedNanoseconds: 73_456, userAgent: "t/\"1\""),
                       #"{"ts":"2026-11-30T01:44:15.007Z","level":"info","msg":"request","id":"beef","method":"POST","path":"/playback/apply","status":200,"bytes":15,"ms":0.073,"verdict":"pass","userAgent":"t/\"1\""}"# + "\n")
    }

    func testIdsTimesAndMissingMembers() {
        XCTAssertEqual(line(id: 0, milliseconds: 999, elapsedNanoseconds: 2_000_000, method: nil, path: nil),
                       #"{"ts":"2026-11-30T01:44:15.999Z","level":"info","msg":"request","id":"0","status":200,"bytes":15,"ms":2,"verdict":"pass"}"# + "\n")
        XCTAssertTrue(line(id: .max, milliseconds: 0, elapsedNanoseconds: 1_500_000).contains(#""id":"ffffffffffffffff","#))
        XCTAssertTrue(line(id: 0x10, milliseconds: 0, elapsedNanoseconds: 1_500_000).contains(#""ts":"2026-11-30T01:44:15.000Z","#))
        XCTAssertTrue(line(id: 0x10, milliseconds: 0, elapsedNanoseconds: 1_500_000).contains(#""id":"10","method""#))
        XCTAssertTrue(line(id: 1, milliseconds: 0, elapsedNanoseconds: 1_500_000).contains(#""ms":1.5,"#))
    }
}
