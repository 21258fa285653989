import Foundation
import DeviceOracleJSON
import DeviceOracleRules

/// The two keys of a built Info.plist the `refresh/1` checks read.
struct InfoPlistRegistration: Equatable {
    var permittedIdentifiers: InfoPlistList
    var backgroundModes: InfoPlistList

    /// An `infoPlist` given as a JSON object.
    init(object: JSONValue, in document: JSONDocument) {
        func list(_ key: String) -> InfoPlistList {
            guard let member = document.members(object).first(where: { document.string($0.key, equals: key) }),
                  !document.isNull(member.value) else { return .missing }
            guard document.kind(member.value) == .array else { return .notAnArray }
            return .strings(document.elements(member.value).compactMap { document.string($0) })
        }
        permittedIdentifiers = list(InfoPlistKey.permittedIdentifiers)
        backgroundModes = list(InfoPlistKey.backgroundModes)
    }

    /// An `infoPlist` given as a string: XML or OpenStep property-list text, or
    /// base64 of a binary property list (what Xcode writes into a built bundle:
    /// `base64 < App.app/Info.plist`, line breaks allowed). Foundation's reader
    /// bounds nesting itself (512 levels), so hostile text fails instead of
    /// exhausting the stack.
    init(text: String) throws(InfoPlistError) {
        let root: Any
        if let decoded = Data(base64Encoded: text, options: .ignoreUnknownCharacters),
           decoded.starts(with: Self.binaryMagic) {
            guard let parsed = Self.propertyList(decoded) else { throw .unreadableBinary }
            root = parsed
        } else {
            guard let parsed = Self.propertyList(Data(text.utf8)) else { throw .notAPropertyList }
            root = parsed
        }
        guard let dictionary = root as? [AnyHashable: Any] else { throw .rootNotADictionary(Self.describe(root)) }
        func list(_ key: String) -> InfoPlistList {
            guard let value = dictionary[AnyHashable(key)] else { return .missing }
            guard let array = value as? [Any] else { return .notAnArray }
            return .strings(array.compactMap { $0 as? String })
        }
        permittedIdentifiers = list(InfoPlistKey.permittedIdentifiers)
        backgroundModes = list(InfoPlistKey.backgroundModes)
    }

    private static let binaryMagic = Array("bplist".utf8)

    private static func propertyList(_ data: Data) -> Any? {
        try? PropertyListSerialization.propertyList(from: data, options: [], format: nil)
    }

    /// "an array", as the 422 detail names a root that is not a dictionary.
    private static func describe(_ value: Any) -> String {
        // An integer 1 also casts to Bool through NSNumber: ask for the dynamic type.
        if type(of: value) == Bool.self { return "a boolean" }
        return switch value {
        case is [Any]: "an array"
        case is String: "a string"
        case is NSNumber: "a number"
        case is Date: "a date"
        case is Data: "data"
        default: "a value of another type"
        }
    }
}

/// Why an `infoPlist` string was refused (a `422` at `/config/infoPlist`).
enum InfoPlistError: Error, Equatable {
    case notAPropertyList
    case unreadableBinary
    case rootNotADictionary(String)

    var detail: String {
        switch self {
        case .notAPropertyList:
            "not a property list: expected XML or OpenStep property-list text, or base64 of a binary property list"
        case .unreadableBinary:
            "base64 of a binary property list ('bplist') that cannot be read"
        case .rootNotADictionary(let root):
            "the property list's root is \(root), not a dictionary"
        }
    }
}
