import Foundation

/// The shape of a JSON text — its objects' keys, in order and with repeats, its arrays,
/// and whether each leaf is `null` — for checks `JSONDecoder` does not make: it ignores
/// keys it does not know and keeps one value of a repeated key.
///
/// An import compares the shape of its input with the shape of the same documents
/// encoded again: any key of the input that the encoding lacks (unless its value is
/// `null`, an absent optional) is one this build does not understand, and would be
/// dropped without a word. Keeping no list of keys of its own, the check cannot drift
/// from the `Codable` types it guards.
///
/// It reads text `JSONSerialization` or `JSONDecoder` already accepted: strings are read
/// exactly (escapes and surrogate pairs), numbers and literals only skipped.
enum JSONShape: Equatable {
    case object([(key: String, value: JSONShape)])
    case array([JSONShape])
    case null
    case scalar

    static func == (lhs: JSONShape, rhs: JSONShape) -> Bool {
        switch (lhs, rhs) {
        case (.object(let a), .object(let b)): a.map(\.key) == b.map(\.key) && a.map(\.value) == b.map(\.value)
        case (.array(let a), .array(let b)): a == b
        case (.null, .null), (.scalar, .scalar): true
        default: false
        }
    }

    /// The shape of `data`, or `nil` when it is not JSON this reader understands.
    init?(_ data: Data) {
        var reader = Reader(bytes: [UInt8](data))
        guard let shape = reader.value(depth: 0) else { return nil }
        reader.skipWhitespace()
        guard reader.position == reader.bytes.count else { return nil }
        self = shape
    }

    /// The path (`sessions[0].session.status`) of the first key that appears twice in
    /// one object, or `nil`.
    func repeatedKey(path: String = "") -> String? {
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
    func unknownKey(comparedWith known: JSONShape, path: String = "") -> String? {
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
            while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
        }

        mutating func value(depth: Int) -> JSONShape? {
            guard depth < Self.maximumDepth else { return nil }
            skipWhitespace()
            guard position < bytes.count else { return nil }
            switch bytes[position] {
            case UInt8(ascii: "{"): return object(depth: depth)
            case UInt8(ascii: "["): return array(depth: depth)
            case UInt8(ascii: "\""): return string() == nil ? nil : .scalar
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
        private mutating func string() -> String? {
            position += 1
            var scalars = String.UnicodeScalarView()
            var run = position
            while position < bytes.count {
                let byte = bytes[position]
                if byte == UInt8(ascii: "\"") {
                    guard let text = String(bytes: bytes[run..<position], encoding: .utf8) else { return nil }
                    scalars.append(contentsOf: text.unicodeScalars)
                    position += 1
                    return String(scalars)
                }
                guard byte == UInt8(ascii: "\\") else {
                    position += 1
                    continue
                }
                guard let text = String(bytes: bytes[run..<position], encoding: .utf8),
                      position + 1 < bytes.count else { return nil }
                scalars.append(contentsOf: text.unicodeScalars)
                let escape = bytes[position + 1]
                position += 2
                switch escape {
                case UInt8(ascii: "u"):
                    guard var value = hex4() else { return nil }
                    if (0xD800..<0xDC00).contains(value) {
                        guard literal("\\u"), let low = hex4(), (0xDC00..<0xE000).contains(low) else { return nil }
                        value = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let scalar = Unicode.Scalar(value) else { return nil }
                    scalars.append(scalar)
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalars.append(Unicode.Scalar(escape))
                default: return nil
                }
                run = position
            }
            return nil
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

/// Checks that JSON decoders do not make: for tools that read records from JSON (the
/// `medvault` CLI's `--json` input), as ``PatientRecordExport/documents(jsonData:)`` does
/// for imports.
///
/// ```swift
/// StrictJSON.repeatedKey(in: Data(#"{"a": 1, "a": 2}"#.utf8))   // "a"
/// ```
public enum StrictJSON {
    /// The path (`sessions[0].status`) of the first key that appears twice in one object
    /// — `JSONDecoder` and `JSONSerialization` keep one of the values without a word —
    /// escaped and at most 120 characters; `nil` when there is none, or when `data` is not
    /// JSON (the decoder then says why).
    public static func repeatedKey(in data: Data) -> String? {
        JSONShape(data)?.repeatedKey().map { TextSafety.escaped(String($0.prefix(120))) }
    }

    /// Whether `data` is JSON this checker reads — at most 64 levels deep — with no key
    /// twice in one object: `false` for a repeated key and for any text it cannot read, so
    /// that nothing a decoder would accept slips past the check (`JSONDecoder` reads 512
    /// levels).
    public static func hasUniqueKeys(_ data: Data) -> Bool {
        JSONShape(data).map { $0.repeatedKey() == nil } ?? false
    }
}
