/// RFC 6901 JSON Pointers, built only when a problem is reported: the tape knows
/// every value's position, so a pointer is found by descending from the root. The
/// descent steps over the earlier siblings at each level, so a pointer to the k-th
/// element costs O(k): a caller reporting on every element of a long array starts
/// from the element it knows (`from:`) instead of from the root.
extension JSONDocument {
    /// The pointer to `target` (a value, or an object key, which points at its member)
    /// relative to `ancestor`, a container holding it (or `target` itself: "").
    public func pointer(to target: JSONValue, from ancestor: JSONValue = JSONValue(index: 0)) -> String {
        precondition(ancestor.index <= target.index && target.index < end(of: ancestor),
                     "pointer target is not inside the ancestor")
        var pointer = ""
        var current = ancestor.index
        while current != target.index {
            let node = nodes[current]
            var child = current + 1
            var found = false
            if node.tag == .array {
                for position in 0..<Int(node.count) {
                    let end = next(after: child)
                    if target.index < end {
                        pointer += "/\(position)"
                        current = child
                        found = true
                        break
                    }
                    child = end
                }
            } else if node.tag == .object {
                for _ in 0..<Int(node.count) {
                    let end = next(after: child + 1)
                    if target.index < end {
                        pointer += "/" + Self.escapePointerToken(string(JSONValue(index: child)) ?? "")
                        // A key node stands for its member.
                        current = target.index == child ? target.index : child + 1
                        found = true
                        break
                    }
                    child = end
                }
            }
            precondition(found, "pointer target is not inside the document")
        }
        return pointer
    }

    /// `~` → `~0`, `/` → `~1` (RFC 6901 §3).
    public static func escapePointerToken(_ token: String) -> String {
        guard token.contains(where: { $0 == "~" || $0 == "/" }) else { return token }
        return token.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
    }
}

private extension String {
    func replacingOccurrences(of target: Character, with replacement: String) -> String {
        var result = ""
        for character in self {
            if character == target { result += replacement } else { result.append(character) }
        }
        return result
    }
}
