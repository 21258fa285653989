import Glibc

/// The methods this server knows (RFC 9110 §9). A route that does not allow a
/// known method answers `405`; any other well-formed token is `501`.
package enum HTTPMethod: String, Sendable, CaseIterable {
    case GET, HEAD, POST, PUT, DELETE, PATCH, OPTIONS, TRACE, CONNECT

    /// Methods are case-sensitive tokens (RFC 9110 §9.1): `get` is not `GET`.
    init?(token: UnsafeRawBufferPointer) {
        guard let first = token.first else { return nil }
        // Dispatch on length and first byte so the common methods cost a few compares.
        switch (token.count, first) {
        case (3, UInt8(ascii: "G")) where Self.equal(token, "GET"): self = .GET
        case (4, UInt8(ascii: "P")) where Self.equal(token, "POST"): self = .POST
        case (4, UInt8(ascii: "H")) where Self.equal(token, "HEAD"): self = .HEAD
        case (3, UInt8(ascii: "P")) where Self.equal(token, "PUT"): self = .PUT
        case (6, UInt8(ascii: "D")) where Self.equal(token, "DELETE"): self = .DELETE
        case (5, UInt8(ascii: "P")) where Self.equal(token, "PATCH"): self = .PATCH
        case (7, UInt8(ascii: "O")) where Self.equal(token, "OPTIONS"): self = .OPTIONS
        case (5, UInt8(ascii: "T")) where Self.equal(token, "TRACE"): self = .TRACE
        case (7, UInt8(ascii: "C")) where Self.equal(token, "CONNECT"): self = .CONNECT
        default: return nil
        }
    }

    /// This method's bit in a set of methods (a route's, in `Router`): a set of them
    /// is a `UInt16`, read without retaining anything.
    var bit: UInt16 {
        switch self {
        case .GET: 1 << 0
        case .HEAD: 1 << 1
        case .POST: 1 << 2
        case .PUT: 1 << 3
        case .DELETE: 1 << 4
        case .PATCH: 1 << 5
        case .OPTIONS: 1 << 6
        case .TRACE: 1 << 7
        case .CONNECT: 1 << 8
        }
    }

    private static func equal(_ bytes: UnsafeRawBufferPointer, _ text: StaticString) -> Bool {
        guard bytes.count == text.utf8CodeUnitCount else { return false }
        return memcmp(bytes.baseAddress!, text.utf8Start, bytes.count) == 0
    }
}

/// HTTP/1.0 or HTTP/1.1: the only versions this server speaks (others are `505`).
package enum HTTPVersion: Sendable, Equatable {
    case http1_0
    case http1_1
}
