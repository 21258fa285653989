import Glibc
import Synchronization

/// The bytes that request bodies, the work on them and the answers in flight may hold
/// at once, shared by every loop. A request reserves its share before its body is read
/// (`memoryPerBodyByte` times its length) and keeps it until its answer has gone;
/// answer bytes a peer has not taken yet are counted as they wait. A request that
/// does not fit waits unread, then gets `503`: the process never grows past the budget
/// by more than the answers already made (an answer is never refused once built).
package final class MemoryBudget: Sendable {
    let limit: Int
    private let used = Atomic<Int>(0)

    init(limit: Int) {
        self.limit = limit
    }

    var usedBytes: Int { used.load(ordering: .relaxed) }

    /// Takes `bytes` if they fit, or if nothing else holds any: a request larger than
    /// the whole budget still runs alone rather than never.
    func reserve(_ bytes: Int) -> Bool {
        var current = used.load(ordering: .relaxed)
        while true {
            guard current == 0 || current + bytes <= limit else { return false }
            let (exchanged, original) = used.compareExchange(expected: current, desired: current + bytes, ordering: .relaxed)
            if exchanged { return true }
            current = original
        }
    }

    /// Counts bytes that are held already (an answer waiting for its peer): positive
    /// takes, negative gives back.
    func adjust(by bytes: Int) {
        used.add(bytes, ordering: .relaxed)
    }

    /// The default limit: half the memory limit of the process's cgroup when it has
    /// one (a container's `--memory`), else 512 MiB. Read once per process: every
    /// `ServerConfiguration` starts from it.
    package static let defaultLimit: (bytes: Int, source: String) = {
        if let cgroupLimit = cgroupMemoryLimit() { return (cgroupLimit / 2, "cgroup") }
        return (512 * 1024 * 1024, "default")
    }()

    /// The memory limit of the process's cgroup: v2's `memory.max` or v1's
    /// `memory.limit_in_bytes`, at the path `/proc/self/cgroup` names (a host) or at the
    /// mount's root (a container sees its own cgroup there). Nil when none names a
    /// limit (`max`, or v1's "unlimited", a number near 2^63).
    static func cgroupMemoryLimit(root: String = "/sys/fs/cgroup", membership: String = "/proc/self/cgroup") -> Int? {
        var candidates: [String] = []
        let lines = (readSmallFile(membership, limit: 4096) ?? []).split(separator: UInt8(ascii: "\n"))
        for line in lines {
            let parts = line.split(separator: UInt8(ascii: ":"), maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count == 3 else { continue }
            let controllers = String(decoding: parts[1], as: UTF8.self), path = String(decoding: parts[2], as: UTF8.self)
            if controllers.isEmpty { candidates.append("\(root)\(path)/memory.max") }
            if controllers.split(separator: ",").contains("memory") {
                candidates.append("\(root)/memory\(path)/memory.limit_in_bytes")
            }
        }
        candidates += ["\(root)/memory.max", "\(root)/memory/memory.limit_in_bytes"]
        for file in candidates {
            guard let text = readSmallFile(file, limit: 64) else { continue }
            let digits = text.prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
            guard !digits.isEmpty, digits.count < 19, let value = Int(String(decoding: digits, as: UTF8.self)) else {
                continue
            }
            if value > 0 && value < 1 << 50 { return value }
        }
        return nil
    }

    private static func readSmallFile(_ path: String, limit: Int) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: limit)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        return Array(buffer[0..<count])
    }
}
