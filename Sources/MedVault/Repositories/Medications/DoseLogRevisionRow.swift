import Foundation
import MedVaultCore

/// The mapping between `DoseLogRevision` and the `dose_log_revision` table.
enum DoseLogRevisionRow {
    enum Column: Int32, TableColumn {
        case id, doseLogID, medicationID, kind, reason, recordedAt
        case scheduledAt, takenAt, amount, status, skipReason, notes, createdAt, updatedAt, version

    }

    static let insert = Column.insert(into: "dose_log_revision", Column.allCases, extra: ["patient_id"])
    static let selectByLog = "SELECT \(Column.selection) FROM dose_log_revision WHERE dose_log_id = ? ORDER BY rowid"
    /// Oldest first, in an order every device agrees on (synced revisions arrive in
    /// different orders): instant, then log, then the order written (one log's history).
    static let selectByMedication = """
        SELECT \(Column.selection) FROM dose_log_revision WHERE medication_id = ?
        ORDER BY recorded_at, dose_log_id, rowid
        """

    /// The arguments of ``insert``; `patientID` is the medication's patient.
    static func insertArguments(_ revision: DoseLogRevision, patientID: UUID) -> [VaultValue] {
        let log = revision.previous
        return Column.allCases.map { column in
            switch column {
            case .id: revision.id.vaultValue
            case .doseLogID: revision.doseLogID.vaultValue
            case .medicationID: log.medicationID.vaultValue
            case .kind: .text(revision.kind.rawValue)
            case .reason: revision.reason.vaultValue
            case .recordedAt: revision.recordedAt.vaultValue
            case .scheduledAt: log.scheduledAt.vaultValue
            case .takenAt: log.takenAt.vaultValue
            case .amount: log.amount.map { .integer($0.thousandths) } ?? .null
            case .status: .text(log.status.rawValue)
            case .skipReason: (log.skipReason?.rawValue).vaultValue
            case .notes: log.notes.vaultValue
            case .createdAt: log.createdAt.vaultValue
            case .updatedAt: log.updatedAt.vaultValue
            case .version: log.version.vaultValue
            }
        } + [patientID.vaultValue]
    }

    /// Reads a row selected with `Column.selection`.
    ///
    /// - Throws: `MedVaultError.Code.corrupted` for a value that does not decode.
    static func decode(_ row: VaultRow) throws -> DoseLogRevision {
        let row = ColumnRow<Column>(row: row)
        guard let status = DoseStatus(rawValue: try row[.status]),
              let kind = DoseLogRevision.Kind(rawValue: try row[.kind])
        else { throw MedVaultError(.corrupted, reason: "a stored dose log revision is malformed") }
        let previous = DoseLog(
            id: try row[.doseLogID], medicationID: try row[.medicationID], scheduledAt: try row[.scheduledAt],
            status: status, takenAt: try row[.takenAt],
            amount: (try row[.amount] as Int64?).map(MedicationQuantity.init(thousandths:)),
            skipReason: (try row[.skipReason] as String?).map(SkipReason.init(rawValue:)),
            notes: try row[.notes], createdAt: try row[.createdAt], updatedAt: try row[.updatedAt],
            version: try row[.version])
        return DoseLogRevision(id: try row[.id], doseLogID: previous.id, kind: kind, previous: previous,
                               reason: try row[.reason], recordedAt: try row[.recordedAt])
    }
}

/// The mapping between `MedicationRefill` and the `medication_refill` table.
enum MedicationRefillRow {
    enum Column: Int32, TableColumn {
        case id, medicationID, quantity, refillDate, expirationDate, notes, createdAt, version

    }

    static let insert = Column.insert(into: "medication_refill", Column.allCases, extra: ["patient_id"])
    static let selectByID = "SELECT \(Column.selection) FROM medication_refill WHERE id = ?"
    static let selectByMedication = """
        SELECT \(Column.selection) FROM medication_refill WHERE medication_id = ?
        ORDER BY refill_date, created_at, id
        """

    /// The arguments of ``insert``; `patientID` is the medication's patient.
    static func insertArguments(_ refill: MedicationRefill, patientID: UUID) -> [VaultValue] {
        Column.allCases.map { column in
            switch column {
            case .id: refill.id.vaultValue
            case .medicationID: refill.medicationID.vaultValue
            case .quantity: .integer(refill.quantity.thousandths)
            case .refillDate: refill.date.vaultValue
            case .expirationDate: refill.expirationDate.vaultValue
            case .notes: refill.notes.vaultValue
            case .createdAt: refill.createdAt.vaultValue
            case .version: refill.version.vaultValue
            }
        } + [patientID.vaultValue]
    }

    /// Reads a row selected with `Column.selection`.
    static func decode(_ row: VaultRow) throws -> MedicationRefill {
        let row = ColumnRow<Column>(row: row)
        return MedicationRefill(
            id: try row[.id], medicationID: try row[.medicationID],
            quantity: MedicationQuantity(thousandths: try row[.quantity]), date: try row[.refillDate],
            expirationDate: try row[.expirationDate], notes: try row[.notes],
            createdAt: try row[.createdAt], version: try row[.version])
    }
}
