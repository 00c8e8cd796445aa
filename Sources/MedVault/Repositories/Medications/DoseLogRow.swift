import Foundation
import MedVaultCore

/// The mapping between `DoseLog` and the `dose_log` table.
enum DoseLogRow {
    /// The selected columns, in the order of the SELECT list.
    enum Column: Int32, TableColumn {
        case id, medicationID, scheduledAt, takenAt, status, skipReason, notes, createdAt, updatedAt, version, amount

    }

    /// The SELECT list ``decode(_:)`` reads.
    static let columns = Column.selection

    /// The inserted columns: every selected one, then `patient_id` (the medication's
    /// patient, copied for the per-patient index).
    static let insert = Column.insert(into: "dose_log", Column.allCases, extra: ["patient_id"])

    /// The arguments of ``insert``; `patientID` is the medication's patient.
    static func insertArguments(_ log: DoseLog, patientID: UUID) -> [VaultValue] {
        Column.allCases.map { column in
            switch column {
            case .id: log.id.vaultValue
            case .medicationID: log.medicationID.vaultValue
            case .scheduledAt: log.scheduledAt.vaultValue
            case .takenAt: log.takenAt.vaultValue
            case .status: .text(log.status.rawValue)
            case .skipReason: (log.skipReason?.rawValue).vaultValue
            case .notes: log.notes.vaultValue
            case .createdAt: log.createdAt.vaultValue
            case .updatedAt: log.updatedAt.vaultValue
            case .version: log.version.vaultValue
            case .amount: log.amount.map { .integer($0.thousandths) } ?? .null
            }
        } + [patientID.vaultValue]
    }

    /// The columns a correction changes.
    static let correctedColumns: [Column] = [.takenAt, .amount, .status, .skipReason, .notes, .updatedAt, .version]
    /// `UPDATE` of ``correctedColumns``, by identifier.
    static let updateCorrected = Column.update("dose_log", set: correctedColumns, where: "id")

    /// The arguments of ``updateCorrected``.
    static func correctedArguments(_ log: DoseLog) -> [VaultValue] {
        let all = insertArguments(log, patientID: log.medicationID)
        return correctedColumns.map { all[Int($0.rawValue)] } + [log.id.vaultValue]
    }

    /// Reads a row selected with ``columns``.
    ///
    /// - Throws: `MedVaultError.Code.corrupted` for a value that does not decode.
    static func decode(_ row: VaultRow) throws -> DoseLog {
        let row = ColumnRow<Column>(row: row)
        guard let status = DoseStatus(rawValue: try row[.status]) else {
            throw MedVaultError(.corrupted, reason: "a stored dose status is unknown")
        }
        return DoseLog(
            id: try row[.id], medicationID: try row[.medicationID], scheduledAt: try row[.scheduledAt],
            status: status, takenAt: try row[.takenAt],
            amount: (try row[.amount] as Int64?).map(MedicationQuantity.init(thousandths:)),
            skipReason: (try row[.skipReason] as String?).map(SkipReason.init(rawValue:)),
            notes: try row[.notes], createdAt: try row[.createdAt], updatedAt: try row[.updatedAt],
            version: try row[.version])
    }

    /// The smallest whole millisecond `m` with `Date(millisecondsSince1970: m) >= date`,
    /// so that for stored instants `ms >= bound(lower) && ms < bound(upper)` is exactly
    /// `range.contains(Date(millisecondsSince1970: ms))`, whatever fraction of a
    /// millisecond the range's bounds carry. Far-away bounds are clamped.
    static func millisecondBound(_ date: Date) -> Int64 {
        let limit = 1e15  // about 31,000 years either side of 1970: beyond any stored instant
        let scaled = date.timeIntervalSince1970 * 1000
        guard scaled > -limit else { return -Int64(limit) }
        guard scaled < limit else { return Int64(limit) }
        var bound = Int64(scaled.rounded(.up))
        while Date(millisecondsSince1970: bound - 1) >= date { bound -= 1 }
        while Date(millisecondsSince1970: bound) < date { bound += 1 }
        return bound
    }
}
