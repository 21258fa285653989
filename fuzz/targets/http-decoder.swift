// libFuzzer target: the HTTP/1.1 request decoder fed arbitrary bytes, split at
// arbitrary points across reads. Written against `RequestFramer.feed` alone, the
// decoder's whole contract with the connection, so it survives changes inside it.
//
// Input layout: byte 0 chooses the limits and how many split lengths follow
// (up to 7); those bytes are the lengths of the first reads; the rest is the stream.
// An input that is a valid request after its first byte decodes as one.
@testable import DeviceOracleHTTP

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    guard let control = input.first else { return 0 }
    let splitCount = min(Int(control & 0b111), input.count - 1)
    let stream = Array(input[(1 + splitCount)...])
    var reads: [[UInt8]] = []
    var start = 0
    for length in input[1..<(1 + splitCount)] {
        let end = min(stream.count, start + Int(length))
        reads.append(Array(stream[start..<end]))
        start = end
    }
    reads.append(Array(stream[start...]))

    // Small limits reach 413, 414 and 431 with short inputs.
    let maxBodyBytes = [1 << 20, 64, 0, 5][Int(control >> 3) & 0b11]
    var limits = HeadLimits()
    if control & 0b0010_0000 != 0 {
        limits.maxHeadBytes = 96
        limits.maxFields = 3
        limits.maxTargetBytes = 12
        limits.maxMethodBytes = 4
    }
    let oneByteAtATime = control & 0b0100_0000 != 0

    let whole = Decoded(feeding: [stream], limits: limits, maxBodyBytes: maxBodyBytes)
    let split = Decoded(feeding: oneByteAtATime ? stream.map { [$0] } : reads, limits: limits,
                        maxBodyBytes: maxBodyBytes)
    // How the bytes arrive never changes what they mean.
    precondition(whole.elements == split.elements, "split reads decode differently:\n\(whole.elements)\n\(split.elements)")
    whole.checkShape(maxBodyBytes: maxBodyBytes)
    return 0
}

/// The decoder's output with body parts joined per request, so reads split
/// differently compare equal.
struct Decoded {
    enum Element: Equatable {
        case head(Head)
        case body([UInt8])
        case end
        case failure(status: Int, detail: String)
    }

    /// What a head means, compared field by field.
    struct Head: Equatable {
        var method: String
        var target: String
        var version: String
        var headers: [String]
        var framing: BodyFraming
    }

    private(set) var elements: [Element] = []
    /// Elements the decoder returned after it had failed: there must be none.
    private(set) var afterFailure = 0

    init(feeding reads: [[UInt8]], limits: HeadLimits, maxBodyBytes: Int) {
        var decoder = RequestFramer(limits: limits, maxBodyBytes: maxBodyBytes)
        for read in reads {
            for element in decoder.feed(read) { append(element) }
        }
        // Once failed, the stream cannot be trusted: a valid request after it is not decoded.
        if case .failure? = elements.last {
            afterFailure += decoder.feed(Array("GET / HTTP/1.1\r\nHost: a\r\n\r\n".utf8)).count
        }
    }

    private mutating func append(_ element: RequestFramer.Element) {
        if case .failure? = elements.last { afterFailure += 1 }
        switch element {
        case .head(let head):
            elements.append(.head(Head(method: head.method.rawValue, target: "\(head.target)",
                                       version: "\(head.version)", headers: head.headers.map { "\($0.name): \($0.value)" },
                                       framing: head.framing)))
        case .body(let bytes):
            if case .body(let earlier)? = elements.last {
                elements[elements.count - 1] = .body(earlier + bytes)
            } else {
                elements.append(.body(bytes))
            }
        case .end:
            elements.append(.end)
        case .failure(let error):
            elements.append(.failure(status: error.status, detail: error.detail))
        }
    }

    /// Every request is a head, its body, then its end; a failure ends the stream.
    func checkShape(maxBodyBytes: Int) {
        precondition(afterFailure == 0, "the decoder went on after a failure")
        var framing: BodyFraming?
        var bodyBytes = 0
        for element in elements {
            switch element {
            case .head(let head):
                precondition(framing == nil, "a head inside a request")
                framing = head.framing
                bodyBytes = 0
            case .body(let bytes):
                precondition(framing != nil && framing != BodyFraming.none, "body bytes without a framed body")
                bodyBytes += bytes.count
                precondition(bodyBytes <= maxBodyBytes, "a body past the limit was passed on")
            case .end:
                guard let current = framing else { preconditionFailure("an end without a head") }
                if case .length(let length) = current {
                    precondition(bodyBytes == length, "a body of \(bodyBytes) bytes ended for Content-Length \(length)")
                }
                framing = nil
            case .failure(let status, _):
                precondition((400...599).contains(status), "a failure with status \(status)")
            }
        }
    }
}
