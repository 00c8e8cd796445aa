import Foundation

/// The text folding behind MedVault's case- and accent-insensitive search.
///
/// It mirrors SQLite's FTS4 `unicode61` tokenizer with `remove_diacritics=1` (the
/// SQLCipher medication search; the patient search index stores these tokens
/// themselves), so the in-memory repositories find exactly the same records: text is split into tokens at every character that is not a letter
/// or digit, and each token is lower-cased with its diacritics removed.
/// A query matches when every query token is a prefix of some token of the record.
///
/// For example:
///
/// ```swift
/// SearchText.tokens(of: "José García-Núñez")  // ["jose", "garcia", "nunez"]
/// SearchText.matches(query: "jose gar", in: ["José", "García"])  // true
/// ```
public enum SearchText {
    /// The folded tokens of `text`.
    public static func tokens(of text: String) -> [String] {
        latinTokens(of: text) ?? foundationTokens(of: text)
    }

    /// The most words a full-text search (notes, medication names) takes from a query:
    /// the first 32 distinct ones.
    public static let maximumQueryTokens = 32

    /// The folded tokens of a full-text search's query: distinct, in order, at most
    /// ``maximumQueryTokens`` (a longer query would only cost more, and a full-text
    /// index refuses very long expressions).
    public static func queryTokens(of query: String) -> [String] {
        var seen = Set<String>()
        return Array(tokens(of: query).filter { seen.insert($0).inserted }.prefix(maximumQueryTokens))
    }

    /// The reference implementation: Foundation's folding of the whole text, then a
    /// split at every scalar that is not a letter or digit.
    static func foundationTokens(of text: String) -> [String] {
        let folded = text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
            .lowercased()
        var tokens: [String] = []
        var current = ""
        for scalar in folded.unicodeScalars {
            if CharacterSet.alphanumerics.contains(scalar) {
                current.unicodeScalars.append(scalar)
            } else if !current.isEmpty {
                tokens.append(current)
                current = ""
            }
        }
        if !current.isEmpty { tokens.append(current) }
        return tokens
    }

    /// Scalars below this are folded through ``latinFolds``.
    static let latinLimit: UInt32 = 0x250

    /// For each scalar below ``latinLimit``: what ``foundationTokens(of:)``'s folding
    /// makes of it, each resulting scalar kept when it is a letter or digit and `nil`
    /// (a token separator) when not. Computed once, from Foundation itself, so the
    /// fast path cannot disagree with it.
    static let latinFolds: [[Unicode.Scalar?]] = (0..<latinLimit).map { value in
        guard let scalar = Unicode.Scalar(value) else { return [nil] }
        let folded = String(Character(scalar)).folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
            .lowercased()
        return folded.unicodeScalars.map { CharacterSet.alphanumerics.contains($0) ? $0 : nil }
    }

    /// ``latinFolds`` as UTF-8, in one buffer: scalar `s` folds to
    /// `bytes[starts[s]..<starts[s + 1]]`, each letter or digit as its UTF-8 bytes and
    /// each separator as a 0 byte (UTF-8 never uses 0 inside a scalar, and U+0000 is a
    /// separator itself). `ascii` is the same for the scalars below 0x80, which each
    /// fold to one byte (0xFF: look in `bytes`); `expansion`, the most bytes a scalar
    /// folds to per byte of its own UTF-8 (how long a token can grow).
    static let latinFoldBytes: (bytes: [UInt8], starts: [Int], ascii: [UInt8], expansion: Int) = {
        var bytes: [UInt8] = []
        var starts: [Int] = [0]
        var expansion = 1
        for (value, folds) in latinFolds.enumerated() {
            for folded in folds {
                if let folded { bytes.append(contentsOf: String(folded).utf8) } else { bytes.append(0) }
            }
            starts.append(bytes.count)
            let length = value < 0x80 ? 1 : 2
            expansion = max(expansion, (starts[value + 1] - starts[value] + length - 1) / length)
        }
        // ASCII letters fold to one lower-case letter, digits stay, everything else is one
        // separator. Should a platform's folding ever differ, 0xFF (never a UTF-8 byte)
        // sends that scalar through the general table instead.
        let ascii = (0..<0x80).map { value in
            starts[value + 1] - starts[value] == 1 ? bytes[starts[value]] : 0xFF
        }
        return (bytes, starts, ascii, expansion)
    }()

