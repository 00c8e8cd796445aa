import Foundation
import MedVaultCore

/// Builds the FTS4 `MATCH` expression of a patient search, safely.
///
/// The index holds each patient's folded tokens (``SearchText/tokens(of:)``), and a
/// query is the conjunction of its own folded tokens as prefix terms: "José Gar" →
/// `jose* gar*`. The expression is built *only* from tokens made of letters and digits
/// and is bound as a parameter, never spliced into the SQL: quotes, parentheses, `-`,
/// `:`, `^` or `*` typed by the user cannot reach the FTS query parser (they separate
/// tokens), and operator keywords cannot either (`AND`, `OR`, `NOT` and `NEAR` are
/// only operators in upper case, and tokens are lower-cased).
enum PatientSearchQuery {
    /// The `MATCH` expression for `tokens`, or `nil` when there is nothing to search
    /// for (a query without tokens finds nothing).
    static func matchExpression(_ tokens: [String]) -> String? {
        let terms = tokens.compactMap { token -> String? in
            let safe = token.lowercased()
            guard !safe.isEmpty,
                  safe.unicodeScalars.allSatisfy({ CharacterSet.alphanumerics.contains($0) })
            else { return nil }
            return safe + "*"
        }
        guard !terms.isEmpty, terms.count == tokens.count else { return nil }
        return terms.joined(separator: " ")
    }

    /// Whether `patient` matches `queryTokens` by ``SearchText``'s rule: every query
    /// token is a prefix of a token of a searchable field.
    static func matches(_ queryTokens: [String], _ patient: Patient) -> Bool {
        let tokens = patient.searchableFields.compactMap { $0 }.flatMap(SearchText.tokens(of:))
        return queryTokens.allSatisfy { query in tokens.contains { $0.hasPrefix(query) } }
    }
}
