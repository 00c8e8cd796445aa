import Foundation

extension InMemoryMedicationTables {
    func createSchedule(_ schedule: MedicationSchedule) throws -> MedicationSchedule {
        guard tables.medications[schedule.medicationID] != nil else {
            throw MedVaultError.recordNotFound("medicationID")
        }
        let stored = try MedicationRecordRule.created(schedule, now: clock.now())
        guard tables.schedules[stored.id] == nil else { throw MedVaultError.duplicateRecord }
        tables.schedules[stored.id] = stored
        return stored
    }

    func updateSchedule(_ schedule: MedicationSchedule) throws -> MedicationSchedule {
        let current = try getSchedule(schedule.id)
        let stored = try MedicationUpdateRule.updated(schedule, replacing: current, now: clock.now())
        tables.schedules[stored.id] = stored
        return stored
    }

    func getSchedule(_ id: UUID) throws -> MedicationSchedule {
        guard let schedule = tables.schedules[id] else { throw MedVaultError.recordNotFound() }
        return schedule
    }

    func listSchedules(medicationID: UUID) -> [MedicationSchedule] {
        tables.schedules.values
            .filter { $0.medicationID == medicationID }
            .sorted { ($0.createdAt, $0.id.uuidString) < ($1.createdAt, $1.id.uuidString) }
    }

    func listSchedules(patientID: UUID) -> [MedicationSchedule] {
        tables.schedules.values
            .filter { tables.medications[$0.medicationID]?.patientID == patientID }
            .sorted { ($0.createdAt, $0.id.uuidString) < ($1.createdAt, $1.id.uuidString) }
    }
}
