import Foundation

/// One request of the recorded corpus (Tests/Fixtures/corpus, see its README) and the
/// answer main gave it: what the end-to-end replay sends to the server and what the
/// in-process check must equal.
public struct RecordedExchange: Decodable, Sendable {
    public let name: String
    public let method: String
    public let path: String
    public let contentType: String?
    /// The request's `Accept` header, when it sent one (the batch check's JUnit form).
    public let accept: String?
    public let body: String
    public let status: Int
    /// The answer's header lines but `Date`.
    public let headers: [String]
    public let answer: String
    /// A chunked answer's trailer lines (a streamed answer's `Oracle-Verdict`), when it had any.
    public let trailers: [String]?

    /// Every recorded exchange, in the corpus's order.
    public static func corpus() throws -> [RecordedExchange] {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../Fixtures/corpus/corpus.jsonl").standardized
        let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n")
        return try lines.map { try JSONDecoder().decode(RecordedExchange.self, from: Data($0.utf8)) }
    }
}
