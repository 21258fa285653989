/// The kind of background task an app schedules.
public enum BackgroundTaskKind: String, CaseIterable, Sendable {
    /// `BGAppRefreshTaskRequest`.
    case appRefresh
    /// `BGProcessingTaskRequest`.
    case processing

    /// The `UIBackgroundModes` entry without which the system never runs the task.
    public var backgroundMode: String {
        switch self {
        case .appRefresh: "fetch"
        case .processing: "processing"
        }
    }
}

/// A task the app registers and submits.
public struct BackgroundTask: Equatable, Sendable {
    public var identifier: String
    public var kind: BackgroundTaskKind

    public init(identifier: String, kind: BackgroundTaskKind) {
        self.identifier = identifier
        self.kind = kind
    }
}

/// One line of the app's own log of `register(forTaskWithIdentifier:using:launchHandler:)`.
public struct TaskRegistration: Equatable, Sendable {
    public var identifier: String
    /// What `register` returned.
    public var ok: Bool

    public init(identifier: String, ok: Bool) {
        self.identifier = identifier
        self.ok = ok
    }
}

/// The Info.plist keys the checks read.
public enum InfoPlistKey {
    public static let permittedIdentifiers = "BGTaskSchedulerPermittedIdentifiers"
    public static let backgroundModes = "UIBackgroundModes"
}

/// An array-of-strings key of the built Info.plist, as far as the checks read it.
public enum InfoPlistList: Equatable, Sendable {
    case missing
    case notAnArray
    /// The array's strings in order; elements of other types never match anything.
    case strings([String])
}

public enum ConfigCheckKind: String, CaseIterable, Sendable {
    case permittedIdentifier, backgroundMode, registered, uniqueIdentifiers
}

/// Why a check failed.
public enum ConfigCheckFailure: Equatable, Sendable {
    case keyMissing(key: String)
    case keyNotAnArray(key: String)
    /// With the first near miss in list order, if there is one.
    case notPermitted(nearMiss: String?)
    case backgroundModeMissing(mode: String, kind: BackgroundTaskKind)
    /// `registrations` has no entry for the identifier.
    case notRegistered
    /// Every entry for the identifier says `register` returned false.
    case registrationFailed
    /// Identifiers that appear more than once in `tasks`, in order of first repetition.
    case repeatedIdentifiers([String])
}

/// One check of one task (or, for `uniqueIdentifiers`, of all of them).
public struct ConfigCheck: Equatable, Sendable {
    public var check: ConfigCheckKind
    /// `nil` for `uniqueIdentifiers`, which checks the whole list.
    public var identifier: String?
    /// `nil` when the check passed.
    public var failure: ConfigCheckFailure?

    public init(check: ConfigCheckKind, identifier: String?, failure: ConfigCheckFailure? = nil) {
        self.check = check
        self.identifier = identifier
        self.failure = failure
    }

    public var passed: Bool { failure == nil }

    /// One sentence for a person; `nil` when the check passed.
    public var detail: String? {
        guard let failure else { return nil }
        let identifier = "'\(self.identifier ?? "")'"
        switch failure {
        case .keyMissing(let key):
            return "the Info.plist has no \(key) key"
        case .keyNotAnArray(let key):
            return "\(key) in the Info.plist is not an array"
        case .notPermitted(nil):
            return "\(identifier) is not in \(InfoPlistKey.permittedIdentifiers)"
        case .notPermitted(let nearMiss?):
            return "\(identifier) is not in \(InfoPlistKey.permittedIdentifiers); near miss: '\(nearMiss)'"
        case .backgroundModeMissing(let mode, let kind):
            return "\(InfoPlistKey.backgroundModes) has no '\(mode)', which \(kind.rawValue) tasks need"
        case .notRegistered:
            return "registrations has no entry for \(identifier)"
        case .registrationFailed:
            return "register(forTaskWithIdentifier:) returned false for \(identifier)"
        case .repeatedIdentifiers(let repeated):
            let names = repeated.map { "'\($0)'" }.joined(separator: ", ")
            return repeated.count == 1 ? "\(names) appears more than once in tasks"
                : "\(names) appear more than once in tasks"
        }
    }
}

/// The static half of `refresh/1`: whether the built app can run its tasks at
/// all. The system refuses to run a task whose identifier is not permitted
/// exactly, or whose kind lacks its background mode — failures no waiting for a
/// refresh in CI can tell apart from "the system just did not run it yet".
public struct RefreshConfig: Equatable, Sendable {
    public var tasks: [BackgroundTask]
    public var permittedIdentifiers: InfoPlistList
    public var backgroundModes: InfoPlistList
    /// `nil` when the app's registration log was not given: no `registered` checks.
    public var registrations: [TaskRegistration]?

    public init(tasks: [BackgroundTask], permittedIdentifiers: InfoPlistList, backgroundModes: InfoPlistList,
                registrations: [TaskRegistration]? = nil) {
        self.tasks = tasks
        self.permittedIdentifiers = permittedIdentifiers
        self.backgroundModes = backgroundModes
        self.registrations = registrations
    }

