import DeviceOracleRules
import Dispatch

/// The event mix of ../shared/bench/bodies/gen-large.py (same LCG), so the
/// in-process number and the HTTP number describe the same log.
func playbackEvents(count: Int) -> [PlaybackEvent] {
    var x: UInt64 = 12345
    return (0..<count).map { _ in
        x = (x &* 1_103_515_245 &+ 12345) % (1 << 31)
        switch (x >> 16) % 5 {
        case 0: return .interruptionBegan
        case 1: return .interruptionEnded(shouldResume: (x >> 8) % 4 != 0)
        case 2: return .outputDisconnected
        case 3: return .userPaused
        default: return .userPlayed
        }
    }
}

let events = playbackEvents(count: 1_000_000)
let rounds = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 21
var rates: [Double] = []
var plays = 0  // consumed below so the loop cannot be optimised away
for _ in 0..<rounds {
    var machine = PlaybackMachine(state: PlaybackState(isPlaying: true))
    let start = DispatchTime.now().uptimeNanoseconds
    for event in events where machine.apply(event).action == .play { plays += 1 }
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    rates.append(Double(events.count) / seconds)
}
rates.sort()
let median = rates[rates.count / 2]
print("playback rules: median \(Int(median / 1e6)) million events/s over \(rounds) rounds of \(events.count) events (plays: \(plays / rounds))")
