@testable import DeviceOracleHTTP
import XCTest

final class RouterTests: XCTestCase {
    let router = Router([
        Route(path: "/healthz", methods: [.GET]) { _ in HTTPResponse(status: 200) },
        Route(path: "/apply", methods: [.POST], body: .json) { _ in HTTPResponse(status: 200) },
        Route(path: "/lines", methods: [.POST], body: .json,
              streamed: StreamedBody(mediaTypes: ["application/x-ndjson", "application/jsonl"]) { _ in Lines() }) { _ in
            HTTPResponse(status: 200)
        },
    ])

    final class Lines: StreamedRequestHandler {
        func receive(_ bytes: UnsafeRawBufferPointer, output: inout [UInt8]) -> StreamedProgress { .more }
        func bodyEnded(output: inout [UInt8]) -> StreamedProgress { .respond(HTTPResponse(status: 204)) }
    }

    private func status(_ method: HTTPMethod, _ path: String, contentType: String? = nil) -> (Int, String?) {
        switch router.decide(method: method, path: path, contentType: contentType) {
        case .handle: return (200, nil)
        case .stream: return (-1, nil)
        case .respond(let response): return (response.status, response.headers.first { $0.0 == "Allow" }?.1)
        }
    }

    func testARoutesQueryProblemIsAnsweredBeforeItsMediaTypeIsLookedAt() {
        let router = Router([
            Route(path: "/checked", methods: [.POST], body: .json, queryProblem: { query in
                query == "bad" || query.isEmpty ? HTTPResponse(status: 400) : nil
            }) { _ in HTTPResponse(status: 200) },
        ])
        func status(_ query: String, _ contentType: String) -> Int {
            switch router.decide(method: .POST, path: "/checked", contentType: contentType, query: query) {
            case .handle: 200
            case .stream: -1
            case .respond(let response): response.status
            }
        }

        XCTAssertEqual(status("bad", "text/plain"), 400)
        XCTAssertEqual(status("good", "text/plain"), 415)
        XCTAssertEqual(status("good", "application/json"), 200)
        XCTAssertEqual(status("", "application/json"), 200)  // no query is not asked about
    }

    func testUnknownPathIs404() {
        XCTAssertEqual(status(.GET, "/nope").0, 404)
    }

    func testKnownPathWithAnotherMethodIs405WithAllow() {
        XCTAssertEqual(status(.DELETE, "/healthz").0, 405)
        XCTAssertEqual(status(.DELETE, "/healthz").1, "GET, HEAD")
        XCTAssertEqual(status(.GET, "/apply").1, "POST")
    }

    func testHeadIsAnsweredForEveryGetRoute() {
        XCTAssertEqual(status(.HEAD, "/healthz").0, 200)
        XCTAssertEqual(status(.HEAD, "/apply").0, 405)
    }

    func testJSONRoutesAcceptJSONFormsAndMissingContentType() {
        for type in [nil, "application/json", "Application/JSON; charset=utf-8", "application/problem+json",
                     "application/vnd.api+json", "application/x-www-form-urlencoded"] {
            XCTAssertEqual(status(.POST, "/apply", contentType: type).0, 200, type ?? "nil")
        }
    }

    func testJSONRoutesRefuseOtherMediaTypesWith415() {
        for type in ["text/plain", "application/xml", "application/jsonx", "+json", "application/+json", ""] {
            XCTAssertEqual(status(.POST, "/apply", contentType: type).0, 415, type)
        }
    }

    func testAStreamedMediaTypeGoesToTheStreamWhateverItsCaseAndParameters() {
        for type in ["application/x-ndjson", "Application/X-NDJSON; charset=utf-8", " application/jsonl "] {
            XCTAssertEqual(status(.POST, "/lines", contentType: type).0, -1, type)
        }
    }

    func testOtherMediaTypesOnAStreamedRouteAreTheRouteBodysBusiness() {
        XCTAssertEqual(status(.POST, "/lines", contentType: "application/json").0, 200)
        XCTAssertEqual(status(.POST, "/lines").0, 200)
        XCTAssertEqual(status(.POST, "/lines", contentType: "application/x-ndjsonx").0, 415)
        XCTAssertEqual(status(.GET, "/lines", contentType: "application/x-ndjson").0, 405, "the method is decided first")
    }

    func testDiscardedBodiesAcceptAnyMediaType() {
        XCTAssertEqual(status(.GET, "/healthz", contentType: "text/plain").0, 200)
    }

    func testOptionsAsteriskIs204WithTheServersMethods() {
        XCTAssertEqual(status(.OPTIONS, "*").0, 204)
        XCTAssertEqual(status(.OPTIONS, "*").1, "GET, HEAD, POST, OPTIONS")
    }
}

final class ProblemDetailsTests: XCTestCase {
    func testMembersAreWrittenInAFixedOrder() {
        let problem = ProblemDetails(type: "/problems/invalid-request", title: "Invalid request", status: 422,
                                     detail: "2 problems", extraIntegers: [("offset", 3)],
                                     errors: [.init(pointer: "/events/0/type", detail: "unknown \"x\"")])
        XCTAssertEqual(String(decoding: problem.json, as: UTF8.self),
                       #"{"type":"/problems/invalid-request","title":"Invalid request","status":422,"detail":"2 problems","offset":3,"errors":[{"pointer":"/events/0/type","detail":"unknown \"x\""}]}"#)
    }

    func testTheServersOwnProblemsUseTheSpecTypes() {
        let expected = [400: "/problems/bad-request", 404: "/problems/not-found", 405: "/problems/method-not-allowed",
                        408: "/problems/request-timeout", 413: "/problems/body-too-large", 414: "/problems/uri-too-long",
                        415: "/problems/unsupported-media-type", 431: "/problems/headers-too-large",
                        501: "/problems/not-implemented", 503: "/problems/overloaded", 505: "/problems/version-not-supported"]
        for (status, type) in expected {
            XCTAssertEqual(ProblemDetails(status: status, detail: "d").type, type)
        }
    }

    func testTheResponseIsProblemJSON() {
        let response = ProblemDetails(status: 404, detail: "no").response
        XCTAssertEqual(response.status, 404)
        XCTAssertEqual(response.contentType, "application/problem+json")
        XCTAssertEqual(String(decoding: response.body, as: UTF8.self),
                       #"{"type":"/problems/not-found","title":"Not found","status":404,"detail":"no"}"#)
    }
}

final class TimestampsTests: XCTestCase {
    func testIMFFixdate() {
        XCTAssertEqual(String(decoding: Timestamps.imfFixdate(unixSeconds: 784_111_777), as: UTF8.self), "Sun, 06 Nov 1994 08:49:37 GMT")
        XCTAssertEqual(String(decoding: Timestamps.imfFixdate(unixSeconds: 951_782_400), as: UTF8.self), "Tue, 29 Feb 2000 00:00:00 GMT")
    }

    func testRFC3339WithMilliseconds() {
        XCTAssertEqual(String(decoding: Timestamps.rfc3339(unixMilliseconds: 1_796_083_200_007), as: UTF8.self), "2026-12-01T00:00:00.007Z")
    }
}
