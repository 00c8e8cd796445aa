import Foundation

/// The shape of a JSON text — its objects' keys, in order and with repeats, its arrays,
/// and whether each leaf is `null` — for checks `JSONDecoder` does not make: it ignores
/// keys it does not know and keeps one value of a repeated key.
///
/// MedVaultCore's import compares the shape of its input with the shape of the same
/// documents encoded again: any key of the input that the encoding lacks (unless its
/// value is `null`, an absent optional) is one this build does not understand, and would
/// be dropped without a word. Keeping no list of keys of its own, the check cannot drift
/// from the `Codable` types it guards. The sync wire (`SyncWireJSON.hasUniqueKeys`)
/// refuses a body with a key twice in one object with it.
///
/// Its own module, below MedVaultCore and MedVaultSyncWire, so that the sync server
/// shares the reader without linking MedVaultCore.
///
/// It reads text `JSONSerialization` or `JSONDecoder` already accepted: strings are read
/// exactly (escapes and surrogate pairs), numbers and literals only skipped.
package enum JSONShape: Equatable {
    case object([(key: String, value: JSONShape)])
    case array([JSONShape])
    case null
    case scalar

    package static func == (lhs: JSONShape, rhs: JSONShape) -> Bool {
        switch (lhs, rhs) {
        case (.object(let a), .object(let b)): a.map(\.key) == b.map(\.key) && a.map(\.value) == b.map(\.value)
        case (.array(let a), .array(let b)): a == b
        case (.null, .null), (.scalar, .scalar): true
        default: false
        }
    }

    /// The shape of `data`, or `nil` when it is not JSON this reader understands.
    package init?(_ data: Data) {
        var reader = Reader(bytes: [UInt8](data))
        guard let shape = reader.value(depth: 0) else { return nil }
        reader.skipWhitespace()
        guard reader.position == reader.bytes.count else { return nil }
        self = shape
    }

    /// Whether `data` is JSON this reader reads — at most 64 levels deep — with no key
    /// twice in one object: `false` for a repeated key and for any text it cannot read.
    /// `StrictJSON.hasUniqueKeys` (MedVaultCore) and `SyncWireJSON.hasUniqueKeys` (the
    /// wire, for the server) are this check.
    package static func hasUniqueKeys(_ data: Data) -> Bool {
        JSONShape(data).map { $0.repeatedKey() == nil } ?? false
    }

    /// The path (`sessions[0].session.status`) of the first key that appears twice in
    /// one object, or `nil`.
    package func repeatedKey(path: String = "") -> String? {
        switch self {
        case .object(let members):
            var seen = Set<String>()
            for member in members {
                let here = Self.join(path, member.key)
                if !seen.insert(member.key).inserted { return here }
                if let inner = member.value.repeatedKey(path: here) { return inner }
            }
        case .array(let elements):
            for (index, element) in elements.enumerated() {
                if let inner = element.repeatedKey(path: "\(path)[\(index)]") { return inner }
            }
        case .null, .scalar:
            break
        }
        return nil
    }

    /// The path of the first key of `self` that `known` lacks and whose value is not
    /// `null`, `[]` or `{}`, or `nil`. Array elements are compared in order.
    package func unknownKey(comparedWith known: JSONShape, path: String = "") -> String? {
        switch (self, known) {
        case (.object(let members), .object(let knownMembers)):
            let lookup = Dictionary(knownMembers.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
            for member in members {
                let here = Self.join(path, member.key)
                guard let counterpart = lookup[member.key] else {
                    // Absent from the encoding: an optional written as null, or a
                    // collection an encoder omits when empty.
                    if member.value == .null || member.value == .array([]) || member.value == .object([]) { continue }
                    return here
                }
                if let inner = member.value.unknownKey(comparedWith: counterpart, path: here) { return inner }
            }
        case (.array(let elements), .array(let knownElements)):
            for (index, (element, counterpart)) in zip(elements, knownElements).enumerated() {
                if let inner = element.unknownKey(comparedWith: counterpart, path: "\(path)[\(index)]") { return inner }
            }
        default:
            break
        }
        return nil
    }

    private static func join(_ path: String, _ key: String) -> String {
        path.isEmpty ? key : path + "." + key
    }

    /// A recursive-descent reader over the bytes.
    private struct Reader {
        let bytes: [UInt8]
        var position = 0
        /// Deeper than any export: a hostile file cannot exhaust the stack.
        static let maximumDepth = 64

        mutating func skipWhitespace() {
            while position < bytes.count {
                switch bytes[position] {
                case 0x20, 0x09, 0x0A, 0x0D: position += 1
                default: return
                }
            }
        }

        mutating func value(depth: Int) -> JSONShape? {
            guard depth < Self.maximumDepth else { return nil }
            skipWhitespace()
            guard position < bytes.count else { return nil }
            switch bytes[position] {
            case UInt8(ascii: "{"): return object(depth: depth)
            case UInt8(ascii: "["): return array(depth: depth)
            case UInt8(ascii: "\""): return string(keeping: false) == nil ? nil : .scalar
            case UInt8(ascii: "n"): return literal("null") ? .null : nil
            case UInt8(ascii: "t"): return literal("true") ? .scalar : nil
            case UInt8(ascii: "f"): return literal("false") ? .scalar : nil
            default: return number() ? .scalar : nil
            }
        }

        private mutating func object(depth: Int) -> JSONShape? {
            position += 1
            var members: [(key: String, value: JSONShape)] = []
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
                position += 1
                return .object(members)
            }
            while true {
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: "\""), let key = string() else { return nil }
                guard consume(":"), let value = value(depth: depth + 1) else { return nil }
                members.append((key, value))
                if consume(",") { continue }
                return consume("}") ? .object(members) : nil
            }
        }

        private mutating func array(depth: Int) -> JSONShape? {
            position += 1
            var elements: [JSONShape] = []
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
                position += 1
                return .array(elements)
            }
            while true {
                guard let element = value(depth: depth + 1) else { return nil }
                elements.append(element)
                if consume(",") { continue }
                return consume("]") ? .array(elements) : nil
            }
        }

        private mutating func consume(_ character: Unicode.Scalar) -> Bool {
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: character) else { return false }
            position += 1
            return true
        }

        private mutating func literal(_ word: String) -> Bool {
            let expected = Array(word.utf8)
            guard position + expected.count <= bytes.count,
                  Array(bytes[position..<position + expected.count]) == expected else { return false }
            position += expected.count
            return true
        }

        private mutating func number() -> Bool {
            let start = position
            while position < bytes.count, "+-0123456789.eE".utf8.contains(bytes[position]) { position += 1 }
            return position > start
        }

        /// A string's value, escapes decoded: keys are compared as `JSONDecoder` sees them.
        /// With `keeping` false (a value, not a key) the text is checked as a decoder would
        /// read it but not built, and the result is empty.
        private mutating func string(keeping: Bool = true) -> String? {
            position += 1
            var scalars = String.UnicodeScalarView()
            var hadEscape = false
            var run = position
            while position < bytes.count {
                let byte = bytes[position]
                if byte == UInt8(ascii: "\"") {
                    guard let text = self.text(run..<position, keeping: keeping) else { return nil }
                    position += 1
                    // Without escapes (the usual string) the text is the value as it stands.
                    guard hadEscape, keeping else { return text }
                    scalars.append(contentsOf: text.unicodeScalars)
                    return String(scalars)
                }
                guard byte == UInt8(ascii: "\\") else {
                    position += 1
                    continue
                }
                guard let text = self.text(run..<position, keeping: keeping),
                      position + 1 < bytes.count else { return nil }
                hadEscape = true
                if keeping { scalars.append(contentsOf: text.unicodeScalars) }
                let escape = bytes[position + 1]
                position += 2
                let scalar: Unicode.Scalar
                switch escape {
                case UInt8(ascii: "u"):
                    guard var value = hex4() else { return nil }
                    if (0xD800..<0xDC00).contains(value) {
                        guard literal("\\u"), let low = hex4(), (0xDC00..<0xE000).contains(low) else { return nil }
                        value = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let decoded = Unicode.Scalar(value) else { return nil }
                    scalar = decoded
                case UInt8(ascii: "n"): scalar = "\n"
                case UInt8(ascii: "t"): scalar = "\t"
                case UInt8(ascii: "r"): scalar = "\r"
                case UInt8(ascii: "b"): scalar = "\u{08}"
                case UInt8(ascii: "f"): scalar = "\u{0C}"
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalar = Unicode.Scalar(escape)
                default: return nil
                }
                if keeping { scalars.append(scalar) }
                run = position
            }
            return nil
        }

        /// The bytes of `range` as text when they are UTF-8 (`nil` otherwise); empty when
        /// not `keeping`, after the same check (ASCII, the usual case, without a copy).
        private func text(_ range: Range<Int>, keeping: Bool) -> String? {
            if !keeping, !bytes[range].contains(where: { $0 >= 0x80 }) { return "" }
            guard let text = strictUTF8(bytes[range]) else { return nil }
            return keeping ? text : ""
        }

        private mutating func hex4() -> UInt32? {
            guard position + 4 <= bytes.count,
                  let value = UInt32(String(decoding: bytes[position..<position + 4], as: UTF8.self), radix: 16)
            else { return nil }
            position += 4
            return value
        }
    }
}
