// libFuzzer target: an `infoPlist` string in every form Foundation's parsers take,
// and the nesting bound that guards them (`PropertyListNesting`).
//
// Input layout: byte 0 picks the form: even, the rest is the text as sent (XML or
// OpenStep, or anything else); odd, the rest is the bytes of a binary property
// list, sent as base64 the way `base64 < Info.plist` writes it.
import Foundation
@testable import DeviceOracleWire

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let rest = Data(bytes: data + 1, count: size - 1)
    let isText = data[0] & 1 == 0
    let text = isText ? String(decoding: rest, as: UTF8.self) : rest.base64EncodedString(options: .lineLength76Characters)

    let first = Result { () throws(InfoPlistError) in try InfoPlistRegistration(text: text) }
    let second = Result { () throws(InfoPlistError) in try InfoPlistRegistration(text: text) }
    precondition(first == second, "equal texts, different answers")

    if isText { checkNestingBound(text) }
    return 0
}

/// A text the bound lets through, and Foundation reads, nests no deeper than the
/// bound: the reader never counts shallower than the parser. (Binary lists may hold
/// cycles, so their nesting is not walked here.)
func checkNestingBound(_ text: String) {
    let bytes = Array(text.utf8)
    guard !PropertyListNesting.exceedsLimit(bytes),
          let deepest = try? PropertyListDecoder().decode(DeepestContainer.self, from: Data(bytes)) else { return }
    precondition(deepest.level <= PropertyListNesting.limit,
                 "the bound let through \(deepest.level) levels, more than \(PropertyListNesting.limit)")
}

/// The nesting level of the deepest container in a decoded property list, read no
/// further than one level past the bound.
struct DeepestContainer: Decodable {
    let level: Int

    private struct AnyKey: CodingKey {
        let stringValue: String
        init(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) {
        let here = decoder.codingPath.count + 1
        var deepest = 0
        if here <= PropertyListNesting.limit + 1 {
            if let dictionary = try? decoder.container(keyedBy: AnyKey.self) {
                deepest = here
                for key in dictionary.allKeys {
                    deepest = max(deepest, (try? dictionary.decode(Self.self, forKey: key))?.level ?? 0)
                }
            } else if var array = try? decoder.unkeyedContainer() {
                deepest = here
                while !array.isAtEnd, let element = try? array.decode(Self.self) {
                    deepest = max(deepest, element.level)
                }
            }
        }
        level = deepest
    }
}
