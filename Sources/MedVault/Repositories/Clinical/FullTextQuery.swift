import MedVaultCore

/// The FTS4 `MATCH` expression of what a user typed, shared by every full-text index
/// (medication names, session notes).
enum FullTextQuery {
    /// One prefix term per distinct folded token, at most 32 (`SearchText.queryTokens(of:)`),
    /// all required; `nil`
    /// when the query has no letter or digit. Tokens hold only letters and digits, so
    /// `token*` is always a plain prefix term, never FTS syntax (lower-case `or`, `and`,
    /// `near` are words, not operators); callers bind the string, never interpolate it.
    static func matchExpression(_ query: String) -> String? {
        matchExpression(tokens: SearchText.queryTokens(of: query))
    }

    /// The expression of already folded `tokens`, `nil` when there are none.
    static func matchExpression(tokens: [String]) -> String? {
        guard !tokens.isEmpty else { return nil }
        return tokens.map { $0 + "*" }.joined(separator: " ")
    }
}
