/// Splits an NDJSON body into its lines as its bytes arrive, in any split
/// (streaming.md, "Request"): lines end at LF, a CR before the LF is dropped, lines
/// of only spaces, tabs and CR are skipped (still counted), and the last line may
/// lack its LF. Each byte is looked at once; what is held is at most one line, so a
/// body of any length costs `maxLineBytes`: a longer line is reported as it passes
/// the bound, and its rest is dropped unread.
struct NDJSONLines {
    enum Element: Equatable {
        /// A line that is not blank, without its CR LF; `number` is 1-based, over every line of the body.
        case line(number: Int, bytes: [UInt8])
        /// The line `number` is longer than `maxLineBytes`.
        case tooLong(number: Int)
    }

    let maxLineBytes: Int
    /// The line being read so far.
    private var pending: [UInt8] = []
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
        while let element = next(bytes, from: &index) { elements.append(element) }
        return elements
    }

    /// The next line that `bytes[index...]` completes, with `index` moved past its LF
    /// (so a caller may stop between two lines and give the rest later); nil when no
    /// more line ends in them: then `index` is `bytes.count` and their last part is held.
    mutating func next(_ bytes: UnsafeRawBufferPointer, from index: inout Int) -> Element? {
        while index < bytes.count {
            let rest = bytes[index...]
            guard let newline = rest.firstIndex(of: UInt8(ascii: "\n")) else {
                index = bytes.count
                return skipping ? nil : hold(UnsafeRawBufferPointer(rebasing: rest))
            }
            var element: Element?
            if skipping {
                skipping = false
            } else if pending.isEmpty {
                // The whole line is in this read (most lines): taken from it in one copy.
                element = complete(UnsafeRawBufferPointer(rebasing: rest[..<newline]))
            } else {
                element = hold(UnsafeRawBufferPointer(rebasing: rest[..<newline]))
                if !skipping { element = pending.withUnsafeBytes { complete($0) } }
                skipping = false
            }
            pending.removeAll(keepingCapacity: true)
            number += 1
            index = newline + 1
            if let element { return element }
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
        var elements: [Element] = []
        if !skipping, !pending.isEmpty, let last = pending.withUnsafeBytes({ complete($0) }) { elements.append(last) }
        pending = []
        return elements
    }

    /// Adds part of the current line, or reports the line once it cannot fit: one
    /// byte more than the bound is held, for a CR that the LF may yet make optional.
    private mutating func hold(_ part: UnsafeRawBufferPointer) -> Element? {
        guard pending.count + part.count <= maxLineBytes + 1 else {
            pending.removeAll(keepingCapacity: true)
            skipping = true
            return .tooLong(number: number)
        }
        pending.append(contentsOf: part)
        return nil
    }

    private func complete(_ bytes: UnsafeRawBufferPointer) -> Element? {
        var line = bytes[...]
        if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
        func isBlank(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r") }
        if line.count > maxLineBytes {
            return .tooLong(number: number)
        } else if let first = line.first, !isBlank(first) || !line.allSatisfy(isBlank) {
            return .line(number: number, bytes: Array(line))
        }
        return nil
    }
}
