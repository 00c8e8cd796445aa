import Foundation

/// The bookkeeping fields of a stored record, so that the create and update stamps
/// are written once for every record type that adopts it.
protocol VersionedRecord {
    var createdAt: Date { get set }
    var updatedAt: Date { get set }
    var version: Int64 { get set }
}

extension VersionedRecord {
    /// This value as a new record: version 1, created and updated at `now`.
    func stampedAsNew(at now: Date) -> Self {
        var stored = self
        stored.createdAt = now
        stored.updatedAt = now
        stored.version = 1
        return stored
    }

    /// This value replacing `current`: `current`'s creation time, updated at `now`,
    /// `current`'s version + 1.
    func stamped(replacing current: Self, at now: Date) -> Self {
        var stored = self
        stored.createdAt = current.createdAt
        stored.updatedAt = now
        stored.version = current.version + 1
        return stored
    }
}

extension Medication: VersionedRecord {}
extension MedicationSchedule: VersionedRecord {}
extension DoseLog: VersionedRecord {}
