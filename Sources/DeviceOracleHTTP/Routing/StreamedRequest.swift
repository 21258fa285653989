/// A request body handled as it arrives rather than collected first: for bodies of any
/// length (a soak run's log), answered as they are read. The server frames the body
/// (Content-Length or chunked), hands its bytes over read by read, and frames the answer
/// (chunked with trailers; close-delimited to an HTTP/1.0 client). What the bytes mean
/// is the handler's business: the server knows no line, no JSON.
///
/// One handler serves one request, on the connection's event loop, one call at a time.
/// Output is produced under backpressure: while answer bytes wait for a slow peer, no
/// more body is read (and so no more is handed over), and a handler whose output passes
/// its high-water mark in the middle of one read stops there (`pause`): the server keeps
/// the rest of that read and hands it over first once the output has gone. So a
/// request's memory stays what the handler keeps (`heldBytes`) plus one read plus what
/// waits to be sent, and the memory budget counts exactly that.
///
/// Bounds: `--max-body-bytes` does not apply, `--max-stream-bytes` does (`413` before the
/// answer has begun). The body timeout applies between reads; the minimum receive rate
/// applies per unit of the body: its clock restarts whenever a call returns
/// `completedUnit` or `pause` (and when reading resumes after the answer waited for the
/// peer: that wait was not the sender's). A stream the server ends after its answer
/// began (the stream limit, a timeout, the minimum rate, a framing error, the memory
/// budget) is ended by the handler's `cut`, in-band; a handler without one hears
/// nothing more and the connection closes after what was written, so the answer lacks
/// its last chunk.
package protocol StreamedRequestHandler: AnyObject {
    /// The next bytes of the body (one read's worth at most). Answer body bytes go into
    /// `output` (without framing) once the answer has begun. Right after a call returns
    /// `begin` before the body has ended, `receive` is called once more with no bytes,
    /// for what that call had decided after the answer began (its end, say).
    func receive(_ bytes: UnsafeRawBufferPointer, output: inout [UInt8]) -> StreamedProgress
    /// The body has ended: every byte of it was given to `receive`. Called again after
    /// it returns `begin` (the answer can begin only once the body has ended), until it
    /// returns `end` or `respond`.
    func bodyEnded(output: inout [UInt8]) -> StreamedProgress
    /// The bytes the handler holds now beyond what `StreamedBody.memoryShare` covers
    /// (a long line read so far, the state the body built, its summary's lists): the
    /// stream's share of the memory budget follows it after every call. 0 by default.
    var heldBytes: Int { get }
    /// The server ends the stream after its answer began (`problem` says why: a line
    /// slower than the minimum rate, the body timeout, the stream limit, a framing error,
    /// the memory budget). The handler writes its answer's last bytes saying so and
    /// returns `end` (its `readsRest` is ignored: nothing more is read). Nil, the
    /// default: the connection closes after what was written.
    func cut(_ problem: HTTPError, output: inout [UInt8]) -> StreamedProgress?
}

extension StreamedRequestHandler {
    package var heldBytes: Int { 0 }
    package func cut(_ problem: HTTPError, output: inout [UInt8]) -> StreamedProgress? { nil }
}

/// What a `StreamedRequestHandler` decided after a call.
package enum StreamedProgress {
    /// Go on: read more of the body. Before `.begin`, `output` must stay empty.
    case more
    /// Go on, as `more`; and these bytes completed at least one unit of the body (for
    /// NDJSON, a line). The minimum-rate clock restarts: a stream of units that each
    /// arrive at the minimum rate is never cut for its average, however long it runs.
    case completedUnit
    /// Once the answer has begun: the output passed the handler's high-water mark, so it
    /// stopped between two units, taking all but the last `unread` bytes of the bytes it
    /// was last given (by this call, or by the call that returned `begin` just before).
    /// Those are handed over again, first, once the output has been sent; reading waits
    /// until then. At least one unit was completed (the rate clock restarts).
    case pause(unread: Int)
    /// Before the answer has begun only: answer this instead, whole (a problem found in
    /// what was read so far); the rest of the body is not read and the connection closes.
    case respond(HTTPResponse)
    /// The answer begins: its status and header fields (its `body` is ignored; the body
    /// is what `output` holds now and later), and the names of the trailer fields it
    /// will end with (sent as `Trailer`). Only once; reading goes on.
    case begin(HTTPResponse, trailers: [String])
    /// The answer is complete: `output` holds its last bytes. The trailer fields are
    /// sent after the last chunk; `logFields` join the access line (as an
    /// `HTTPResponse`'s do: `("verdict", "pass")`). With `readsRest` false the rest of the
    /// body is not read and the connection closes after the answer (a problem ended the
    /// stream); with true the body is read to its end and thrown away, and the connection
    /// may be kept. Returned once; no call follows.
    case end(trailers: [(String, String)], readsRest: Bool, logFields: [LogField] = [])
}

/// The media types a route takes as a stream, and how it makes a handler for one request.
package struct StreamedBody: Sendable {
    /// What one streamed request holds of the memory budget at least, whatever its
    /// length: a read (64 KiB) kept while the answer waits, a short line and the
    /// handler's fixed state. What the handler holds beyond (`heldBytes`) and the output
    /// waiting for the peer are counted as they are held.
    package static let defaultMemoryShare = 256 * 1024
    /// The answer bytes a handler writes in one call before it stops between two units
    /// (`StreamedProgress.pause`): the connection's own high-water mark for output.
    package static let outputHighWater = 256 * 1024

    /// Media types (lower case, without parameters) whose bodies go to `handler`;
    /// any other body is read whole as the route's `body` says.
    package let mediaTypes: [String]
    /// What one request is counted at in the memory budget at least (see `heldBytes`).
    package let memoryShare: Int
    /// Makes the handler of one request, given its head (`body` is empty).
    package let handler: @Sendable (HTTPRequest) -> any StreamedRequestHandler

    package init(mediaTypes: [String], memoryShare: Int = StreamedBody.defaultMemoryShare,
                handler: @escaping @Sendable (HTTPRequest) -> any StreamedRequestHandler) {
        self.mediaTypes = mediaTypes
        self.memoryShare = memoryShare
        self.handler = handler
    }
}
