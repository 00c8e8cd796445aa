/// The characters that let a stored text reshape a terminal or a report: control
/// characters (C0, DEL, C1 — `ESC` starts terminal escape sequences, a newline forges a
/// table row) and the Unicode bidirectional formatting characters (which reorder what
/// follows them, "Trojan Source").
///
/// MedVault refuses them in single-line fields (names, identifiers, email, phone,
/// address, medication names…) with a `validation` error naming the field. Multi-line
/// notes keep newlines, carriage returns and tabs; other control characters are refused
/// there too, while bidi marks are kept (right-to-left clinical text needs them) and
/// must be escaped by whoever prints the text: ``escaped(_:)`` does that.
///
/// For example:
///
/// ```swift
/// TextSafety.escaped("Ana\u{1B}[31m")   // "Ana\\x1B[31m"
/// ```
public enum TextSafety {
    /// Whether `scalar` is a control character: U+0000–U+001F, U+007F or U+0080–U+009F.
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// Whether `scalar` is a bidirectional formatting character: the embeddings and
    /// overrides U+202A–U+202E, the isolates U+2066–U+2069, and the marks U+200E, U+200F
    /// and U+061C.
    public static func isBidiFormatting(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C: return true
        default: return false
        }
    }

    /// Whether `scalar` may not appear in a single-line field.
    public static func isRefusedInLine(_ scalar: Unicode.Scalar) -> Bool {
        isControl(scalar) || isBidiFormatting(scalar)
    }

    /// Whether `scalar` may not appear in a multi-line note: a control character other
    /// than newline, carriage return and tab.
    public static func isRefusedInNote(_ scalar: Unicode.Scalar) -> Bool {
        isControl(scalar) && scalar != "\n" && scalar != "\r" && scalar != "\t"
    }

    /// Whether `text` holds a scalar ``isRefusedInLine(_:)`` (or, when `multiline`,
    /// ``isRefusedInNote(_:)``) refuses.
    ///
    /// The same answer as testing every Unicode scalar, read from the UTF-8 bytes
    /// instead (validation of a 600-byte note was a visible part of a bulk insert): a
    /// refused scalar is an ASCII control byte, `C2 80`–`C2 9F` (U+0080–U+009F), or,
    /// in a line, `D8 9C` (U+061C), `E2 80 8E`/`8F` (U+200E/F), `E2 80 AA`–`AE`
    /// (U+202A–E) or `E2 81 A6`–`A9` (U+2066–9). Continuation bytes (`80`–`BF`) are
    /// never taken for lead bytes, so stepping one byte at a time is exact.
    static func containsRefused(_ text: String, multiline: Bool) -> Bool {
        let scanned = text.utf8.withContiguousStorageIfAvailable { bytes in
            containsRefused(utf8: bytes, multiline: multiline)
        }
        if let scanned { return scanned }
        return text.unicodeScalars.contains(where: multiline ? isRefusedInNote : isRefusedInLine)
    }

    private static func containsRefused(utf8 bytes: UnsafeBufferPointer<UInt8>, multiline: Bool) -> Bool {
        var index = 0
        let end = bytes.count
        while index < end {
            let byte = bytes[index]
            switch byte {
            case 0x0A, 0x0D, 0x09:
                if !multiline { return true }
            case 0x00..<0x20, 0x7F:
                return true
            case 0xC2:
                // U+0080–U+009F: the second byte is 80–9F (valid UTF-8 has one).
                if bytes[index + 1] < 0xA0 { return true }
            case 0xD8 where !multiline:
                if bytes[index + 1] == 0x9C { return true }
            case 0xE2 where !multiline:
                let (second, third) = (bytes[index + 1], bytes[index + 2])
                if second == 0x80, third == 0x8E || third == 0x8F || (0xAA...0xAE).contains(third) { return true }
                if second == 0x81, (0xA6...0xA9).contains(third) { return true }
            default:
                break
            }
            index += 1
        }
        return false
    }

    /// `text` with every control and bidi formatting character replaced by a visible
    /// escape, so that it prints as exactly one line that cannot recolour or reorder a
    /// terminal: `\n`, `\r`, `\t`, `\e` for ESC, `\xHH` for other control characters
    /// and `\u{HHHH}` for bidi formatting characters. Other text is unchanged.
    public static func escaped(_ text: String) -> String {
        guard containsRefused(text, multiline: false) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case "\u{1B}": result += "\\e"
            case _ where isControl(scalar): result += "\\x" + hex(scalar.value, digits: 2)
            case _ where isBidiFormatting(scalar): result += "\\u{" + hex(scalar.value, digits: 4) + "}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
