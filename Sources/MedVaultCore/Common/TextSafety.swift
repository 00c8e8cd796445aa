/// The characters that let a stored text reshape a terminal or a report: control
/// characters (C0, DEL, C1 — `ESC` starts terminal escape sequences, a newline forges a
/// table row), the Unicode bidirectional formatting characters (which reorder what
/// follows them, "Trojan Source"), and invisible ones: line and paragraph separators,
/// the byte-order mark, zero-width spaces, and joiners anywhere but between two letters.
///
/// MedVault refuses them in single-line fields (names, identifiers, email, phone,
/// address, medication names…) with a `validation` error naming the field. Multi-line
/// notes keep newlines, carriage returns and tabs; other control characters are refused
/// there too, while bidi marks and invisible characters are kept (right-to-left clinical text needs them) and
/// must be escaped by whoever prints the text: ``escaped(_:)`` does that.
///
/// For example:
///
/// ```swift
/// TextSafety.escaped("Ana\u{1B}[31m")   // "Ana\\e[31m"
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

    /// Whether `scalar` is an invisible character that breaks a line or hides in one:
    /// the line and paragraph separators U+2028 and U+2029 (line breaks to a browser,
    /// a PDF or JavaScript), the byte-order mark U+FEFF, the zero-width space U+200B and
    /// the word joiner and invisible operators U+2060–U+2064. Two names that differ only
    /// by one of them look the same.
    public static func isInvisibleSeparator(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x2028, 0x2029, 0xFEFF, 0x200B, 0x2060...0x2064: return true
        default: return false
        }
    }

    /// Whether `scalar` is a zero-width joiner (U+200D) or non-joiner (U+200C). Persian,
    /// Arabic and the Indic scripts need them between two letters (or a letter and its
    /// mark); anywhere else they only make two equal-looking texts differ.
    public static func isJoiner(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value == 0x200C || scalar.value == 0x200D
    }

    /// Whether `scalar` may not appear in a single-line field, whatever surrounds it.
    /// A joiner (``isJoiner(_:)``) is refused by ``isRefusedInLine(_:)-(String)`` unless
    /// it stands between two letters or marks.
    public static func isRefusedInLine(_ scalar: Unicode.Scalar) -> Bool {
        isControl(scalar) || isBidiFormatting(scalar) || isInvisibleSeparator(scalar)
    }

    /// Whether `text` may not be a single-line field: it holds a scalar
    /// ``isRefusedInLine(_:)-(Unicode.Scalar)`` refuses, or a joiner that does not stand
    /// between two letters or marks.
    public static func isRefusedInLine(_ text: String) -> Bool {
        containsRefused(text, multiline: false)
    }

    /// Whether `scalar` may not appear in a multi-line note: a control character other
    /// than newline, carriage return and tab.
    public static func isRefusedInNote(_ scalar: Unicode.Scalar) -> Bool {
        isControl(scalar) && scalar != "\n" && scalar != "\r" && scalar != "\t"
    }

    /// Whether `text` holds a scalar ``isRefusedInLine(_:)-(Unicode.Scalar)`` refuses or a
    /// misplaced joiner (or, when `multiline`, a scalar ``isRefusedInNote(_:)`` refuses).
    ///
    /// The same answer as testing every Unicode scalar, read from the UTF-8 bytes
    /// instead (validation of a 600-byte note was a visible part of a bulk insert): a
    /// refused scalar is an ASCII control byte, `C2 80`–`C2 9F` (U+0080–U+009F), or,
    /// in a line, `D8 9C` (U+061C), `E2 80 8B`/`8E`/`8F`/`A8`/`A9` (U+200B/E/F,
    /// U+2028/9), `E2 80 AA`–`AE` (U+202A–E), `E2 81 A0`–`A4` (U+2060–4), `E2 81 A6`–`A9`
    /// (U+2066–9) or `EF BB BF` (U+FEFF). A joiner (`E2 80 8C`/`8D`) sends the text to
    /// the scalar-level check of its neighbours. Continuation bytes (`80`–`BF`) are
    /// never taken for lead bytes, so stepping one byte at a time is exact.
    static func containsRefused(_ text: String, multiline: Bool) -> Bool {
        let scanned = text.utf8.withContiguousStorageIfAvailable { bytes in
            containsRefused(utf8: bytes, multiline: multiline)
        }
        switch scanned {
        case .refused?: return true
        case .accepted?: return false
        case .joinerFound?, nil:
            if multiline { return text.unicodeScalars.contains(where: isRefusedInNote) }
            let scalars = Array(text.unicodeScalars)
            return scalars.indices.contains { index in
                isRefusedInLine(scalars[index]) || isMisplacedJoiner(at: index, in: scalars)
            }
        }
    }

    private enum ScanResult { case accepted, refused, joinerFound }

    private static func containsRefused(utf8 bytes: UnsafeBufferPointer<UInt8>, multiline: Bool) -> ScanResult {
        var index = 0
        let end = bytes.count
        var joinerFound = false
        while index < end {
            let byte = bytes[index]
            switch byte {
            case 0x0A, 0x0D, 0x09:
                if !multiline { return .refused }
            case 0x00..<0x20, 0x7F:
                return .refused
            case 0xC2:
                // U+0080–U+009F: the second byte is 80–9F (valid UTF-8 has one).
                if bytes[index + 1] < 0xA0 { return .refused }
            case 0xD8 where !multiline:
                if bytes[index + 1] == 0x9C { return .refused }
            case 0xE2 where !multiline:
                let (second, third) = (bytes[index + 1], bytes[index + 2])
                if second == 0x80 {
                    switch third {
                    case 0x8B, 0x8E, 0x8F, 0xA8, 0xA9, 0xAA...0xAE: return .refused
                    case 0x8C, 0x8D: joinerFound = true
                    default: break
                    }
                }
                if second == 0x81, (0xA0...0xA4).contains(third) || (0xA6...0xA9).contains(third) { return .refused }
            case 0xEF where !multiline:
                if bytes[index + 1] == 0xBB, bytes[index + 2] == 0xBF { return .refused }
            default:
                break
            }
            index += 1
        }
        return joinerFound ? .joinerFound : .accepted
    }

    /// Whether `scalars[index]` is a joiner without a letter or mark on each side.
    private static func isMisplacedJoiner(at index: Int, in scalars: [Unicode.Scalar]) -> Bool {
        guard isJoiner(scalars[index]) else { return false }
        func joins(_ neighbour: Int) -> Bool {
            guard scalars.indices.contains(neighbour) else { return false }
            switch scalars[neighbour].properties.generalCategory {
            case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
                 .nonspacingMark, .spacingMark, .enclosingMark:
                return true
            default:
                return false
            }
        }
        return !joins(index - 1) || !joins(index + 1)
    }

    /// `text` with every character a line refuses replaced by a visible escape, so that
    /// it prints as exactly one line that cannot recolour, reorder or hide part of a
    /// terminal: `\n`, `\r`, `\t`, `\e` for ESC, `\xHH` for other control characters
    /// and `\u{HHHH}` for bidi formatting characters, invisible separators and joiners
    /// not between two letters. Other text is unchanged.
    public static func escaped(_ text: String) -> String {
        guard containsRefused(text, multiline: false) else { return text }
        var result = ""
        let scalars = Array(text.unicodeScalars)
        for (index, scalar) in scalars.enumerated() {
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case "\u{1B}": result += "\\e"
            case _ where isControl(scalar): result += "\\x" + hex(scalar.value, digits: 2)
            case _ where isBidiFormatting(scalar) || isInvisibleSeparator(scalar)
                || isMisplacedJoiner(at: index, in: scalars):
                result += "\\u{" + hex(scalar.value, digits: 4) + "}"
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
