/// Status codes this server sends, with their RFC 9110 reason phrases.
enum HTTPStatusText {
    static func reason(_ status: Int) -> StaticString {
        switch status {
        case 100: "Continue"
        case 200: "OK"
        case 201: "Created"
        case 204: "No Content"
        case 400: "Bad Request"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 415: "Unsupported Media Type"
        case 417: "Expectation Failed"
        case 422: "Unprocessable Content"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 503: "Service Unavailable"
        case 505: "HTTP Version Not Supported"
        default: status < 300 ? "OK" : status < 500 ? "Client Error" : "Server Error"
        }
    }

    /// The whole status line of the most frequent answers, written with one copy.
    static func statusLine(_ status: Int) -> StaticString? {
        switch status {
        case 200: "HTTP/1.1 200 OK\r\n"
        case 400: "HTTP/1.1 400 Bad Request\r\n"
        case 404: "HTTP/1.1 404 Not Found\r\n"
        case 422: "HTTP/1.1 422 Unprocessable Content\r\n"
        default: nil
        }
    }
}
