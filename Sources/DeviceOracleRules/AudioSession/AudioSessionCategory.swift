/// The `AVAudioSession.Category` the game sets on the shared session.
public enum AudioSessionCategory: String, CaseIterable, Sendable {
    /// Mixes with other apps' music and respects the silent switch: what a game's
    /// sound effects want.
    case ambient
    /// Takes audio exclusively (the system's default category).
    case soloAmbient
    /// Takes audio exclusively and ignores the silent switch.
    case playback

    /// Whether setting it silences other apps' music — a game rarely needs that.
    public var isExclusive: Bool {
        switch self {
        case .ambient: false
        case .soloAmbient, .playback: true
        }
    }
}
