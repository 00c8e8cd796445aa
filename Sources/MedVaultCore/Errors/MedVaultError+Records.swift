/// The record errors every repository throws, written once so that the in-memory
/// and SQLCipher backends answer the same input with the same error: code, field
/// and fixed reason (never a value).
extension MedVaultError {
    /// No record has the requested identifier; `field` names the parent reference
    /// (`"patientID"`, `"medicationID"`) when the missing record is the parent;
    /// `sqliteCode` keeps the SQLite code (a foreign key) when SQL found it missing.
    package static func recordNotFound(_ field: String? = nil, sqliteCode: Int32? = nil) -> MedVaultError {
        MedVaultError(.notFound, field: field, reason: "no such record", sqliteCode: sqliteCode)
    }

    /// The stored version is not the one the caller read: somebody saved first.
    package static let recordConflict = MedVaultError(.conflict, reason: "the record changed since it was read")

    /// A record with the same identifier exists.
    package static let duplicateRecord = MedVaultError(.duplicate, field: "id", reason: "a record with this id exists")
}
