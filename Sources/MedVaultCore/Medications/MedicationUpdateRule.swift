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
    ///
    /// The deactivation instant is the store's: set to `now` when `new` deactivates the
    /// medication, cleared when it reactivates it, kept otherwise (whatever `new` says),
    /// so an update cannot rewrite which past days expected doses.
    public static func updated(_ new: Medication, replacing current: Medication, now: Date) throws -> Medication {
        var stored = try updated(new, replacing: current, now: now, owner: \.patientID, ownerField: "patientID") {
            try $0.validated()
        }
        switch (current.isActive, stored.isActive) {
        case (_, true): stored.deactivatedAt = nil
        case (true, false): stored.deactivatedAt = now.truncatedToMilliseconds
        case (false, false): stored.deactivatedAt = current.deactivatedAt
        }
        return stored
    }

    /// The schedule to store in place of `current` (in its series, whatever `new` says).
    ///
    /// - Throws: `validation` (a field, or `medicationID` when it changed); `conflict`
    ///   when `new.version` is not `current.version`.
    public static func updated(_ new: MedicationSchedule, replacing current: MedicationSchedule,
                               now: Date) throws -> MedicationSchedule {
        var stored = try updated(new, replacing: current, now: now, owner: \.medicationID, ownerField: "medicationID") {
            try $0.validated()
        }
        // A version never moves to another series (SQL never updates series_id either).
        stored.seriesID = current.seriesID
        return stored
    }

    /// The rule itself, for any record with an owner that never changes.
    private static func updated<Record: VersionedRecord>(
        _ new: Record, replacing current: Record, now: Date,
        owner: KeyPath<Record, UUID>, ownerField: String, validated: (Record) throws -> Record
    ) throws -> Record {
        let checked = try validated(new)
        guard new[keyPath: owner] == current[keyPath: owner] else {
            throw MedVaultError.validation(ownerField, "cannot change")
        }
        guard new.version == current.version else {
            throw MedVaultError.recordConflict
        }
        return checked.stamped(replacing: current, at: now)
    }
}
