import Foundation
import MedVaultCore

/// The mapping between ``MedicationSchedule`` and the `medication_schedule` table.
enum MedicationScheduleRow {
    /// The selected columns, in the order ``decode(_:)`` reads them.
    static let columns = """
        id, medication_id, times, time_labels, days_of_week, time_zone, created_at, updated_at, version
        """

    /// The same columns prefixed with `s.`, for joins.
    static let qualifiedColumns = columns
        .split(separator: ",")
        .map { "s." + $0.trimmingCharacters(in: .whitespaces) }
        .joined(separator: ", ")

    static let insert = """
        INSERT INTO medication_schedule (
            id, medication_id, times, time_labels, days_of_week, time_zone, created_at, updated_at, version
        ) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    static let update = """
        UPDATE medication_schedule SET
            times = ?, time_labels = ?, days_of_week = ?, time_zone = ?, updated_at = ?, version = ?
        WHERE id = ?
        """

    /// The arguments of ``insert``.
    static func insertArguments(_ schedule: MedicationSchedule) -> [DatabaseValue] {
        let times = TimeListCoding.encode(schedule.times)
        return [
            schedule.id.databaseValue, schedule.medicationID.databaseValue,
            times.minutes.databaseValue, times.labels.databaseValue,
            .integer(TimeListCoding.mask(of: schedule.daysOfWeek)), schedule.timeZoneIdentifier.databaseValue,
            schedule.createdAt.databaseValue, schedule.updatedAt.databaseValue, schedule.version.databaseValue,
        ]
    }

    /// The arguments of ``update``.
    static func updateArguments(_ schedule: MedicationSchedule) -> [DatabaseValue] {
        let times = TimeListCoding.encode(schedule.times)
        return [
            times.minutes.databaseValue, times.labels.databaseValue,
            .integer(TimeListCoding.mask(of: schedule.daysOfWeek)), schedule.timeZoneIdentifier.databaseValue,
            schedule.updatedAt.databaseValue, schedule.version.databaseValue, schedule.id.databaseValue,
        ]
    }

    /// Reads a row selected with ``columns``.
    ///
    /// - Throws: ``MedVaultError/Code/corrupted`` for a value that does not decode.
    static func decode(_ row: Row) throws -> MedicationSchedule {
        MedicationSchedule(
            id: try row[0], medicationID: try row[1],
            times: try TimeListCoding.decode(minutes: try row[2], labels: try row[3]),
            daysOfWeek: TimeListCoding.days(ofMask: try row[4]), timeZoneIdentifier: try row[5],
            createdAt: try row[6], updatedAt: try row[7], version: try row[8])
    }
}
