import DeviceOracleRecorder
import Foundation

/// The messages a recorder wrote, as a sink collects them. No lock of its own: the
/// recorder calls its sink one message at a time, which is what the concurrency test
/// relies on (@unchecked: guarded by the recorder's lock, read after the writers end).
final class Messages: @unchecked Sendable {
    var lines: [String] = []

    /// A recorder whose sink appends here.
    func recorder() -> Recorder { Recorder { [self] in lines.append($0) } }

    /// Each message parsed back (JSONSerialization), for comparing as values.
    var objects: [NSDictionary] {
        lines.compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? NSDictionary }
    }

    /// The messages as an NDJSON body, one per line.
    var ndjson: String { lines.map { $0 + "\n" }.joined() }
}

/// A value some notification observer changes (@unchecked: guarded by its lock).
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}

/// An app's playback adapter, as an app writes one: it decides on each AVAudioSession
/// notification, then records the notification with what it decided. `honoursShouldResume`
/// false is the bug the oracle finds.
final class PlayerAdapter: Sendable {
    private let recorder: Recorder
    private let isPlaying: Locked<Bool>
    private let honoursShouldResume: Bool
    private let errors = Locked<[RecorderError]>([])
    private let observers = Locked<[NSObjectProtocol]>([])

    init(recorder: Recorder, isPlaying: Bool, honoursShouldResume: Bool = true) {
        self.recorder = recorder
        self.isPlaying = Locked(isPlaying)
        self.honoursShouldResume = honoursShouldResume
    }

    var recordingErrors: [RecorderError] { errors.withLock { $0 } }

    func observe(_ center: NotificationCenter) {
        let observer = center.addObserver(forName: .interruption, object: nil, queue: nil) { [self] notification in
            let playing = isPlaying.withLock { playing in
                let type = (notification.userInfo?["AVAudioSessionInterruptionTypeKey"] as? NSNumber)?.uintValue
                let options = (notification.userInfo?["AVAudioSessionInterruptionOptionKey"] as? NSNumber)?.uintValue ?? 0
                if type == 1 { playing = false }
                if type == 0, options & 1 == 1, honoursShouldResume { playing = true }
                return playing
            }
            do throws(RecorderError) {
                try recorder.record(notification, observed: ["isPlaying": playing])
            } catch {
                errors.withLock { $0.append(error) }
            }
        }
        observers.withLock { $0.append(observer) }
    }
}

extension Notification.Name {
    static let interruption = Notification.Name("AVAudioSessionInterruptionNotification")
    static let routeChange = Notification.Name("AVAudioSessionRouteChangeNotification")
}
