/// Why the audio route changed: the values of `AVAudioSession.RouteChangeReason`
/// (5 is not used by AVFoundation).
public enum RouteChangeReason: Int, CaseIterable, Sendable {
    case unknown = 0
    case newDeviceAvailable = 1
    /// The previous output (headphones, a Bluetooth speaker) went away.
    case oldDeviceUnavailable = 2
    case categoryChange = 3
    case override = 4
    case wakeFromSleep = 6
    case noSuitableRouteForCategory = 7
    case routeConfigurationChange = 8

    /// The Swift case name, as device logs and the service spell it.
    public var name: String {
        switch self {
        case .unknown: "unknown"
        case .newDeviceAvailable: "newDeviceAvailable"
        case .oldDeviceUnavailable: "oldDeviceUnavailable"
        case .categoryChange: "categoryChange"
        case .override: "override"
        case .wakeFromSleep: "wakeFromSleep"
        case .noSuitableRouteForCategory: "noSuitableRouteForCategory"
        case .routeConfigurationChange: "routeConfigurationChange"
        }
    }

    public init?(name: String) {
        guard let reason = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = reason
    }
}
