/// A scalar a program adds to a parsed document (`JSONDocument.prepending`).
public enum AddedJSONValue: Sendable {
    case string(String)
    case number(Double)
}

extension JSONDocument {
    /// This document, whose root is an object, with `added` as the root's first members,
    /// and the root's own members of those names left out where they are `null` (a
    /// value given as `null` counts as not given). Made on the tape: the nodes are copied
    /// and the added text goes with the escaped strings, so nothing is parsed, and every
    /// other node keeps its place in the input (problems still point into the text that
    /// was read). `nil` when the root is not an object, or an added name is given a value
    /// other than `null` (the caller fills only what is missing).
    public func prepending(_ added: [(name: String, value: AddedJSONValue)]) -> JSONDocument? {
        guard kind(root) == .object else { return nil }
        let names = Set(added.map(\.name))
        // The root's members to keep, as node ranges.
        var kept: [Range<Int>] = []
        var keptNodes = 0
        var keyIndex = 1
        let rootEnd = next(after: 0)
        while keyIndex < rootEnd {
            let valueIndex = keyIndex + 1, end = next(after: valueIndex)
            let name = string(JSONValue(index: keyIndex)) ?? ""
            if names.contains(name) {
                guard isNull(JSONValue(index: valueIndex)) else { return nil }
            } else {
                kept.append(keyIndex..<end)
                keptNodes += end - keyIndex
            }
            keyIndex = end
        }

        var decodedBytes = decoded
        var tape = JSONNodeBuffer(capacity: 1 + 2 * added.count + keptNodes)
        let total = 1 + 2 * added.count + keptNodes
        tape.append(JSONNode(tag: .object, count: UInt32(added.count + kept.count), payload: UInt64(total)))
        func escapedString(_ text: String) -> JSONNode {
            let offset = decodedBytes.count
            decodedBytes.append(contentsOf: text.utf8)
            return JSONNode(tag: .escapedString, count: UInt32(text.utf8.count), payload: UInt64(offset))
        }
        for (name, value) in added {
            tape.append(escapedString(name))
            switch value {
            case .string(let text): tape.append(escapedString(text))
            case .number(let number): tape.append(JSONNode(tag: .number, payload: number.bitPattern))
            }
        }
        // Each kept node moves by its range's shift; a container's end with it.
        var shifts: [(range: Range<Int>, shift: Int)] = []
        for range in kept {
            let shift = tape.count - range.lowerBound
            shifts.append((range, shift))
            for index in range {
                var node = nodes[index]
                if node.tag == .array || node.tag == .object { node.payload = UInt64(Int(node.payload) + shift) }
                tape.append(node)
            }
        }
        let duplicates = duplicateKeys.compactMap { key in
            shifts.first { $0.range.contains(key.index) }.map { JSONValue(index: key.index + $0.shift) }
        }
        return JSONDocument(input: input, nodes: tape, decoded: decodedBytes, duplicateKeys: duplicates)
    }
}
