import DeviceOracleJSON

/// The versions of one ruleset served at one path (common.md, "Versions"), newest
/// first. A request names the version it wants in its `ruleset` member; one that
/// names none gets the newest, one that names a version not served here is a `422`
/// at `/ruleset` that lists them all.
public struct RulesetVersions: Sendable {
    /// `/playback/apply`.
    public let path: String
    /// Every version served at `path`, newest first: `playback/2`, `playback/1`.
    public let versions: [RulesetEndpoint]
    /// What `check` and the model routes take for the newest: `playback`.
    public let shortName: String
    /// The names a request may pin, newest first.
    private let served: [StaticString]
    /// What the head line of an NDJSON body may name, in any version.
    let headMembers: Set<String>

    init(newestFirst versions: [RulesetEndpoint]) {
        self.versions = versions
        path = versions[0].path
        shortName = String(versions[0].shortName)
        served = versions.map(\.staticName)
        headMembers = versions.reduce(into: []) { $0.formUnion($1.headMembers) }
    }

    /// The version that answers requests that pin none.
    public var newest: RulesetEndpoint { versions[0] }

    /// The version a request object pins in its `ruleset` member; the newest when it
    /// pins none, or one not served here (that version's run reports it, listing all).
    func version(pinnedIn request: JSONValue, in document: JSONDocument) -> RulesetEndpoint {
        versions[versionIndex(pinnedIn: request, in: document)]
    }

    /// Where `version(pinnedIn:in:)` is in `versions`.
    private func versionIndex(pinnedIn request: JSONValue, in document: JSONDocument) -> Int {
        guard versions.count > 1, let pinned = document.member(request, "ruleset") else { return 0 }
        return versions.firstIndex { document.string(pinned, equals: $0.staticName) } ?? 0
    }

    /// Answers a request body with the version it pins. The body is parsed once: the
    /// version runs on the same document.
    public func answer(_ body: [UInt8]) -> Result<RulesetAnswer, RequestRejection> {
        switch RequestBody.parse(body) {
        case .success(let document): answer(document.root, at: "", in: document)
        case .failure(let rejection): .failure(rejection)
        }
    }

    /// The same for a request that is a value inside a parsed document (a case of a batch).
    func answer(_ request: JSONValue, at pointer: String, in document: JSONDocument) -> Result<RulesetAnswer, RequestRejection> {
        // Only the chosen version's `run` is read: a method called on the array's element
        // ran on a copy of the endpoint, each of its members retained and released (about
        // 600 instructions a request); the pin is checked against every version served here.
        RequestBody.answer(request, at: pointer, in: document, served: served,
                           run: versions[versionIndex(pinnedIn: request, in: document)].run)
    }

    /// The ruleset's side of one NDJSON request: the one version's stream, or one that
    /// follows the version the head line pins.
    func stream() -> LineStream {
        versions.count == 1 ? newest.stream() : LineStream(choosingAmong: self)
    }

    /// Reports a `ruleset` member that pins a version not served here.
    func checkPinnedRuleset(_ request: JSONValue, decoder: inout RequestDecoder) {
        RequestBody.checkPinnedRuleset(request, served: served, decoder: &decoder)
    }
}

/// Every ruleset version a build serves, grouped by path (`RulesetVersions`), each
/// path's versions newest first. A name is `<ruleset>/<version>`; the versions of one
/// path share the ruleset's name, and no name or short name is registered twice: a
/// registry that breaks this is refused (`RulesetRegistry.Conflict`), never trimmed.
public struct RulesetRegistry: Sendable {
    /// One per path, in the order their first version was given: `GET /rulesets`'s order.
    public let paths: [RulesetVersions]

    /// Why a list of endpoints is no registry.
    public struct Conflict: Error, Sendable, Equatable, CustomStringConvertible {
        public let description: String
    }

    public init(_ endpoints: [RulesetEndpoint]) throws(Conflict) {
        var groups: [[RulesetEndpoint]] = []
        var names: Set<String> = []
        for endpoint in endpoints {
            guard endpoint.version != nil else {
                throw Conflict(description: "ruleset '\(endpoint.name)' is not named <ruleset>/<version>")
            }
            guard names.insert(endpoint.name).inserted else {
                throw Conflict(description: "ruleset '\(endpoint.name)' is registered twice")
            }
            if let index = groups.firstIndex(where: { $0[0].path == endpoint.path }) {
                guard groups[index][0].shortName == endpoint.shortName else {
                    throw Conflict(description: "'\(endpoint.name)' is served at \(endpoint.path), where '\(groups[index][0].shortName)' is")
                }
                groups[index].append(endpoint)
            } else {
                if let other = groups.first(where: { $0[0].shortName == endpoint.shortName }) {
                    throw Conflict(description: "'\(endpoint.name)' is served at \(endpoint.path) and '\(other[0].name)' at \(other[0].path): the versions of one ruleset share a path")
                }
                groups.append([endpoint])
            }
        }
        paths = groups.map { group in
            RulesetVersions(newestFirst: group.sorted { ($0.version ?? 0) > ($1.version ?? 0) })
        }
    }

    /// Every version, path by path, newest first within a path.
    public var all: [RulesetEndpoint] { paths.flatMap(\.versions) }

    /// The version named `playback/1`, or the newest of the ruleset named `playback`.
    public func named(_ name: String) -> RulesetEndpoint? {
        for versions in paths {
            if versions.shortName == name { return versions.newest }
            if let version = versions.versions.first(where: { $0.name == name }) { return version }
        }
        return nil
    }

    /// The versions served at `path`.
    public func versions(at path: String) -> RulesetVersions? {
        paths.first { $0.path == path }
    }

    /// The names `check` and a batch take: every version's, and each ruleset's short name (its newest).
    var acceptedNames: [(String, RulesetEndpoint)] {
        all.map { ($0.name, $0) } + paths.map { ($0.shortName, $0.newest) }
    }
}
