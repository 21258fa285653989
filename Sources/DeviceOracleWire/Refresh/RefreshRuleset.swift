import DeviceOracleJSON
import DeviceOracleRules

/// `POST /refresh/run` (refresh.md): checks the static configuration, runs the
/// refresh job over the runs the system delivered, and writes every step. Its state
/// is a store of any size, so its steps are run and written one by one
/// (`RefreshSteps`), not precomputed.
///
/// Answer members, in this order: `ruleset`, `configCheck` (when `config` was
/// given), `final`, `steps`, `summary`, `verdict`, `mismatches`, `diagnostics`.
/// A step: `index`, `id` (when the run had one), `at`, `outcome`,
/// `taskCompleted`, `pagesCommitted`, `commits`, `tempFilesLeft`, `before`,
/// `after`, `actions`, `nextEarliestBeginAt`.
enum RefreshRuleset: RulesetDescription {
    typealias Steps = RefreshSteps

    static let endpoint = EventLogDriver<Self>.endpoint(
        "refresh/1", path: "/refresh/run",
        summary: "Background app refresh: the built Info.plist's task registration, and the sync job's outcome under success, error, expiry, crash and repetition.",
        model: RulesetModel(RefreshModelCoding()))

    /// Refresh's own top-level members: `store` is where its log starts (`RefreshSteps`);
    /// its `initial` is only refused (`"unknown"`).
    enum Setting: String, NamedCase {
        case config, store, schedule
    }

    /// What a run's `observed` may name, in documented order, each read from the run's
    /// decision and the store after it; `items` is compared as a set (`ObservedItems`).
    static let stepFields: [ObservedField<Self, RunOutcome>] = [
        .read("outcome") { .string($0.decision.outcome.rawValue) },
        .read("taskCompleted") { $0.decision.taskCompleted.map(FieldValue.bool) ?? .null },
        .read("pagesCommitted") { .number(Double($0.decision.pagesCommitted)) },
        .read("commits") { .number(Double($0.decision.commits)) },
        .read("tempFilesLeft") { .number(Double($0.decision.tempFilesLeft)) },
        .read("cursor") { $0.after.cursor.map(FieldValue.string) ?? .null },
        .read("lastSuccessAt") { $0.after.lastSuccessAt.map(FieldValue.number) ?? .null },
        .read("nextEarliestBeginAt") { $0.decision.nextEarliestBeginAt.map(FieldValue.number) ?? .null },
        .read("items") { _ in nil },
    ]

    /// What `observedFinal` may name, read from the final store and the runs' commits;
    /// `items` as above.
    static let finalFields: [ObservedField<Self, FinalOutcome>] = [
        .read("items") { _ in nil },
        .read("cursor") { $0.store.cursor.map(FieldValue.string) ?? .null },
        .read("lastSuccessAt") { $0.store.lastSuccessAt.map(FieldValue.number) ?? .null },
        .read("commits") { .number(Double($0.commits)) },
    ]

    static var observables: [String] { stepFields.map(\.name) }
    static var finalFieldNames: [String] { finalFields.map(\.name) }

    /// What a run's observed values are read from: its decision and the store it left.
    struct RunOutcome {
        var decision: RefreshDecision
        var after: StoreValues
    }

    /// What `observedFinal`'s values are read from: the final store and every run's commits.
    struct FinalOutcome {
        var store: StoreValues
        var commits: Int
    }

    /// The built Info.plist's registration (`config`) and the job's schedule.
    struct Settings: Sendable {
        var config: RefreshConfig?
        var schedule: RefreshSchedule
        /// `config`'s checks, once the log is valid.
        var checks: [ConfigCheck]?
    }

    static var sequence: String { "runs" }
    /// A request may send a `config` alone.
    static var eventsRequired: Bool { false }

    static func settings(_ given: GivenMembers<Setting>, in request: JSONValue, eventsGiven: Bool,
                         _ decoder: inout RequestDecoder) -> Settings {
        let config = decoder.value(given[.config], of: .object).flatMap { decoder.refreshConfig($0) }
        let schedule = decoder.value(given[.schedule], of: .object).map { decoder.refreshSchedule($0) }
            ?? RefreshSchedule()
        if decoder.present(given[.config]) == nil, !eventsGiven {
            decoder.reportMissing("runs", in: request, "a request needs 'runs', 'config' or both")
        }
        return Settings(config: config, schedule: schedule)
    }

    static func check(_ settings: inout Settings, _ decoder: RequestDecoder) -> Bool? {
        settings.checks = settings.config?.checks()
        return settings.checks.map { $0.allSatisfy(\.passed) }
    }

    static func staticCheckFailures(_ settings: Settings, document: JSONDocument) -> [String] {
        (settings.checks ?? []).filter { !$0.passed }.map { check in
            "configCheck: \(check.check.rawValue)\(check.identifier.map { " '\($0)'" } ?? ""): \(check.detail ?? "")"
        }
    }

    static func writeHead(_ settings: Settings, to writer: inout JSONWriter, document: JSONDocument) {
        guard let checks = settings.checks else { return }
        writer.key("configCheck")
        writer.configCheck(checks)
    }
}
