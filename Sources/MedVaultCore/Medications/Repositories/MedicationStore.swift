import Foundation

/// Medications and dose logs kept together, so that logging a dose can change the
/// inventory in the same transaction, plus the clock the store reads "now" from.
///
/// The day-plan, adherence and inventory queries (``doses(forPatient:on:in:graceWindow:)``,
/// ``adherence(forPatient:from:through:in:graceWindow:)``, ``lowInventory(forPatient:)``,
/// ``expiring(forPatient:withinDays:in:)``…) are written once, in an extension, on
/// top of the repository requirements, ``doseInputs(forPatient:medicationID:in:)`` and
/// the pure ``DoseExpansion``, ``DoseResolution`` and ``AdherenceCalculator``: every
/// implementation answers them identically.
///
/// Implementations: ``InMemoryMedicationStore`` (for tests and previews) and the
/// SQLCipher store in the `MedVault` module.
public protocol MedicationStore: MedicationRepository, DoseLogRepository {
    /// The clock that stamps records and decides which doses are already missed.
    var clock: RecordClock { get }

    /// What the day-plan and adherence queries need, read from one state of the store.
    ///
    /// The default implementation composes ``MedicationRepository/medications(forPatient:filter:)``,
    /// ``MedicationRepository/schedules(forPatient:)`` (or ``MedicationRepository/schedules(forMedication:)``)
    /// and ``DoseLogRepository/logs(forPatient:in:)`` (or ``DoseLogRepository/history(forMedication:in:)``):
    /// three reads, which a concurrent write may separate. A store that can read them in one transaction
    /// overrides it (the SQLCipher store does: one read transaction, one snapshot).
    /// An override must return exactly what the default returns on the same data.
    ///
    /// For example:
    ///
    /// ```swift
    /// let week = LocalTime.interval(from: monday, through: sunday, in: zone)
    /// let inputs = try await store.doseInputs(forPatient: patientID, medicationID: nil, in: week)
    /// print(inputs.medications.count, inputs.schedules.count, inputs.logs.count)
    /// ```
    ///
    /// - Parameters:
    ///   - patientID: The patient.
    ///   - medicationID: Only this medication, with its schedules and logs; all
    ///     three are empty when it is not one of the patient's. `nil` for all of the
    ///     patient's medications.
    ///   - range: The half-open instant range of the logs.
    /// - Returns: The medications (active or not), their schedules and their logs in `range`.
    /// - Throws: A storage error.
    func doseInputs(forPatient patientID: UUID, medicationID: UUID?, in range: Range<Date>) async throws -> DoseInputs
}

extension MedicationStore {
    /// The default ``doseInputs(forPatient:medicationID:in:)``: three reads through
    /// the repository requirements.
    public func doseInputs(forPatient patientID: UUID, medicationID: UUID?, in range: Range<Date>) async throws -> DoseInputs {
        let medications = try await self.medications(forPatient: patientID, filter: .all)
        guard let medicationID else {
            return DoseInputs(medications: medications,
                              schedules: try await schedules(forPatient: patientID),
                              logs: try await logs(forPatient: patientID, in: range))
        }
        let own = medications.filter { $0.id == medicationID }
        guard !own.isEmpty else { return DoseInputs() }
        return DoseInputs(medications: own,
                          schedules: try await schedules(forMedication: medicationID),
                          logs: try await history(forMedication: medicationID, in: range))
    }
}
