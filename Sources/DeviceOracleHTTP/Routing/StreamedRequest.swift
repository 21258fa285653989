/// A request body handled as it arrives rather than collected first: for bodies of any
/// length (a soak run's log), answered as they are read. The server frames the body
/// (Content-Length or chunked), hands its bytes over read by read, and frames the answer
/// (chunked with trailers; close-delimited to an HTTP/1.0 client). What the bytes mean
/// is the handler's business: the server knows no line, no JSON.
///
/// One handler serves one request, on the connection's event loop, one call at a time.
/// Output is bounded by the caller: while answer bytes wait for a slow peer, no more body
/// is read (and so no more is handed over), so a request's memory stays what the
/// handler keeps plus one read plus what waits to be sent.
public protocol StreamedRequestHandler: AnyObject {
    /// The next bytes of the body (one read's worth at most). Answer body bytes go into
    /// `output` (without framing) once the answer has begun.
    func receive(_ bytes: UnsafeRawBufferPointer, output: inout [UInt8]) -> StreamedProgress
    /// The body has ended: every byte of it was given to `receive`.
    func bodyEnded(output: inout [UInt8]) -> StreamedProgress
}

/// What a `StreamedRequestHandler` decided after a call.
public enum StreamedProgress {
    /// Go on: read more of the body. Before `.begin`, `output` must stay empty.
    case more
    /// Before the answer has begun only: answer this instead, whole (a problem found in
    /// what was read so far); the rest of the body is not read and the connection closes.
    case respond(HTTPResponse)
    /// The answer begins: its status and header fields (its `body` is ignored; the body
    /// is what `output` holds now and later), and the names of the trailer fields it
    /// will end with (sent as `Trailer`). Only once; reading goes on.
    case begin(HTTPResponse, trailers: [String])
    /// The answer is complete: `output` holds its last bytes. The trailer fields are
    /// sent after the last chunk. With `readsRest` false the rest of the body is not
    /// read and the connection closes after the answer (a problem ended the stream);
    /// with true the body is read to its end and thrown away, and the connection may
    /// be kept. Returned once; no call follows.
    case end(trailers: [(String, String)], readsRest: Bool)
}

/// The media types a route takes as a stream, and how it makes a handler for one request.
public struct StreamedBody: Sendable {
    /// Media types (lower case, without parameters) whose bodies go to `handler`;
    /// any other body is read whole as the route's `body` says.
    public let mediaTypes: [String]
    /// Makes the handler of one request, given its head (`body` is empty).
    public let handler: @Sendable (HTTPRequest) -> any StreamedRequestHandler

    public init(mediaTypes: [String], handler: @escaping @Sendable (HTTPRequest) -> any StreamedRequestHandler) {
        self.mediaTypes = mediaTypes
        self.handler = handler
    }
}
