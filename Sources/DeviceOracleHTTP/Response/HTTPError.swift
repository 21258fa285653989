/// A request the server refuses itself, before any handler runs. Each case is one
/// status code; `detail` is one sentence for the problem document.
package struct HTTPError: Error, Sendable, Equatable {
    package let status: Int
    package let detail: String

    package init(status: Int, detail: String) {
        self.status = status
        self.detail = detail
    }

    static func badRequest(_ detail: String) -> HTTPError { HTTPError(status: 400, detail: detail) }

    /// The RFC 9457 problem answer for this error.
    var response: HTTPResponse {
        ProblemDetails(status: status, detail: detail).response
    }
}