    /// The tokens of a text made only of scalars below ``latinLimit`` (ASCII, Latin-1
    /// and Latin Extended A/B: every Spanish name), folded scalar by scalar through
    /// the table, or `nil` for any other text. Folding these scalars does not depend
    /// on their neighbours (no combining marks, no context-sensitive case mapping
    /// below U+0250), so the result equals ``foundationTokens(of:)``; a test checks
    /// it. About ten times cheaper, and it runs for every candidate of a search.
    static func latinTokens(of text: String) -> [String]? {
        var tokens: [String] = []
        let folded = forEachLatinToken(of: text) { tokens.append(String(decoding: $0, as: UTF8.self)) }
        return folded ? tokens : nil
    }

    /// Calls `body` with the UTF-8 bytes of each folded token of `text`, in order: the
    /// tokens of ``tokens(of:)``, without a `String` for each (a session note's search
    /// document is built from hundreds of them). The buffer is valid only during the call.
    package static func forEachToken(of text: String, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        guard !forEachLatinToken(of: text, body) else { return }
        for token in foundationTokens(of: text) {
            var token = token
            token.withUTF8(body)
        }
    }

    /// ``forEachToken(of:_:)`` for a text made only of scalars below ``latinLimit``;
    /// `false`, having called `body` for nothing, for any other text.
    ///
    /// It reads the UTF-8 bytes: a scalar below U+0250 is one byte below 0x80 or two
    /// bytes whose first is 0xC2…0xC8, or 0xC9 followed by a byte below 0x90 (U+0240…
    /// U+024F); every other scalar starts with a higher byte.
    static func forEachLatinToken(of text: String, _ body: (UnsafeBufferPointer<UInt8>) -> Void) -> Bool {
        var text = text
        return text.withUTF8 { utf8 in
            for (index, byte) in utf8.enumerated() where byte >= 0xCA || (byte == 0xC9 && utf8[index + 1] >= 0x90) {
                return false
            }
            let table = latinFoldBytes
            // Unsafe views of the tables (a slice of an array per scalar would retain
            // it), and the token built in a buffer as long as the longest it can be.
            table.bytes.withUnsafeBufferPointer { bytes in
                table.starts.withUnsafeBufferPointer { starts in
                    table.ascii.withUnsafeBufferPointer { ascii in
                        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: utf8.count * table.expansion) { buffer in
                            var length = 0
                            func add(_ folded: UInt8) {
                                if folded != 0 {
                                    buffer[length] = folded
                                    length += 1
                                } else if length > 0 {
                                    body(UnsafeBufferPointer(rebasing: buffer[..<length]))
                                    length = 0
                                }
                            }
                            var index = 0
                            while index < utf8.count {
                                let first = Int(utf8[index])
                                if first < 0x80, ascii[first] != 0xFF {
                                    add(ascii[first])
                                    index += 1
                                    continue
                                }
                                // A valid string's first byte 0xC2…0xC9 is followed by its second.
                                let scalar = first < 0x80 ? first : (first & 0x1F) << 6 | Int(utf8[index + 1] & 0x3F)
                                for position in starts[scalar]..<starts[scalar + 1] { add(bytes[position]) }
                                index += first < 0x80 ? 1 : 2
                            }
                            add(0)
                        }
                    }
                }
            }
            return true
        }
    }

    /// Whether every token of `query` is a prefix of a token of one of `fields`.
    ///
    /// A query with no tokens (empty, or only punctuation) matches nothing.
    public static func matches(query: String, in fields: [String?]) -> Bool {
        let queryTokens = tokens(of: query)
        guard !queryTokens.isEmpty else { return false }
        return matches(queryTokens: queryTokens, recordTokens: fields.compactMap { $0 }.flatMap { tokens(of: $0) })
    }

    /// Whether every token of `queryTokens` is a prefix of one of `recordTokens`, both
    /// already folded by ``tokens(of:)``: the rule of ``matches(query:in:)``, for
    /// callers that fold once and test many records.
    ///
    /// An empty `queryTokens` matches every record.
    public static func matches(queryTokens: [String], recordTokens: [String]) -> Bool {
        queryTokens.allSatisfy { queryToken in recordTokens.contains { $0.hasPrefix(queryToken) } }
    }
}
