import Foundation
import MedVaultCore

/// The SQLCipher `TransactionalMedicationScheduleRepository` of a unit of work.
struct SQLCipherTransactionalMedicationScheduleRepository: TransactionalMedicationScheduleRepository {
    let unit: SQLCipherUnitOfWork

    private typealias SQL = SQLCipherMedicationScheduleRepository

    func create(_ schedule: MedicationSchedule) throws -> MedicationSchedule {
        try unit.write { db in try SQL.create(schedule, clock: unit.clock, in: db) }
    }

    func update(_ schedule: MedicationSchedule) throws -> MedicationSchedule {
        try unit.write { db in try SQL.update(schedule, clock: unit.clock, in: db) }
    }

    func get(_ id: UUID) throws -> MedicationSchedule {
        try unit.read { db in try SQL.get(id, in: db) }
    }

    func list(medicationID: UUID) throws -> [MedicationSchedule] {
        try unit.read { db in try SQL.list(medicationID: medicationID, in: db) }
    }

    func list(patientID: UUID) throws -> [MedicationSchedule] {
        try unit.read { db in try SQL.list(patientID: patientID, in: db) }
    }

    func revise(_ schedule: MedicationSchedule, effectiveFrom day: CalendarDate) throws -> MedicationSchedule {
        try unit.write { db in try SQL.revise(schedule, effectiveFrom: day, clock: unit.clock, in: db) }
    }

    func pause(_ id: UUID, from: CalendarDate, through: CalendarDate?) throws -> MedicationSchedule {
        try unit.write { db in try SQL.pause(id, from: from, through: through, clock: unit.clock, in: db) }
    }

    func resume(_ id: UUID, on day: CalendarDate) throws -> MedicationSchedule {
        try unit.write { db in try SQL.resume(id, on: day, clock: unit.clock, in: db) }
    }

    func end(_ id: UUID, lastDay: CalendarDate) throws -> MedicationSchedule {
        try unit.write { db in try SQL.end(id, lastDay: lastDay, clock: unit.clock, in: db) }
    }

    func snooze(scheduleID: UUID, doseAt scheduledAt: Date) throws -> DoseSnooze {
        try unit.write { db in try SQL.snooze(scheduleID: scheduleID, doseAt: scheduledAt, clock: unit.clock, in: db) }
    }

    func snooze(medicationID: UUID, doseAt scheduledAt: Date, timeZone: TimeZone) throws -> DoseSnooze {
        try unit.write { db in
            try SQL.snooze(medicationID: medicationID, doseAt: scheduledAt, timeZone: timeZone, clock: unit.clock, in: db)
        }
    }

    func snoozes(patientID: UUID, in range: Range<Date>) throws -> [DoseSnooze] {
        try unit.read { db in try SQL.snoozes(patientID: patientID, in: range, db) }
    }
}
