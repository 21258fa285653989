import Foundation
import HTTPTestSupport
import XCTest

/// Replays the recorded corpus (Tests/Fixtures/corpus, see its README) against the
/// built server: every answer must equal the recorded one byte for byte — status,
/// headers but `Date`, body, a streamed answer's trailers — so a restructuring cannot
/// change what users get. Requests go as recorded: JSON or NDJSON bodies, and the
/// `Accept` header that asks the batch check for JUnit.
final class CorpusTests: OracleProcessTestCase {
    func testEveryRecordedRequestIsAnsweredByteForByteAsRecorded() throws {
        let cases = try RecordedExchange.corpus()
        XCTAssertGreaterThan(cases.count, 700)
        let (_, port) = try startServer()

        var differing: [String] = []
        for recorded in cases {
            var head = "\(recorded.method) \(recorded.path) HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
            if let type = recorded.contentType { head += "Content-Type: \(type)\r\n" }
            if let accept = recorded.accept { head += "Accept: \(accept)\r\n" }
            if recorded.method == "POST" { head += "Content-Length: \(recorded.body.utf8.count)\r\n" }
            guard let answer = RawExchange.send(head + "\r\n" + recorded.body, port: port) else {
                differing.append("\(recorded.name): no answer")
                continue
            }
            let headers = answer.head.components(separatedBy: "\r\n").dropFirst().filter { !$0.lowercased().hasPrefix("date:") }
            let payload = answer.payload.map { String(decoding: $0, as: UTF8.self) }
            let chunked = answer.header("Transfer-Encoding") == "chunked"
            let trailers = chunked ? ChunkedBody.trailerFields(answer.body).map { "\($0): \($1)" } : []
            if answer.status != recorded.status || Array(headers) != recorded.headers || payload != recorded.answer
                || trailers != recorded.trailers ?? [] {
                differing.append("""
                    \(recorded.name) (\(recorded.method) \(recorded.path)):
                      status \(answer.status), recorded \(recorded.status)
                      headers \(Array(headers)), recorded \(recorded.headers)
                      trailers \(trailers), recorded \(recorded.trailers ?? [])
                      answer  \(payload?.prefix(400) ?? "not chunked well")
                      recorded \(recorded.answer.prefix(400))
                    """)
            }
        }
        XCTAssert(differing.isEmpty, "\(differing.count) of \(cases.count) answers differ from the corpus:\n" + differing.prefix(5).joined(separator: "\n"))
    }
}
