import Foundation

extension Medication {
    /// The order of every medication list: by name folded as ``SearchText`` folds it
    /// (case and accents ignored), then by generic name, then by identifier.
    /// Implementations sort with this, so "Ácido" and "acido" sort the same everywhere.
    public static func listOrder(_ lhs: Medication, _ rhs: Medication) -> Bool {
        let left = (SearchText.tokens(of: lhs.name).joined(separator: " "),
                    SearchText.tokens(of: lhs.genericName ?? "").joined(separator: " "))
        let right = (SearchText.tokens(of: rhs.name).joined(separator: " "),
                     SearchText.tokens(of: rhs.genericName ?? "").joined(separator: " "))
        if left != right { return left < right }
        return lhs.id.uuidString < rhs.id.uuidString
    }
}
