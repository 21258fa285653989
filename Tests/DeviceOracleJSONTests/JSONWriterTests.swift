import XCTest
import DeviceOracleJSON

final class JSONWriterTests: XCTestCase {
    private func text(_ build: (inout JSONWriter) -> Void) -> String {
        var writer = JSONWriter()
        build(&writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    func testCommasArePlacedBetweenMembersAndElements() {
        let json = text { w in
            w.beginObject()
            w.key("a"); w.integer(1)
            w.key("b"); w.beginArray(); w.bool(true); w.null(); w.beginObject(); w.endObject(); w.endArray()
            w.key("c"); w.string("x")
            w.endObject()
        }
        XCTAssertEqual(json, #"{"a":1,"b":[true,null,{}],"c":"x"}"#)
    }

    func testAWriterInLentMemoryWritesTheSameTextAndMovesOutWhenItIsFull() {
        func write(_ w: inout JSONWriter) {
            w.beginArray()
            for index in 0..<40 { w.beginObject(); w.key("n"); w.integer(index); w.endObject() }
            w.endArray()
        }
        var own = JSONWriter()
        write(&own)
        let expected = own.finish()
        for lent in [0, 1, 16, 100, expected.count, expected.count + 10] {
            let written = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(lent, 1)) { memory in
                var writer = JSONWriter(lentMemory: UnsafeMutableBufferPointer(rebasing: memory[..<lent]), spillCapacity: 8)
                write(&writer)
                return writer.finish()
            }
            XCTAssertEqual(written, expected, "\(lent) bytes lent")
        }
    }

    func testNumbersAreWrittenCanonically() {
        let cases: [(Double, String)] = [(1.0, "1"), (-0.0, "0"), (0.65, "0.65"), (1e-5, "1e-05"), (-12, "-12"),
                                         (1e20, "1e+20"), (0.1 + 0.2, "0.30000000000000004"),
                                         (9007199254740992, "9007199254740992"), (1700000000123, "1700000000123")]
        for (value, expected) in cases {
            XCTAssertEqual(text { $0.number(value) }, expected)
        }
        XCTAssertEqual(text { $0.integer(Int.min) }, "-9223372036854775808")
    }

    func testIntegersAreWrittenAsTheirDescriptionAtEveryDigitCount() {
        var values = [0, 1, 9, 10, 99, 100, 101, 999, 1_000, 65_535, 100_000, Int.max, Int.min, Int.min + 1]
        var power = 1
        for _ in 0..<18 {
            power *= 10
            values += [power - 1, power, power + 1, -power, -(power - 1)]
        }
        for value in values {
            XCTAssertEqual(text { $0.integer(value) }, String(value))
        }
    }

    func testAnObjectOfAnIntegerAndWrittenMembersIsTheSameAsMemberByMember() {
        let tail = Array(#""event":{"type":"userPaused"},"action":"none""#.utf8)
        for value in [0, 7, 99_999, -12, Int.min, Int.max] {
            for members in [tail, []] {
                let whole = text { w in
                    w.beginArray()
                    members.withUnsafeBufferPointer { w.object(key: "index", integer: value, members: $0) }
                    members.withUnsafeBufferPointer { w.object(key: "index", integer: value, members: $0) }
                    w.endArray()
                }
                let byMember = text { w in
                    w.beginArray()
                    for _ in 0..<2 {
                        w.beginObject()
                        w.key("index")
                        w.integer(value)
                        if !members.isEmpty { members.withUnsafeBufferPointer { w.members($0) } }
                        w.endObject()
                    }
                    w.endArray()
                }
                XCTAssertEqual(whole, byMember)
            }
        }
        XCTAssertEqual(text { w in [UInt8]().withUnsafeBufferPointer { w.object(key: "index", integer: 3, members: $0) } },
                       #"{"index":3}"#)
    }

    func testThousandthsAreWrittenAsTheirDoubleWouldBe() {
        for value in Array(-2_100...2_100) + [12_345_678, 99_999_999_999, -7_000_001] {
            var fixed = JSONWriter(), double = JSONWriter()
            fixed.number(thousandths: value)
            double.number(Double(value) / 1000)
            let (written, expected) = (fixed.finish(), double.finish())
            XCTAssertEqual(String(decoding: written, as: UTF8.self), String(decoding: expected, as: UTF8.self))
        }
    }

    func testStringsEscapeOnlyWhatJSONRequires() {
        XCTAssertEqual(text { $0.string(escaping: "a\"b\\c/d\né\u{01}") }, #""a\"b\\c/d\né\u0001""#)
    }

    func testParsedValuesAreReserializedCanonically() throws {
        let document = try JSONReader.parse(Array(#"{ "x" : [1.0, 2e0, "a\/b"], "y": {"z": null} }"#.utf8))
        XCTAssertEqual(text { $0.value(document.root, of: document) }, #"{"x":[1,2,"a/b"],"y":{"z":null}}"#)
    }
}
