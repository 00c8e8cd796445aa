import Foundation

/// A position in the patient order, for keyset pagination.
///
/// Patients are listed by ``Patient/sortKey`` then ``Patient/id``. Both are compared
/// **as UTF-8 bytes** (SQLite's `BINARY` collation); the id by its 16 bytes, which is
/// also the order of its upper-case `uuidString`. A cursor stands *after* the patient
/// it was taken from: the next page holds the patients strictly greater than it.
///
/// An SQL implementation without row values (SQLite 3.15) expands the comparison:
///
/// ```sql
/// WHERE sort_key > :key OR (sort_key = :key AND id > :id)
/// ORDER BY sort_key, id LIMIT :limit
/// ```
public struct PatientCursor: Sendable, Hashable, Codable {
    /// The ``Patient/sortKey`` of the last patient of the previous page.
    public var sortKey: String
    /// The id of the last patient of the previous page.
    public var id: UUID

    /// Creates a cursor after the given position.
    public init(sortKey: String, id: UUID) {
        self.sortKey = sortKey
        self.id = id
    }

    /// A cursor just after `patient`.
    public init(after patient: Patient) {
        self.init(sortKey: patient.sortKey, id: patient.id)
    }

    /// Whether `patient` comes strictly after this cursor in the patient order.
    public func precedes(_ patient: Patient) -> Bool {
        Patient.ordered(sortKey, id, before: patient.sortKey, patient.id)
    }
}
