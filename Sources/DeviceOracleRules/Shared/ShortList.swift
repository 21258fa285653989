/// A list of at most four elements, held inline: a decision's actions and
/// diagnostics as the oracle's engine carries them. An array is allocated for each
/// decision that lists anything and freed after it; a short list is copied as plain
/// bytes (bench/RESULTS.md, issue 17). The public decisions keep their arrays.
///
/// Inlined into every use and without collection protocols: unspecialized, each
/// element would cost a metadata lookup. Public for that, as the engine's SPI only
/// (`@_spi(Engine) import`): package-level bodies were not inlined in the wire module.
@frozen
@_spi(Engine) public struct ShortList<Element: Equatable & Sendable>: Equatable, Sendable {
    public static var capacity: Int { 4 }

    @usableFromInline var elements: (Element?, Element?, Element?, Element?)
    @usableFromInline var storedCount: Int

    /// The list of the leading non-`nil` arguments: `ShortList(.setCategory, .addObservers)`.
    @inlinable @inline(__always)
    public init(_ first: Element? = nil, _ second: Element? = nil, _ third: Element? = nil, _ fourth: Element? = nil) {
        elements = (first, second, third, fourth)
        storedCount = first == nil ? 0 : second == nil ? 1 : third == nil ? 2 : fourth == nil ? 3 : 4
    }

    @inlinable
    public var count: Int { storedCount }

    @inlinable
    public var isEmpty: Bool { storedCount == 0 }

    @inlinable @inline(__always)
    public mutating func append(_ element: Element) {
        switch storedCount {
        case 0: elements.0 = element
        case 1: elements.1 = element
        case 2: elements.2 = element
        case 3: elements.3 = element
        default: preconditionFailure("a short list holds at most \(Self.capacity) elements")
        }
        storedCount += 1
    }

    /// Calls `body` on each element, in order.
    @inlinable @inline(__always)
    public func forEach(_ body: (Element) -> Void) {
        if storedCount > 0, let element = elements.0 { body(element) }
        if storedCount > 1, let element = elements.1 { body(element) }
        if storedCount > 2, let element = elements.2 { body(element) }
        if storedCount > 3, let element = elements.3 { body(element) }
    }

    @inlinable
    public func map<T>(_ transform: (Element) -> T) -> [T] {
        var mapped: [T] = []
        mapped.reserveCapacity(storedCount)
        forEach { mapped.append(transform($0)) }
        return mapped
    }

    @inlinable
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.storedCount == rhs.storedCount
            && (lhs.storedCount < 1 || lhs.elements.0 == rhs.elements.0)
            && (lhs.storedCount < 2 || lhs.elements.1 == rhs.elements.1)
            && (lhs.storedCount < 3 || lhs.elements.2 == rhs.elements.2)
            && (lhs.storedCount < 4 || lhs.elements.3 == rhs.elements.3)
    }

    /// The elements as the public decisions list them.
    @inlinable
    public var array: [Element] { map { $0 } }
}
