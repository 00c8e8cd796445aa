import Foundation

/// The text folding behind MedVault's case- and accent-insensitive search.
///
/// It mirrors SQLite's FTS4 `unicode61` tokenizer with `remove_diacritics=1`, which
/// the SQLCipher repositories use, so the in-memory repositories find exactly the
/// same records: text is split into tokens at every character that is not a letter
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

    /// Whether every token of `query` is a prefix of a token of one of `fields`.
    ///
    /// A query with no tokens (empty, or only punctuation) matches nothing.
    public static func matches(query: String, in fields: [String?]) -> Bool {
        let queryTokens = tokens(of: query)
        guard !queryTokens.isEmpty else { return false }
        let recordTokens = fields.compactMap { $0 }.flatMap { tokens(of: $0) }
        return queryTokens.allSatisfy { queryToken in
            recordTokens.contains { $0.hasPrefix(queryToken) }
        }
    }
}
