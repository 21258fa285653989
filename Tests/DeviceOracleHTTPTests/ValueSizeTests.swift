@testable import DeviceOracleHTTP
import XCTest

/// An answer is moved several times between its handler and the socket. Within 64
/// bytes the compiler moves it as a value; past that, each copy and destroy is an
/// outlined call on every request (issue 45).
final class ValueSizeTests: XCTestCase {
    func testAnAnswerFitsIn64Bytes() {
        XCTAssertLessThanOrEqual(MemoryLayout<HTTPResponse>.size, 64)
    }
}
