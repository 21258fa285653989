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
            guard let value = document.member(object, named: key), !document.isNull(value) else { return .missing }
            guard document.kind(value) == .array else { return .notAnArray }
            return .strings(document.elements(value).compactMap { document.string($0) })
        }
        permittedIdentifiers = list(InfoPlistKey.permittedIdentifiers)
        backgroundModes = list(InfoPlistKey.backgroundModes)
    }

    /// An `infoPlist` given as a string: XML or OpenStep property-list text, or
    /// base64 of a binary property list (what Xcode writes into a built bundle:
    /// `base64 < App.app/Info.plist`, line breaks allowed).
    ///
    /// Read with `PropertyListDecoder`, not `PropertyListSerialization`: on Linux
    /// the latter leaks its error object (about 1 KB) on every text that is no
    /// property list, which a client could repeat until the server runs out of
    /// memory. Only the root and the two keys are decoded, so a binary list whose
    /// objects refer to each other in a cycle is never walked.
    init(text: String) throws(InfoPlistError) {
        let root: InfoPlistRoot
        if let decoded = Data(base64Encoded: text, options: .ignoreUnknownCharacters),
           decoded.starts(with: Self.binaryMagic) {
            guard !BinaryPropertyListKeys.rootRepeatsAKey(Array(decoded)) else { throw .repeatedRootKey }
            var format = PropertyListSerialization.PropertyListFormat.binary
            guard let parsed = try? PropertyListDecoder().decode(InfoPlistRoot.self, from: decoded, format: &format),
                  format == .binary else { throw .unreadableBinary }
            root = parsed
        } else {
            let bytes = Array(text.utf8)
            // Nested too deep for Foundation's parsers to survive: refused unread.
            guard !PropertyListNesting.exceedsLimit(bytes),
                  let parsed = try? PropertyListDecoder().decode(InfoPlistRoot.self, from: Data(bytes)) else {
                throw .notAPropertyList
            }
            root = parsed
        }
        switch root.shape {
        case .dictionary(let permitted, let modes):
            permittedIdentifiers = permitted
            backgroundModes = modes
        case .other(let description):
            throw .rootNotADictionary(description)
        }
    }

    private static let binaryMagic = Array("bplist".utf8)
}

/// The parts of a property list the checks read: the root's shape and, for a
/// dictionary, the two keys. Decoded shallowly on purpose (see `init(text:)`).
private struct InfoPlistRoot: Decodable {
    enum Shape {
        case dictionary(permitted: InfoPlistList, modes: InfoPlistList)
        /// "an array", as the 422 detail names a root that is not a dictionary.
        case other(String)
    }

    let shape: Shape

    private struct Key: CodingKey {
        let stringValue: String
        init(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }

    /// An array element that is not a string, passed over unread.
    private struct Skipped: Decodable {
        init(from decoder: any Decoder) {}
    }

    init(from decoder: any Decoder) throws {
        if let dictionary = try? decoder.container(keyedBy: Key.self) {
            func list(_ name: String) -> InfoPlistList {
                let key = Key(stringValue: name)
                guard dictionary.contains(key) else { return .missing }
                guard var array = try? dictionary.nestedUnkeyedContainer(forKey: key) else { return .notAnArray }
                // Elements of other types never match anything, as in a JSON `infoPlist`.
                var strings: [String] = []
                while !array.isAtEnd {
                    if let string = try? array.decode(String.self) {
                        strings.append(string)
                    } else if (try? array.decode(Skipped.self)) == nil {
                        break
                    }
                }
                return .strings(strings)
            }
            shape = .dictionary(permitted: list(InfoPlistKey.permittedIdentifiers),
                                modes: list(InfoPlistKey.backgroundModes))
            return
        }
        if (try? decoder.unkeyedContainer()) != nil {
            shape = .other("an array")
            return
        }
        let value = try decoder.singleValueContainer()
        // OpenStep text has only strings, so a string is tried first; an XML or
        // binary integer never reads as a boolean.
        shape = if (try? value.decode(String.self)) != nil { .other("a string") }
            else if (try? value.decode(Bool.self)) != nil { .other("a boolean") }
            else if (try? value.decode(Double.self)) != nil { .other("a number") }
            else if (try? value.decode(Date.self)) != nil { .other("a date") }
            else if (try? value.decode(Data.self)) != nil { .other("data") }
            else { .other("a value of another type") }
    }
}

/// Why an `infoPlist` string was refused (a `422` at `/config/infoPlist`).
enum InfoPlistError: Error, Equatable {
    case notAPropertyList
    case unreadableBinary
    case repeatedRootKey
    case rootNotADictionary(String)

    var detail: String {
        switch self {
        case .notAPropertyList:
            "not a property list: expected XML or OpenStep property-list text, or base64 of a binary property list"
        case .unreadableBinary:
            "base64 of a binary property list ('bplist') that cannot be read"
        case .repeatedRootKey:
            "base64 of a binary property list ('bplist') whose root dictionary names a key twice (or whose keys overlap)"
        case .rootNotADictionary(let root):
            "the property list's root is \(root), not a dictionary"
        }
    }
}
