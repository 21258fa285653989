import DeviceOracleJSON

/// The machines of a log whose events may name a `session` (playback.md, "Several
/// playback sessions"): one per name, made when the first event names it, kept in
/// that order; an event without one belongs to `"default"`. Names are found by hash,
/// so a log of n sessions costs O(n) lookups rather than O(n²) comparisons.
struct SessionMachines<Machine> {
    /// Machine 0, held inline: a log of one session (most) allocates nothing for its
    /// machines, and a request frees no table of names it never built.
    private var first: Machine?
    /// Once an event names a session: the names, and the machines after the first.
    private var named: Named?
    /// Where `"default"` is, once it exists: most logs name no session at all.
    private(set) var defaultIndex: Int?
    /// `"default"` is machine 0 and not yet in the names: a log that names no session
    /// builds no table (its arrays and a hash were a tenth of a small request's
    /// instructions); the first named session puts it there, as number 0.
    private var defaultOutsideNames = false

    private struct Named {
        var names = ByteStringTable()
        /// Machines 1 onwards, numbered as `names` numbers them.
        var machines: [Machine] = []
    }

    /// Whether any event named a session: the answer then lists every one.
    var anyNamed: Bool { named != nil }

    /// How many machines there are.
    var count: Int { first == nil ? 0 : 1 + (named?.machines.count ?? 0) }

    /// Machine `index`, as `index(of:in:make:)` numbered it (out of range, the same
    /// trap as an array's). Machines are small values: a step reads its machine once
    /// and sets it once.
    subscript(index: Int) -> Machine {
        @inline(__always) get {
            if index == 0, let first { return first }
            return (named?.machines ?? [])[index - 1]
        }
        @inline(__always) set {
            if index == 0 {
                first = newValue
            } else {
                var named = named.take() ?? Named()
                named.machines[index - 1] = newValue
                self.named = named
            }
        }
    }

    /// The session of an event naming `name` (or none), made by `make` on first sight.
    @inline(__always)
    mutating func index(of name: JSONValue?, in document: JSONDocument, make: () -> Machine) -> Int {
        guard let name else {
            if let defaultIndex { return defaultIndex }
            guard first == nil else {
                return defaultSessionName.withUnsafeBufferPointer { index(named: $0, make: make) }
            }
            first = make()
            defaultIndex = 0
            defaultOutsideNames = true
            return 0
        }
        return document.withUTF8(name) { index(named: $0, make: make) }
    }

    private mutating func index(named name: UnsafeBufferPointer<UInt8>, make: () -> Machine) -> Int {
        var named = named.take() ?? Named()
        defer { self.named = named }
        if defaultOutsideNames {
            defaultOutsideNames = false
            _ = defaultSessionName.withUnsafeBufferPointer { named.names.insert($0) }
        }
        let (index, inserted) = named.names.insert(name)
        if inserted {
            if first == nil { first = make() } else { named.machines.append(make()) }
            if name.elementsEqual(defaultSessionName) { defaultIndex = index }
        }
        return index
    }

    /// Every session's name and machine, in order of first appearance.
    var sessions: [(name: [UInt8], machine: Machine)] {
        (0..<count).map { (defaultOutsideNames ? defaultSessionName : Array(named?.names[$0] ?? []), self[$0]) }
    }

    /// Hash-table slots visited so far: the work a test counts.
    var probes: Int { named?.names.probes ?? 0 }
}

private let defaultSessionName = Array("default".utf8)
