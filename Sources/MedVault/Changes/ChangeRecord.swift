import MedVaultCore
import Foundation

/// One record a write touched, as the writer appends it to the change log: no field
/// value, only which record, how, and its new version.
struct ChangeRecord {
    let table: VaultTable
    let id: UUID
    let operation: ChangeOperation
    let version: Int64?
    /// The device the change came from through sync; `nil` for a change made here.
    var origin: UUID? = nil
}

/// A MedVault record type whose writes the change log records, and its table.
protocol ChangeLoggedRecord {
    /// The table of the records.
    static var changeTable: VaultTable { get }
    var id: UUID { get }
    var version: Int64 { get }
}

extension ChangeLoggedRecord {
    /// The record's entry for `operation`, with its current version.
    func change(_ operation: ChangeOperation) -> ChangeRecord {
        ChangeRecord(table: Self.changeTable, id: id, operation: operation, version: version)
    }
}

extension Professional: ChangeLoggedRecord { static var changeTable: VaultTable { .professional } }
extension Patient: ChangeLoggedRecord { static var changeTable: VaultTable { .patient } }
extension ClinicalSession: ChangeLoggedRecord { static var changeTable: VaultTable { .clinicalSession } }
extension Diagnosis: ChangeLoggedRecord { static var changeTable: VaultTable { .diagnosis } }
extension Attachment: ChangeLoggedRecord { static var changeTable: VaultTable { .attachment } }
extension Medication: ChangeLoggedRecord { static var changeTable: VaultTable { .medication } }
extension MedicationSchedule: ChangeLoggedRecord { static var changeTable: VaultTable { .medicationSchedule } }
extension DoseLog: ChangeLoggedRecord { static var changeTable: VaultTable { .doseLog } }
extension MedicationRefill: ChangeLoggedRecord { static var changeTable: VaultTable { .medicationRefill } }
extension SessionAddendum: ChangeLoggedRecord {
    static var changeTable: VaultTable { .sessionAddendum }
    /// Addenda never change: always their first version.
    var version: Int64 { 1 }
}

extension DoseLogRevision {
    /// The revision's entry: an insert (revisions never change), first version.
    var change: ChangeRecord { ChangeRecord(table: .doseLogRevision, id: id, operation: .insert, version: 1) }
}

extension SessionSignature {
    /// The signature's entry, under its session's id (one signature per session).
    var change: ChangeRecord { ChangeRecord(table: .sessionSignature, id: sessionID, operation: .insert, version: 1) }
}

extension ChangeLogWriter {
    /// Appends `record`'s entry for `operation`.
    func append(_ record: some ChangeLoggedRecord, _ operation: ChangeOperation) throws {
        try append(table: type(of: record).changeTable, id: record.id, operation: operation, version: record.version)
    }
}
