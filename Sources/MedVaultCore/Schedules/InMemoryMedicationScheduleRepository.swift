import Foundation

/// The in-memory ``MedicationScheduleRepository``, from ``InMemoryMedicationStore/schedules``.
public struct InMemoryMedicationScheduleRepository: MedicationScheduleRepository {
    let tables: InMemoryMedicationTables

    @discardableResult
    public func create(_ schedule: MedicationSchedule) async throws -> MedicationSchedule {
        try await tables.createSchedule(schedule)
    }

    @discardableResult
    public func update(_ schedule: MedicationSchedule) async throws -> MedicationSchedule {
        try await tables.updateSchedule(schedule)
    }

    public func get(_ id: UUID) async throws -> MedicationSchedule {
        try await tables.getSchedule(id)
    }

    public func list(medicationID: UUID) async throws -> [MedicationSchedule] {
        await tables.listSchedules(medicationID: medicationID)
    }

    public func list(patientID: UUID) async throws -> [MedicationSchedule] {
        await tables.listSchedules(patientID: patientID)
    }

    @discardableResult
    public func revise(_ schedule: MedicationSchedule, effectiveFrom day: CalendarDate) async throws -> MedicationSchedule {
        try await tables.reviseSchedule(schedule, effectiveFrom: day)
    }

    @discardableResult
    public func pause(_ id: UUID, from: CalendarDate, through: CalendarDate?) async throws -> MedicationSchedule {
        try await tables.pauseSchedule(id, from: from, through: through)
    }

    @discardableResult
    public func resume(_ id: UUID, on day: CalendarDate) async throws -> MedicationSchedule {
        try await tables.resumeSchedule(id, on: day)
    }

    @discardableResult
    public func end(_ id: UUID, lastDay: CalendarDate) async throws -> MedicationSchedule {
        try await tables.endSchedule(id, lastDay: lastDay)
    }

    @discardableResult
    public func snooze(scheduleID: UUID, doseAt scheduledAt: Date) async throws -> DoseSnooze {
        try await tables.snooze(scheduleID: scheduleID, doseAt: scheduledAt)
    }

    @discardableResult
    public func snooze(medicationID: UUID, doseAt scheduledAt: Date, timeZone: TimeZone) async throws -> DoseSnooze {
        try await tables.snooze(medicationID: medicationID, doseAt: scheduledAt, timeZone: timeZone)
    }

    public func snoozes(patientID: UUID, in range: Range<Date>) async throws -> [DoseSnooze] {
        await tables.listSnoozes(patientID: patientID, in: range)
    }
}
