import Foundation

/// A JSON value of a FHIR resource, written by ``serialized()`` with sorted keys and
/// exact decimals (a quantity of 1.5 is written `1.5`, never as a binary float).
public enum FHIRJSON: Sendable, Hashable {
    /// A string.
    case string(String)
    /// A number, as its JSON literal (`"50"`, `"1.5"`): decimals stay exact.
    case number(String)
    /// `true` or `false`.
    case bool(Bool)
    /// An array.
    case array([FHIRJSON])
    /// An object; keys are written sorted.
    case object([String: FHIRJSON])

    /// An integer number.
    public static func integer<I: BinaryInteger>(_ value: I) -> FHIRJSON { .number(String(value)) }

    /// The value of `key` in an object, `nil` otherwise.
    public subscript(key: String) -> FHIRJSON? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The text of a string value.
    public var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// The elements of an array value (empty otherwise).
    public var arrayValue: [FHIRJSON] {
        if case .array(let elements) = self { return elements }
        return []
    }

    /// The value as compact JSON text on one line (sorted keys): an NDJSON line, or a
    /// Bundle.
    public func serialized() -> String {
        var out = ""
        write(to: &out)
        return out
    }

    private func write(to out: inout String) {
        switch self {
        case .string(let text): Self.writeString(text, to: &out)
        case .number(let literal): out += literal
        case .bool(let value): out += value ? "true" : "false"
        case .array(let elements):
            out += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { out += "," }
                element.write(to: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { out += "," }
                Self.writeString(key, to: &out)
                out += ":"
                members[key]?.write(to: &out)
            }
            out += "}"
        }
    }

    /// JSON string escaping: quote, backslash and every control character (C0, DEL, C1)
    /// escaped, and the line and paragraph separators, so a line never breaks.
    private static func writeString(_ text: String, to out: inout String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028
                    || scalar.value == 0x2029 {
                    let hex = String(scalar.value, radix: 16, uppercase: true)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}

extension FHIRJSON: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    /// A string.
    public init(stringLiteral value: String) { self = .string(value) }
    /// A boolean.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An array.
    public init(arrayLiteral elements: FHIRJSON...) { self = .array(elements) }
    /// An object.
    public init(dictionaryLiteral elements: (String, FHIRJSON)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