    /// Every check: per task `permittedIdentifier`, `backgroundMode` and (with
    /// registrations) `registered`, in task order; then `uniqueIdentifiers` once.
    public func checks() -> [ConfigCheck] {
        var checks: [ConfigCheck] = []
        checks.reserveCapacity(tasks.count * 3 + 1)
        var permitted = PermittedIdentifiers(permittedIdentifiers)
        var presentModes = LiteralKeySet()
        if case .strings(let modes) = backgroundModes { presentModes = LiteralKeySet(modes) }
        let registered = registrations.map(Self.registrationResults)
        for task in tasks {
            checks.append(ConfigCheck(check: .permittedIdentifier, identifier: task.identifier,
                                      failure: permitted.failure(for: task.identifier)))
            let modeFailure: ConfigCheckFailure? = switch backgroundModes {
            case .missing: .keyMissing(key: InfoPlistKey.backgroundModes)
            case .notAnArray: .keyNotAnArray(key: InfoPlistKey.backgroundModes)
            case .strings:
                presentModes.contains(LiteralKey(task.kind.backgroundMode)) ? nil
                    : .backgroundModeMissing(mode: task.kind.backgroundMode, kind: task.kind)
            }
            checks.append(ConfigCheck(check: .backgroundMode, identifier: task.identifier, failure: modeFailure))
            if let registered {
                let failure: ConfigCheckFailure? = switch registered[LiteralKey(task.identifier)] {
                case nil: .notRegistered
                case false?: .registrationFailed
                case true?: nil
                }
                checks.append(ConfigCheck(check: .registered, identifier: task.identifier, failure: failure))
            }
        }
        let repeated = LiteralKeySet.repeats(in: tasks.lazy.map(\.identifier))
        checks.append(ConfigCheck(check: .uniqueIdentifiers, identifier: nil,
                                  failure: repeated.isEmpty ? nil : .repeatedIdentifiers(repeated)))
        return checks
    }

    /// Per identifier, whether any entry says `register` returned true.
    private static func registrationResults(_ registrations: [TaskRegistration]) -> [LiteralKey: Bool] {
        var results: [LiteralKey: Bool] = [:]
        for registration in registrations {
            let key = LiteralKey(registration.identifier)
            results[key] = results[key] == true || registration.ok
        }
        return results
    }
}

/// `BGTaskSchedulerPermittedIdentifiers` with the lookups the check needs.
private struct PermittedIdentifiers {
    /// "One or two edits away" (refresh.md).
    static let nearMissEdits = 2
    /// Work the near-miss search may do over all tasks: one unit per candidate
    /// looked at, plus the edit-distance cells computed. A real Info.plist needs a
    /// few thousand; the bound keeps a request with hundreds of thousands of
    /// identifiers on both sides from occupying a core.
    static let nearMissBudget = 1 << 24

    let list: InfoPlistList
    private var exact = LiteralKeySet()
    /// Built on the first failed lookup: most configs never need it.
    private var candidates: [(identifier: String, scalars: [Unicode.Scalar])] = []
    private var firstIgnoringCase: [String: Int]?
    private var remainingWork = nearMissBudget

    init(_ list: InfoPlistList) {
        self.list = list
        if case .strings(let identifiers) = list { exact = LiteralKeySet(identifiers) }
    }

    mutating func failure(for identifier: String) -> ConfigCheckFailure? {
        switch list {
        case .missing: return .keyMissing(key: InfoPlistKey.permittedIdentifiers)
        case .notAnArray: return .keyNotAnArray(key: InfoPlistKey.permittedIdentifiers)
        case .strings(let identifiers):
            if exact.contains(LiteralKey(identifier)) { return nil }
            return .notPermitted(nearMiss: nearMiss(to: identifier, among: identifiers))
        }
    }

    /// The first identifier in list order that equals `identifier` ignoring case,
    /// or is one or two edits away.
    private mutating func nearMiss(to identifier: String, among identifiers: [String]) -> String? {
        if firstIgnoringCase == nil {
            var first: [String: Int] = [:]
            for (position, candidate) in identifiers.enumerated() where first[candidate.lowercased()] == nil {
                first[candidate.lowercased()] = position
            }
            firstIgnoringCase = first
            candidates = identifiers.map { ($0, Array($0.unicodeScalars)) }
        }
        let caseMatch = firstIgnoringCase?[identifier.lowercased()]
        let scalars = Array(identifier.unicodeScalars), limit = Self.nearMissEdits
        // Only an edit-distance match before the case-insensitive one comes first.
        for candidate in candidates[..<(caseMatch ?? candidates.count)] {
            guard remainingWork > 0 else { break }
            remainingWork -= 1
            guard abs(candidate.scalars.count - scalars.count) <= limit else { continue }
            let cells = (min(candidate.scalars.count, scalars.count) + 1) * (2 * limit + 1)
            guard remainingWork >= cells else {
                remainingWork = 0
                break
            }
            remainingWork -= cells
            if EditDistance.optimalStringAlignment(scalars, candidate.scalars, limit: limit) <= limit {
                return candidate.identifier
            }
        }
        return caseMatch.map { candidates[$0].identifier }
    }
}
