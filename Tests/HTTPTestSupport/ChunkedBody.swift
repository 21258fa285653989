import Foundation

/// A chunked response body (RFC 9112 §7.1) as the server sends it: no chunk
/// extensions; trailer fields only after a streamed request's answer. Shared by the
/// HTTP tests' client, which reads it as it arrives, and the end-to-end tests, which
/// read it after the connection closed.
public enum ChunkedBody {
    public enum Decoded: Equatable {
        /// The body, and how many bytes of the input its chunks took.
        case complete(body: [UInt8], consumed: Int)
        /// More bytes are needed.
        case incomplete
        /// Not a chunked body this server could have sent.
        case malformed
    }

    public static func decode(_ bytes: some Collection<UInt8>) -> Decoded {
        var reader = Reader()
        return reader.read(Array(bytes)).decoded
    }

    /// The trailer fields after the last chunk of a complete body (a streamed answer's
    /// `Oracle-Verdict`), in order; empty when there are none or the body is incomplete.
    public static func trailerFields(_ bytes: some Collection<UInt8>) -> [(String, String)] {
        var reader = Reader()
        return reader.read(Array(bytes)).trailers
    }

    /// Reads a body as it arrives: each `read` goes on after the last chunk the one
    /// before completed, so a long body is scanned once rather than once per arrival
    /// (with the test route's byte-by-byte work, a 20 MB answer took over a minute
    /// under the sanitizers).
    public struct Reader {
        private var position = 0
        private var body: [UInt8] = []

        public init() {}

        /// `bytes` is everything received so far: what an earlier `read` saw, and more.
        public mutating func read(_ bytes: [UInt8]) -> (decoded: Decoded, trailers: [(String, String)]) {
            while true {
                guard let lineEnd = ChunkedBody.crlf(in: bytes, from: position) else { return (.incomplete, []) }
                guard let size = Int(String(decoding: bytes[position..<lineEnd], as: UTF8.self), radix: 16), size >= 0 else {
                    return (.malformed, [])
                }
                let dataStart = lineEnd + 2
                if size == 0 { return ChunkedBody.trailerSection(bytes, from: dataStart, body: body) }
                guard bytes.count >= dataStart + size + 2 else { return (.incomplete, []) }
                guard bytes[dataStart + size] == 13, bytes[dataStart + size + 1] == 10 else { return (.malformed, []) }
                body += bytes[dataStart..<(dataStart + size)]
                position = dataStart + size + 2
            }
        }
    }

    /// Trailer field lines up to the empty line that ends the body (RFC 9112 §7.1.2).
    private static func trailerSection(_ bytes: [UInt8], from start: Int, body: [UInt8])
        -> (decoded: Decoded, trailers: [(String, String)]) {
        var trailers: [(String, String)] = [], position = start
        while true {
            guard let lineEnd = crlf(in: bytes, from: position) else { return (.incomplete, []) }
            if lineEnd == position { return (.complete(body: body, consumed: lineEnd + 2), trailers) }
            let line = String(decoding: bytes[position..<lineEnd], as: UTF8.self)
            guard let colon = line.firstIndex(of: ":") else { return (.malformed, []) }
            trailers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
            position = lineEnd + 2
        }
    }

    private static func crlf(in bytes: [UInt8], from start: Int) -> Int? {
        var index = start
        while index + 1 < bytes.count {
            if bytes[index] == 13, bytes[index + 1] == 10 { return index }
            index += 1
        }
        return nil
    }
}
