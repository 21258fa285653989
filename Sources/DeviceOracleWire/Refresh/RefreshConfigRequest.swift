import DeviceOracleJSON
import DeviceOracleRules

// `config` and its tasks are shapes this service defines: closed. Registrations
// are lines of the app's own log: their unknown members are ignored.

private enum ConfigMember: String, CaseIterable, Sendable {
    case tasks, infoPlist, registrations
}

private enum TaskMember: String, CaseIterable, Sendable {
    case identifier, kind
}

private enum RegistrationMember: String, CaseIterable, Sendable {
    case identifier, ok
}

private let configMembers = ClosedNames<ConfigMember>("config member")
private let taskMembers = ClosedNames<TaskMember>("task member")
private let taskKinds = ClosedNames<BackgroundTaskKind>("task kind")
private let registrationMembers = ClosedNames<RegistrationMember>("registration member")

extension RequestDecoder {
    /// `config`: `tasks` and `infoPlist` are required, `registrations` optional.
    mutating func refreshConfig(_ object: JSONValue) -> RefreshConfig? {
        var tasksValue: JSONValue?, infoPlistValue: JSONValue?, registrationsValue: JSONValue?
        closedObject(object, names: configMembers) { _, member, value in
            switch member {
            case .tasks: tasksValue = value
            case .infoPlist: infoPlistValue = value
            case .registrations: registrationsValue = value
            }
        }
        let tasks = required(tasksValue, of: .array, member: "tasks", in: object).map { backgroundTasks($0) }
        let plist = infoPlist(infoPlistValue, in: object)
        let registrations = value(registrationsValue, of: .array).map { taskRegistrations($0) }
        guard let tasks, let plist else { return nil }
        return RefreshConfig(tasks: tasks, permittedIdentifiers: plist.permittedIdentifiers,
                             backgroundModes: plist.backgroundModes, registrations: registrations)
    }

    private mutating func backgroundTasks(_ array: JSONValue) -> [BackgroundTask] {
        var tasks: [BackgroundTask] = []
        for object in document.elements(array) where has(object, .object) {
            var identifierValue: JSONValue?, kindValue: JSONValue?
            closedObject(object, names: taskMembers) { _, member, value in
                switch member {
                case .identifier: identifierValue = value
                case .kind: kindValue = value
                }
            }
            let identifier = required(identifierValue, of: .string, member: "identifier", in: object)
                .flatMap(document.string)
            let kind = required(kindValue, of: .string, member: "kind", in: object).flatMap { name($0, in: taskKinds) }
            if let identifier, let kind { tasks.append(BackgroundTask(identifier: identifier, kind: kind)) }
        }
        return tasks
    }

    private mutating func taskRegistrations(_ array: JSONValue) -> [TaskRegistration] {
        var registrations: [TaskRegistration] = []
        for object in document.elements(array) where has(object, .object) {
            var identifierValue: JSONValue?, okValue: JSONValue?
            for member in document.members(object) {
                switch registrationMembers.match(member.key, in: document) {
                case .identifier?: identifierValue = member.value
                case .ok?: okValue = member.value
                case nil: break
                }
            }
            let identifier = required(identifierValue, of: .string, member: "identifier", in: object)
                .flatMap(document.string)
            let ok = required(okValue, of: .bool, member: "ok", in: object).flatMap(document.bool)
            if let identifier, let ok { registrations.append(TaskRegistration(identifier: identifier, ok: ok)) }
        }
        return registrations
    }

    /// A JSON object, or a string holding the built bundle's property list.
    private mutating func infoPlist(_ value: JSONValue?, in config: JSONValue) -> InfoPlistRegistration? {
        guard let value = present(value) else {
            reportMissing("infoPlist", in: config, "required object or string is missing")
            return nil
        }
        switch document.kind(value) {
        case .object:
            return InfoPlistRegistration(object: value, in: document)
        case .string:
            do {
                return try InfoPlistRegistration(text: document.string(value) ?? "")
            } catch {
                report(error.detail, at: value)
                return nil
            }
        case let kind:
            report("expected an object or a string, got \(kind.article)", at: value)
            return nil
        }
    }
}

extension JSONWriter {
    /// `{"verdict": "pass"|"fail", "checks": [{"check", "identifier", "pass", "detail"}, ...]}`.
    mutating func configCheck(_ checks: [ConfigCheck]) {
        beginObject()
        key("verdict")
        string(checks.allSatisfy(\.passed) ? "pass" : "fail")
        key("checks")
        beginArray()
        for check in checks {
            beginObject()
            key("check")
            string(escaping: check.check.rawValue)
            key("identifier")
            if let identifier = check.identifier { string(escaping: identifier) } else { null() }
            key("pass")
            bool(check.passed)
            key("detail")
            if let detail = check.detail { string(escaping: detail) } else { null() }
            endObject()
        }
        endArray()
        endObject()
    }
}
