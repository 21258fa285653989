import DeviceOracleHTTP

/// `GET /`: the trace viewer, one page with its styles and script inline
/// (`viewer.html`, embedded at build time like `openapi.yaml`).
enum TraceViewer {
    /// The page may run its own inline script — that one, by its SHA-256, so a handler
    /// or script injected into the page never runs — and inline styles, and talk to this
    /// service only: no other origin, no framing, no form posts elsewhere. A shared trace
    /// travels in the URL fragment, which no request carries. The hash is taken from the
    /// embedded page itself, so editing the page can never leave a stale one.
    static let contentSecurityPolicy = "default-src 'none'; script-src '\(scriptHashSource)'; style-src 'unsafe-inline'; "
        + "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    /// `sha256-<base64>` of the text of the page's one `<script>` element, as CSP Level 3
    /// hashes an inline script: its bytes between the tags.
    static var scriptHashSource: String {
        let page = PackageResources.viewer_html
        guard let start = page.firstRange(of: Array("<script>".utf8))?.upperBound,
              let end = page[start...].firstRange(of: Array("</script>".utf8))?.lowerBound else {
            preconditionFailure("viewer.html has one inline <script>")
        }
        return "sha256-" + base64Encoded(SHA256.digest(Array(page[start..<end])))
    }

    static func response() -> HTTPResponse {
        HTTPResponse(status: 200, contentType: "text/html; charset=utf-8", headers: [
            ("Content-Security-Policy", contentSecurityPolicy),
            // Built into the binary, so it changes with the binary: revalidate each time.
            ("Cache-Control", "no-cache"),
            ("Referrer-Policy", "no-referrer"),
        ], body: PackageResources.viewer_html)
    }
}
