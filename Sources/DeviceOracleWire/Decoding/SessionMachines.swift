import DeviceOracleJSON

/// The machines of a log whose events may name a `session` (playback.md, "Several
/// playback sessions"): one per name, made when the first event names it, kept in
/// that order; an event without one belongs to `"default"`. Names are found by hash,
/// so a log of n sessions costs O(n) lookups rather than O(n²) comparisons.
struct SessionMachines<Machine> {
    private var names = ByteStringTable()
    /// In order of first appearance, numbered as `names` numbers them.
    var machines: [Machine] = []
    /// Where `"default"` is, once it exists: most logs name no session at all.
    private(set) var defaultIndex: Int?
    /// Whether any event named a session: the answer then lists every one.
    private(set) var anyNamed = false
    /// `"default"` is machine 0 and not yet in `names`: a log that names no session
    /// builds no table (its arrays and a hash were a tenth of a small request's
    /// instructions); the first named session puts it there, as number 0.
    private var defaultOutsideNames = false

    /// The session of an event naming `name` (or none), made by `make` on first sight.
    @inline(__always)
    mutating func index(of name: JSONValue?, in document: JSONDocument, make: () -> Machine) -> Int {
        guard let name else {
            if let defaultIndex { return defaultIndex }
            guard machines.isEmpty else {
                return defaultSessionName.withUnsafeBufferPointer { index(named: $0, make: make) }
            }
            machines.append(make())
            defaultIndex = 0
            defaultOutsideNames = true
            return 0
        }
        anyNamed = true
        return document.withUTF8(name) { index(named: $0, make: make) }
    }

    private mutating func index(named name: UnsafeBufferPointer<UInt8>, make: () -> Machine) -> Int {
        if defaultOutsideNames {
            defaultOutsideNames = false
            _ = defaultSessionName.withUnsafeBufferPointer { names.insert($0) }
        }
        let (index, inserted) = names.insert(name)
        if inserted {
            machines.append(make())
            if name.elementsEqual(defaultSessionName) { defaultIndex = index }
        }
        return index
    }

    /// Every session's name and machine, in order of first appearance.
    var sessions: [(name: [UInt8], machine: Machine)] {
        machines.indices.map { (defaultOutsideNames ? defaultSessionName : Array(names[$0]), machines[$0]) }
    }

    /// Hash-table slots visited so far: the work a test counts.
    var probes: Int { names.probes }
}

private let defaultSessionName = Array("default".utf8)
