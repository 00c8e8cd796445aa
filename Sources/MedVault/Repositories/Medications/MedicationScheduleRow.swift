import Foundation
import MedVaultCore

/// The mapping between `MedicationSchedule` and the `medication_schedule` table.
enum MedicationScheduleRow {
    /// The selected columns, in the order of the SELECT list.
    enum Column: Int32, TableColumn {
        case id, medicationID, times, timeLabels, daysOfWeek, timeZone, createdAt, updatedAt, version
        case seriesID, effectiveFrom, effectiveUntil, regimen, timeAmounts
        case reminderLeadMinutes, snoozeMinutes, maximumSnoozes


        /// The columns an UPDATE writes: `id`, `medication_id`, `series_id` and `created_at` never change.
        static let updated = allCases.filter { !([.id, .medicationID, .seriesID, .createdAt] as [Column]).contains($0) }
    }

    /// The SELECT list ``decode(_:)`` reads.
    static let columns = Column.selection

    /// The same columns prefixed with `s.`, for joins.
    static let qualifiedColumns = Column.selection(alias: "s")

    static let insert = Column.insert(into: "medication_schedule", Column.allCases)

    static let update = Column.update("medication_schedule", set: Column.updated, where: "id")

    /// The arguments of ``insert``.
    static func insertArguments(_ schedule: MedicationSchedule) -> [VaultValue] {
        let times = TimeListCoding.encode(schedule.times)
        return Column.allCases.map { argument($0, of: schedule, times) }
    }

    /// The arguments of ``update``.
    static func updateArguments(_ schedule: MedicationSchedule) -> [VaultValue] {
        let times = TimeListCoding.encode(schedule.times)
        return Column.updated.map { argument($0, of: schedule, times) } + [schedule.id.vaultValue]
    }

    /// The stored value of `column` for `s`, whose encoded times are `times`.
    private static func argument(
        _ column: Column, of s: MedicationSchedule, _ times: (minutes: String, labels: String?)
    ) -> VaultValue {
        switch column {
        case .id: s.id.vaultValue
        case .medicationID: s.medicationID.vaultValue
        case .times: times.minutes.vaultValue
        case .timeLabels: times.labels.vaultValue
        case .daysOfWeek: .integer(TimeListCoding.mask(of: s.daysOfWeek))
        case .timeZone: s.timeZoneIdentifier.vaultValue
        case .createdAt: s.createdAt.vaultValue
        case .updatedAt: s.updatedAt.vaultValue
        case .version: s.version.vaultValue
        case .seriesID: s.seriesID.vaultValue
        case .effectiveFrom: s.effectiveFrom.vaultValue
        case .effectiveUntil: s.effectiveUntil.vaultValue
        case .regimen: ScheduleRegimenCoding.encode(s).vaultValue
        case .timeAmounts: ScheduleRegimenCoding.encodeAmounts(s.times).vaultValue
        case .reminderLeadMinutes: s.reminders.leadMinutes.vaultValue
        case .snoozeMinutes: s.reminders.snoozeMinutes.vaultValue
        case .maximumSnoozes: s.reminders.maximumSnoozes.vaultValue
        }
    }

    /// Reads a row selected with ``columns``.
    ///
    /// - Throws: `MedVaultError.Code.corrupted` for a value that does not decode.
    static func decode(_ row: VaultRow) throws -> MedicationSchedule {
        let row = ColumnRow<Column>(row: row)
        var times = try TimeListCoding.decode(minutes: try row[.times], labels: try row[.timeLabels])
        try ScheduleRegimenCoding.decodeAmounts(try row[.timeAmounts], into: &times)
        let regimen = try ScheduleRegimenCoding.decode(try row[.regimen])
        return MedicationSchedule(
            id: try row[.id], medicationID: try row[.medicationID], times: times,
            daysOfWeek: TimeListCoding.days(ofMask: try row[.daysOfWeek]), timeZoneIdentifier: try row[.timeZone],
            seriesID: try row[.seriesID], effectiveFrom: try row[.effectiveFrom],
            effectiveUntil: try row[.effectiveUntil], pauses: regimen.pauses, interval: regimen.interval,
            taperSteps: regimen.taperSteps,
            reminders: ReminderSettings(leadMinutes: try row[.reminderLeadMinutes], snoozeMinutes: try row[.snoozeMinutes],
                                        maximumSnoozes: try row[.maximumSnoozes]),
            createdAt: try row[.createdAt], updatedAt: try row[.updatedAt], version: try row[.version])
    }
}
