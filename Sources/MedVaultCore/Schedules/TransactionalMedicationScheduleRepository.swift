import Foundation

/// Schedules inside a unit of work (``TransactionalMedicationStore/schedules``): the
/// synchronous mirror of ``MedicationScheduleRepository``, with the same rules,
/// results and errors, in the unit's transaction. Reads see the unit's own writes.
public protocol TransactionalMedicationScheduleRepository {
    /// Stores a new schedule, as ``MedicationScheduleRepository/create(_:)``.
    @discardableResult
    func create(_ schedule: MedicationSchedule) throws -> MedicationSchedule

    /// Saves changes to a schedule, as ``MedicationScheduleRepository/update(_:)``.
    @discardableResult
    func update(_ schedule: MedicationSchedule) throws -> MedicationSchedule

    /// The schedule with `id`, as ``MedicationScheduleRepository/get(_:)``.
    func get(_ id: UUID) throws -> MedicationSchedule

    /// A medication's schedules, as ``MedicationScheduleRepository/list(medicationID:)``.
    func list(medicationID: UUID) throws -> [MedicationSchedule]

    /// A patient's schedules, as ``MedicationScheduleRepository/list(patientID:)``.
    func list(patientID: UUID) throws -> [MedicationSchedule]
}
