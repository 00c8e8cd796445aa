import Foundation

/// Medications inside a unit of work (``VaultTransaction/medications``): the
/// synchronous mirror of ``MedicationRepository``, with the schedules and dose logs
/// as ``MedicationStore`` has them, the same rules, results and errors, in the unit's
/// transaction. Reads see the unit's own writes.
public protocol TransactionalMedicationStore {
    /// The medications' schedules.
    var schedules: any TransactionalMedicationScheduleRepository { get }
    /// What happened to doses.
    var doseLogs: any TransactionalDoseLogRepository { get }
    /// Stock added to the medications.
    var refills: any TransactionalMedicationRefillRepository { get }

    /// Stores a new medication, as ``MedicationRepository/create(_:)``.
    @discardableResult
    func create(_ medication: Medication) throws -> Medication

    /// Saves changes to a medication, as ``MedicationRepository/update(_:)``.
    @discardableResult
    func update(_ medication: Medication) throws -> Medication

    /// The medication with `id`, as ``MedicationRepository/get(_:)``.
    func get(_ id: UUID) throws -> Medication

    /// A patient's medications, as ``MedicationRepository/list(patientID:filter:)``.
    func list(patientID: UUID, filter: MedicationFilter) throws -> [Medication]

    /// Medications matching `query`, as ``MedicationRepository/search(_:patientID:)``.
    func search(_ query: String, patientID: UUID?) throws -> [Medication]

    /// Marks a medication inactive, as ``MedicationRepository/deactivate(_:)``.
    @discardableResult
    func deactivate(_ id: UUID) throws -> Medication
}
