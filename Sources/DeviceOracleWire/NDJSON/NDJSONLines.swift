/// Splits an NDJSON body into its lines as its bytes arrive, in any split
/// (streaming.md, "Request"): lines end at LF, a CR before the LF is dropped, lines
/// of only spaces, tabs and CR are skipped (still counted), and the last line may
/// lack its LF. Each byte is looked at once; what is held is at most one line, so a
/// body of any length costs `maxLineBytes`: a longer line is reported as it passes
/// the bound, and its rest is dropped unread.
struct NDJSONLines {
    /// A line as `next` hands it over: its bytes are lent, valid until the next call.
    enum Piece {
        /// A line that is not blank, without its CR LF; `number` is 1-based, over every line of the body.
        case line(number: Int, bytes: UnsafeRawBufferPointer)
        /// The line `number` is longer than `maxLineBytes`.
        case tooLong(number: Int)
    }

    /// A line as `feed` and `finish` hand it over, its bytes copied.
    enum Element: Equatable {
        case line(number: Int, bytes: [UInt8])
        case tooLong(number: Int)

        init(_ piece: Piece) {
            switch piece {
            case .line(let number, let bytes): self = .line(number: number, bytes: Array(bytes))
            case .tooLong(let number): self = .tooLong(number: number)
            }
        }
    }

    let maxLineBytes: Int
    /// The line being read so far.
    private var pending: [UInt8] = []
    /// `pending` holds a line lent by the last call: emptied by the next.
    private var pendingLent = false
    private var number = 1
    /// The rest of a line already reported too long.
    private var skipping = false

    init(maxLineBytes: Int) {
        self.maxLineBytes = maxLineBytes
    }

    /// The lines that `bytes` completes, in order.
    mutating func feed(_ bytes: UnsafeRawBufferPointer) -> [Element] {
        var elements: [Element] = []
        var index = 0
        while let piece = next(bytes, from: &index) { elements.append(Element(piece)) }
        return elements
    }

    /// The next line that `bytes[index...]` completes, with `index` moved past its LF
    /// (so a caller may stop between two lines and give the rest later); nil when no
    /// more line ends in them: then `index` is `bytes.count` and their last part is held.
    /// A line's bytes are `bytes`' own when the line lies whole in them (most lines:
    /// nothing is copied), else the held part's.
    mutating func next(_ bytes: UnsafeRawBufferPointer, from index: inout Int) -> Piece? {
        releaseLent()
        while index < bytes.count {
            guard let newline = Self.firstNewline(in: bytes, from: index) else {
                defer { index = bytes.count }
                return skipping ? nil : hold(UnsafeRawBufferPointer(rebasing: bytes[index...]))
            }
            let part = UnsafeRawBufferPointer(rebasing: bytes[index..<newline])
            index = newline + 1
            var piece: Piece?
            if skipping {
                skipping = false
            } else if pending.isEmpty {
                // The whole line is in this read (most lines): lent from it as it is.
                piece = complete(part)
            } else {
                piece = hold(part)
                if !skipping {
                    // Lent from `pending`, which stays as it is until the next call.
                    piece = pending.withUnsafeBytes { complete($0) }
                    pendingLent = piece != nil
                }
                skipping = false
            }
            if !pendingLent, !pending.isEmpty { pending.removeAll(keepingCapacity: true) }
            number += 1
            if let piece { return piece }
        }
        return nil
    }

    /// The bytes of the line being read so far (at most `maxLineBytes` + 1).
    var heldBytes: Int { pending.capacity }

    mutating func feed(_ bytes: [UInt8]) -> [Element] {
        bytes.withUnsafeBytes { feed($0) }
    }

    /// The body has ended: its last line, when it had no LF.
    mutating func finish() -> [Element] {
        releaseLent()
        var elements: [Element] = []
        if !skipping, !pending.isEmpty, let last = pending.withUnsafeBytes({ complete($0) }) { elements.append(Element(last)) }
        pending = []
        return elements
    }

    /// Empties the held line that the last call lent, once its reader is done with it.
    private mutating func releaseLent() {
        guard pendingLent else { return }
        pendingLent = false
        pending.removeAll(keepingCapacity: true)
    }

    /// Adds part of the current line, or reports the line once it cannot fit: one
    /// byte more than the bound is held, for a CR that the LF may yet make optional.
    private mutating func hold(_ part: UnsafeRawBufferPointer) -> Piece? {
        guard pending.count + part.count <= maxLineBytes + 1 else {
            pending.removeAll(keepingCapacity: true)
            skipping = true
            return .tooLong(number: number)
        }
        pending.append(contentsOf: part.assumingMemoryBound(to: UInt8.self))
        return nil
    }

    private func complete(_ bytes: UnsafeRawBufferPointer) -> Piece? {
        // By count and index, not `Slice.last`/`dropLast`: their generic code was called per line.
        var count = bytes.count
        if count > 0, bytes[count - 1] == UInt8(ascii: "\r") { count -= 1 }
        let line = UnsafeRawBufferPointer(start: bytes.baseAddress, count: count)
        func isBlank(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r") }
        if count > maxLineBytes {
            return .tooLong(number: number)
        } else if count > 0, !isBlank(line[0]) || !line.allSatisfy(isBlank) {
            return .line(number: number, bytes: line)
        }
        return nil
    }

    /// The index of the first LF in `bytes[start...]`, eight bytes at a time (SWAR): a
    /// byte-by-byte search was a seventh of a long log's instructions.
    @inline(__always)
    static func firstNewline(in bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        guard let base = bytes.baseAddress else { return nil }
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        let newlines = ones &* UInt64(UInt8(ascii: "\n"))
        // Wrapping arithmetic: an index never passes the count, and a check for overflow
        // on each step was a sixth of the loop.
        var index = start
        let lastWord = bytes.count &- 8
        while index <= lastWord {
            let word = (base + index).loadUnaligned(as: UInt64.self) ^ newlines
            // The lowest byte flagged is exactly the first zero byte (an LF in `word`).
            let flagged = (word &- ones) & ~word & highs
            if flagged != 0 { return index &+ flagged.trailingZeroBitCount &>> 3 }
            index &+= 8
        }
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "\n") { return index }
            index += 1
        }
        return nil
    }
}
