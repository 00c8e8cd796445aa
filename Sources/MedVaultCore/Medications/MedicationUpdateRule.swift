import Foundation

/// The one rule for updating a stored medication or schedule, shared by every
/// implementation so that their checks and their order cannot drift apart:
/// validate the new value, refuse a change of owner, refuse a stale version, then
/// stamp the stored value (creation time kept, `updatedAt` = now, version + 1).
public enum MedicationUpdateRule {
    /// The medication to store in place of `current`.
    ///
    /// - Throws: `validation` (a field, or `patientID` when it changed); `conflict` when
    ///   `new.version` is not `current.version`.
    public static func updated(_ new: Medication, replacing current: Medication, now: Date) throws -> Medication {
        var stored = try new.validated()
        guard new.patientID == current.patientID else {
            throw MedVaultError.validation("patientID", "cannot change")
        }
        guard new.version == current.version else {
            throw MedVaultError.recordConflict
        }
        stored.createdAt = current.createdAt
        stored.updatedAt = now
        stored.version = current.version + 1
        return stored
    }

    /// The schedule to store in place of `current`.
    ///
    /// - Throws: `validation` (a field, or `medicationID` when it changed); `conflict`
    ///   when `new.version` is not `current.version`.
    public static func updated(_ new: MedicationSchedule, replacing current: MedicationSchedule,
                               now: Date) throws -> MedicationSchedule {
        var stored = try new.validated()
        guard new.medicationID == current.medicationID else {
            throw MedVaultError.validation("medicationID", "cannot change")
        }
        guard new.version == current.version else {
            throw MedVaultError.recordConflict
        }
        stored.createdAt = current.createdAt
        stored.updatedAt = now
        stored.version = current.version + 1
        return stored
    }
}
