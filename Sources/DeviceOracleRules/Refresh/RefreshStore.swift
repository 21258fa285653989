/// One record of the app's local store. `id` is the stable business key the
/// upsert matches on; `content` is everything else, opaque to the rules (the
/// service keeps the item as it came in the request, an app's test its own model).
public struct RefreshItem<Content> {
    public var id: String
    public var content: Content

    @inlinable
    public init(id: String, content: Content) {
        self.id = id
        self.content = content
    }
}

extension RefreshItem: Equatable where Content: Equatable {}
extension RefreshItem: Sendable where Content: Sendable {}

/// The local store the refresh job writes: the items, the server cursor to resume
/// from, and when a refresh last succeeded (`at` of that run, in seconds).
public struct RefreshStore<Content> {
    /// In insertion order; an upsert replaces in place, so no `id` appears twice.
    public var items: [RefreshItem<Content>] { stored }
    @usableFromInline var stored: [RefreshItem<Content>] = []
    public var cursor: String?
    public var lastSuccessAt: Double?
    /// Where each id sits in `items`, once there are more than
    /// `LiteralKey.linearSearchLimit` (a smaller store, as a request's usually is, is
    /// searched item by item); ids compare literally.
    @usableFromInline var positions: [LiteralKey: Int] = [:]

    /// A store holding `items` upserted in order: a repeated id replaces the
    /// earlier item at the earlier one's position.
    public init(items: [RefreshItem<Content>] = [], cursor: String? = nil, lastSuccessAt: Double? = nil) {
        self.cursor = cursor
        self.lastSuccessAt = lastSuccessAt
        for item in items { upsert(item) }
    }

    /// Replaces the item with the same id in place, or appends a new one.
    /// Returns whether an item was replaced.
    @discardableResult @inlinable @inline(__always)
    public mutating func upsert(_ item: RefreshItem<Content>) -> Bool {
        let key = LiteralKey(item.id)
        if let position = position(of: key) {
            stored[position] = item
            return true
        }
        if stored.count < LiteralKey.linearSearchLimit {
            stored.append(item)
            return false
        }
        if stored.count == LiteralKey.linearSearchLimit {
            // Past the scan: index every item so far once.
            for (position, earlier) in stored.enumerated() { positions[LiteralKey(earlier.id)] = position }
        }
        positions[key] = stored.count
        stored.append(item)
        return false
    }

    @inlinable @inline(__always)
    func position(of key: LiteralKey) -> Int? {
        guard stored.count <= LiteralKey.linearSearchLimit else { return positions[key] }
        return stored.firstIndex { LiteralKey($0.id) == key }
    }

    /// The item with this id, if the store holds one.
    public func item(withID id: String) -> RefreshItem<Content>? {
        position(of: LiteralKey(id)).map { stored[$0] }
    }
}

extension RefreshStore: Equatable where Content: Equatable {
    public static func == (a: RefreshStore, b: RefreshStore) -> Bool {
        a.items == b.items && a.cursor == b.cursor && a.lastSuccessAt == b.lastSuccessAt
    }
}

extension RefreshStore: Sendable where Content: Sendable {}
