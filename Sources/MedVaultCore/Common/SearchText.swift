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

    /// The tokens of a text made only of scalars below ``latinLimit`` (ASCII, Latin-1
    /// and Latin Extended A/B: every Spanish name), folded scalar by scalar through
    /// the table, or `nil` for any other text. Folding these scalars does not depend
    /// on their neighbours (no combining marks, no context-sensitive case mapping
    /// below U+0250), so the result equals ``foundationTokens(of:)``; a test checks
    /// it. About ten times cheaper, and it runs for every candidate of a search.
    static func latinTokens(of text: String) -> [String]? {
        let table = latinFolds
        var tokens: [String] = []
        var current = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            guard scalar.value < latinLimit else { return nil }
            for folded in table[Int(scalar.value)] {
                if let folded {
                    current.append(folded)
                } else if !current.isEmpty {
                    tokens.append(String(current))
                    current = String.UnicodeScalarView()
                }
            }
        }
        if !current.isEmpty { tokens.append(String(current)) }
        return tokens
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
