import DeviceOracleHTTP

/// `GET /`: the trace viewer, one page with its styles and script inline
/// (`viewer.html`, embedded at build time like `openapi.yaml`).
enum TraceViewer {
    /// The page may run its own inline script and styles and talk to this service
    /// only: no other origin, no framing, no form posts elsewhere. A shared trace
    /// travels in the URL fragment, which no request carries.
    static let contentSecurityPolicy = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
        + "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    static func response() -> HTTPResponse {
        HTTPResponse(status: 200, contentType: "text/html; charset=utf-8", headers: [
            ("Content-Security-Policy", contentSecurityPolicy),
            // Built into the binary, so it changes with the binary: revalidate each time.
            ("Cache-Control", "no-cache"),
            ("X-Content-Type-Options", "nosniff"),
            ("Referrer-Policy", "no-referrer"),
        ], body: PackageResources.viewer_html)
    }
}
