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
}
