import Foundation
import MedVaultCore

extension SQLCipherMedicationStore {
    /// What the day-plan and adherence queries need, in one read transaction: the
    /// medications, their schedules and their logs come from one snapshot, and the
    /// three statements cost one trip to a read connection instead of three.
    ///
    /// Returns exactly what the protocol's default implementation returns on the
    /// same data (a test compares it with `InMemoryMedicationStore`).
    ///
    /// - Parameters:
    ///   - patientID: The patient.
    ///   - medicationID: Only this medication (nothing when it is not the patient's);
    ///     `nil` for all of the patient's medications.
    ///   - range: The half-open instant range of the logs.
    /// - Throws: `corrupted` for a stored row that does not decode, or a storage error.
    public func doseInputs(forPatient patientID: UUID, medicationID: UUID?, in range: Range<Date>) async throws -> DoseInputs {
        let lower = VaultValue.integer(DoseLogRow.millisecondBound(range.lowerBound))
        let upper = VaultValue.integer(DoseLogRow.millisecondBound(range.upperBound))
        var inputs = try await pool.read { db in
            guard let medicationID else {
                let patient = patientID.vaultValue
                return DoseInputs(
                    medications: try db.fetchAll(MedicationRow.selectByPatient, [patient]) {
                        try MedicationRow.decode($0).medication
                    },
                    schedules: try db.fetchAll(SQLCipherMedicationScheduleRepository.selectByPatient, [patient], MedicationScheduleRow.decode),
                    logs: try db.fetchAll(SQLCipherDoseLogRepository.selectByPatient, [patient, lower, upper], DoseLogRow.decode))
            }
            guard let medication = try Self.findMedication(medicationID, db)?.medication,
                  medication.patientID == patientID
            else { return DoseInputs() }
            let id = medicationID.vaultValue
            return DoseInputs(
                medications: [medication],
                schedules: try db.fetchAll(SQLCipherMedicationScheduleRepository.selectByMedication, [id], MedicationScheduleRow.decode),
                logs: try db.fetchAll(SQLCipherDoseLogRepository.selectByMedication, [id, lower, upper], DoseLogRow.decode))
        }
        inputs.medications.sort(by: Medication.listOrder)
        return inputs
    }
}
