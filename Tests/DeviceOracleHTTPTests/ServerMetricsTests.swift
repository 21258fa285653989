@testable import DeviceOracleHTTP
import XCTest

/// What `GET /metrics` says after known traffic: one test per family's rule.
final class ServerMetricsTests: XCTestCase {
    private let verdicts = ServerMetrics.AnswerCounter(
        name: "test_verdicts_total", help: "Verdicts.", routeLabel: "ruleset",
        routes: ["/apply": "toy/1"], field: "verdict", values: ["pass", "fail"])

    private func metrics(loops: Int = 2, openConnections: Int = 0) -> ServerMetrics {
        ServerMetrics(routes: ["/apply", "/healthz"], loops: loops, answerCounters: [verdicts],
                      budget: MemoryBudget(limit: 1 << 20), openConnections: { openConnections })
    }

    private func lines(_ metrics: ServerMetrics) -> [String] {
        String(decoding: metrics.exposition(), as: UTF8.self).split(separator: "\n").map(String.init)
    }

    func testRequestsAreCountedByRouteAndStatusAcrossLoops() {
        let metrics = metrics()
        var first = metrics.recorder(), second = metrics.recorder()

        first.answered(route: 0, status: 200, nanoseconds: 1000, logFields: [], overload: nil)
        second.answered(route: 0, status: 200, nanoseconds: 1000, logFields: [], overload: nil)
        second.answered(route: 1, status: 200, nanoseconds: 1000, logFields: [], overload: nil)
        first.answered(route: nil, status: 404, nanoseconds: 1000, logFields: [], overload: nil)
        metrics.publish(&first, loop: 0)
        metrics.publish(&second, loop: 1)

        let text = lines(metrics)
        XCTAssert(text.contains(#"deviceoracle_http_requests_total{route="/apply",status="200"} 2"#), "\(text)")
        XCTAssert(text.contains(#"deviceoracle_http_requests_total{route="/healthz",status="200"} 1"#), "\(text)")
        XCTAssert(text.contains(#"deviceoracle_http_requests_total{route="",status="404"} 1"#), "\(text)")
    }

    func testAnUncommonStatusIsCountedByItsClass() {
        let metrics = metrics()
        var recorder = metrics.recorder()

        recorder.answered(route: 0, status: 418, nanoseconds: 0, logFields: [], overload: nil)
        metrics.publish(&recorder, loop: 0)

        XCTAssert(lines(metrics).contains(#"deviceoracle_http_requests_total{route="/apply",status="4xx"} 1"#))
    }

    func testDurationsFillCumulativeBucketsWithSumAndCount() {
        let metrics = metrics()
        var recorder = metrics.recorder()

        recorder.answered(route: 0, status: 200, nanoseconds: 200_000, logFields: [], overload: nil)  // 0.2 ms
        recorder.answered(route: 0, status: 200, nanoseconds: 2_000_000_000, logFields: [], overload: nil)  // 2 s
        recorder.answered(route: 0, status: 200, nanoseconds: 60_000_000_000, logFields: [], overload: nil)  // past 10 s
        metrics.publish(&recorder, loop: 0)

        let text = lines(metrics)
        XCTAssert(text.contains(#"deviceoracle_http_request_duration_seconds_bucket{route="/apply",le="0.0001"} 0"#))
        XCTAssert(text.contains(#"deviceoracle_http_request_duration_seconds_bucket{route="/apply",le="0.00025"} 1"#))
        XCTAssert(text.contains(#"deviceoracle_http_request_duration_seconds_bucket{route="/apply",le="2.5"} 2"#))
        XCTAssert(text.contains(#"deviceoracle_http_request_duration_seconds_bucket{route="/apply",le="10.0"} 2"#))
        XCTAssert(text.contains(#"deviceoracle_http_request_duration_seconds_bucket{route="/apply",le="+Inf"} 3"#))
        XCTAssert(text.contains(#"deviceoracle_http_request_duration_seconds_sum{route="/apply"} 62.0002"#), "\(text)")
        XCTAssert(text.contains(#"deviceoracle_http_request_duration_seconds_count{route="/apply"} 3"#))
    }

    func testVerdictsAreCountedOnlyForTheRoutesTheCounterNames() {
        let metrics = metrics()
        var recorder = metrics.recorder()

        recorder.answered(route: 0, status: 200, nanoseconds: 0, logFields: [LogField("verdict", "fail")], overload: nil)
        recorder.answered(route: 0, status: 200, nanoseconds: 0, logFields: [LogField("verdict", "fail")], overload: nil)
        recorder.answered(route: 1, status: 200, nanoseconds: 0, logFields: [LogField("verdict", "pass")], overload: nil)
        recorder.answered(route: 0, status: 422, nanoseconds: 0, logFields: [], overload: nil)
        metrics.publish(&recorder, loop: 0)

        let counted = lines(metrics).filter { $0.hasPrefix("test_verdicts_total{") }
        XCTAssertEqual(counted, [#"test_verdicts_total{ruleset="toy/1",verdict="pass"} 0"#,
                                 #"test_verdicts_total{ruleset="toy/1",verdict="fail"} 2"#])
    }

    func testAFieldTheCounterMadeIsCountedLikeOneNamedByHand() {
        let metrics = metrics()
        var recorder = metrics.recorder()

        recorder.answered(route: 0, status: 200, nanoseconds: 0, logFields: [verdicts.field("fail")], overload: nil)
        recorder.answered(route: 0, status: 200, nanoseconds: 0, logFields: [LogField("verdict", "fail")], overload: nil)
        recorder.answered(route: 0, status: 200, nanoseconds: 0, logFields: [verdicts.field("maybe")], overload: nil)
        metrics.publish(&recorder, loop: 0)

        let counted = lines(metrics).filter { $0.hasPrefix("test_verdicts_total{") }
        XCTAssertEqual(counted, [#"test_verdicts_total{ruleset="toy/1",verdict="pass"} 0"#,
                                 #"test_verdicts_total{ruleset="toy/1",verdict="fail"} 2"#])
    }

    func testOverloadedAnswersAreCountedByCause() {
        let metrics = metrics()
        var recorder = metrics.recorder()

        recorder.answered(route: nil, status: 503, nanoseconds: 0, logFields: [], overload: .connections)
        recorder.answered(route: 0, status: 503, nanoseconds: 0, logFields: [], overload: .memory)
        recorder.answered(route: 0, status: 503, nanoseconds: 0, logFields: [], overload: .memory)
        metrics.publish(&recorder, loop: 0)

        let text = lines(metrics)
        XCTAssert(text.contains(#"deviceoracle_http_overloaded_total{cause="connections"} 1"#))
        XCTAssert(text.contains(#"deviceoracle_http_overloaded_total{cause="memory"} 2"#))
    }

    func testGaugesSayWhatIsOpenInFlightAndHeldNow() {
        let metrics = metrics(openConnections: 7)
        var recorder = metrics.recorder()

        recorder.inFlight(1)
        recorder.inFlight(1)
        recorder.inFlight(-1)
        recorder.bytesReceived(300)
        recorder.bytesSent(1200)
        metrics.publish(&recorder, loop: 1)

        let text = lines(metrics)
        XCTAssert(text.contains("deviceoracle_http_connections_open 7"))
        XCTAssert(text.contains("deviceoracle_http_requests_in_flight 1"))
        XCTAssert(text.contains("deviceoracle_http_request_bytes_total 300"))
        XCTAssert(text.contains("deviceoracle_http_response_bytes_total 1200"))
        XCTAssert(text.contains("deviceoracle_memory_budget_limit_bytes 1048576"))
    }

    func testPublishingStartsTheRecorderAgainSoNothingIsCountedTwice() {
        let metrics = metrics()
        var recorder = metrics.recorder()

        recorder.answered(route: 0, status: 200, nanoseconds: 0, logFields: [], overload: nil)
        metrics.publish(&recorder, loop: 0)
        metrics.publish(&recorder, loop: 0)

        XCTAssertFalse(recorder.isDirty)
        XCTAssert(lines(metrics).contains(#"deviceoracle_http_requests_total{route="/apply",status="200"} 1"#))
    }

    func testEveryFamilyHasHelpAndTypeBeforeItsSamples() {
        let text = lines(metrics())
        let types = text.filter { $0.hasPrefix("# TYPE ") }.map { $0.split(separator: " ")[2] }

        XCTAssertEqual(types, ["deviceoracle_http_requests_total", "deviceoracle_http_request_duration_seconds",
                               "deviceoracle_http_request_bytes_total", "deviceoracle_http_response_bytes_total",
                               "deviceoracle_http_connections_open", "deviceoracle_http_requests_in_flight",
                               "deviceoracle_http_overloaded_total", "deviceoracle_memory_budget_used_bytes",
                               "deviceoracle_memory_budget_limit_bytes", "test_verdicts_total"])
        XCTAssertEqual(text.filter { $0.hasPrefix("# HELP ") }.count, types.count)
    }
}
