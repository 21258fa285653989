@testable import device_oracle
import XCTest

/// The executable's SHA-256, behind the viewer's CSP hash: FIPS 180-4's examples,
/// which between them cross every padding case (a block with room for the length,
/// a message whose padding needs a second block, many blocks).
final class SHA256Tests: XCTestCase {
    func testTheDigestsOfFIPS180Examples() {
        let cases: [(message: [UInt8], digest: String)] = [
            ([], "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            (Array("abc".utf8), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            (Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8),
             "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
            (Array("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu".utf8),
             "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"),
            ([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000),
             "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"),
        ]
        for (message, digest) in cases {
            XCTAssertEqual(SHA256.digest(message).map { String($0, radix: 16).leftPadded() }.joined(), digest, "\(message.count) bytes")
        }
    }

    func testBase64PadsAsRFC4648Says() {
        XCTAssertEqual(["", "f", "fo", "foo", "foob", "fooba", "foobar"].map { base64Encoded(Array($0.utf8)) },
                       ["", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"])
    }
}

private extension String {
    func leftPadded() -> String { count == 1 ? "0" + self : self }
}
