import Foundation

/// The in-memory ``TransactionalMedicationScheduleRepository`` of an ``InMemoryVault`` unit of work.
struct InMemoryTransactionalMedicationScheduleRepository: TransactionalMedicationScheduleRepository {
    let tables: InMemoryMedicationTables
    let scope: TransactionScope

    func create(_ schedule: MedicationSchedule) throws -> MedicationSchedule {
        try tables.inUnit(scope) { try $0.createSchedule(schedule) }
    }

    func update(_ schedule: MedicationSchedule) throws -> MedicationSchedule {
        try tables.inUnit(scope) { try $0.updateSchedule(schedule) }
    }

    func get(_ id: UUID) throws -> MedicationSchedule {
        try tables.inUnit(scope) { try $0.getSchedule(id) }
    }

    func list(medicationID: UUID) throws -> [MedicationSchedule] {
        try tables.inUnit(scope) { $0.listSchedules(medicationID: medicationID) }
    }

    func list(patientID: UUID) throws -> [MedicationSchedule] {
        try tables.inUnit(scope) { $0.listSchedules(patientID: patientID) }
    }

    func revise(_ schedule: MedicationSchedule, effectiveFrom day: CalendarDate) throws -> MedicationSchedule {
        try tables.inUnit(scope) { try $0.reviseSchedule(schedule, effectiveFrom: day) }
    }

    func pause(_ id: UUID, from: CalendarDate, through: CalendarDate?) throws -> MedicationSchedule {
        try tables.inUnit(scope) { try $0.pauseSchedule(id, from: from, through: through) }
    }

    func resume(_ id: UUID, on day: CalendarDate) throws -> MedicationSchedule {
        try tables.inUnit(scope) { try $0.resumeSchedule(id, on: day) }
    }

    func end(_ id: UUID, lastDay: CalendarDate) throws -> MedicationSchedule {
        try tables.inUnit(scope) { try $0.endSchedule(id, lastDay: lastDay) }
    }

    func snooze(scheduleID: UUID, doseAt scheduledAt: Date) throws -> DoseSnooze {
        try tables.inUnit(scope) { try $0.snooze(scheduleID: scheduleID, doseAt: scheduledAt) }
    }

    func snooze(medicationID: UUID, doseAt scheduledAt: Date, timeZone: TimeZone) throws -> DoseSnooze {
        try tables.inUnit(scope) { try $0.snooze(medicationID: medicationID, doseAt: scheduledAt, timeZone: timeZone) }
    }

    func snoozes(patientID: UUID, in range: Range<Date>) throws -> [DoseSnooze] {
        try tables.inUnit(scope) { $0.listSnoozes(patientID: patientID, in: range) }
    }
}
