import Foundation
import MedVaultCore

/// The mapping between ``DoseLog`` and the `dose_log` table.
enum DoseLogRow {
    /// The selected columns, in the order ``decode(_:)`` reads them.
    static let columns = """
        id, medication_id, scheduled_at, taken_at, status, skip_reason, notes, created_at, updated_at, version
        """

    static let insert = """
        INSERT INTO dose_log (
            id, medication_id, patient_id, scheduled_at, taken_at, status, skip_reason, notes,
            created_at, updated_at, version
        ) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    /// The arguments of ``insert``; `patientID` is the medication's patient.
    static func insertArguments(_ log: DoseLog, patientID: UUID) -> [DatabaseValue] {
        [
            log.id.databaseValue, log.medicationID.databaseValue, patientID.databaseValue,
            log.scheduledAt.databaseValue, log.takenAt.databaseValue, .text(log.status.rawValue),
            (log.skipReason?.rawValue).databaseValue, log.notes.databaseValue,
            log.createdAt.databaseValue, log.updatedAt.databaseValue, log.version.databaseValue,
        ]
    }

    /// Reads a row selected with ``columns``.
    ///
    /// - Throws: ``MedVaultError/Code/corrupted`` for a value that does not decode.
    static func decode(_ row: Row) throws -> DoseLog {
        guard let status = DoseStatus(rawValue: try row[4]) else {
            throw MedVaultError(.corrupted, reason: "a stored dose status is unknown")
        }
        return DoseLog(
            id: try row[0], medicationID: try row[1], scheduledAt: try row[2], status: status,
            takenAt: try row[3], skipReason: (try row[5] as String?).map(SkipReason.init(rawValue:)),
            notes: try row[6], createdAt: try row[7], updatedAt: try row[8], version: try row[9])
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
