import Foundation

/// A patient's medication plan: the medications (this protocol is their
/// ``MedicationRepository``), their ``schedules`` and ``doseLogs``, kept together
/// so that logging a dose can change the inventory in the same transaction, plus
/// the clock the store reads "now" from.
///
/// The day-plan, adherence and inventory queries (``doses(forPatient:on:in:graceWindow:)``,
/// ``adherence(forPatient:from:through:in:graceWindow:)``, ``lowInventory(forPatient:)``,
/// ``expiring(forPatient:withinDays:in:)``…) are written once, in an extension, on
/// top of the repositories, ``doseInputs(forPatient:medicationID:in:)`` and the pure
/// ``DoseExpansion``, ``DoseResolution`` and ``AdherenceCalculator``: every
/// implementation answers them identically.
///
/// For example:
///
/// ```swift
/// let medication = try await store.create(ibuprofen)
/// try await store.schedules.create(MedicationSchedule(
///     medicationID: medication.id, times: [TimeOfDay(hour: 8)], timeZoneIdentifier: "Europe/Madrid"))
/// try await store.doseLogs.create(DoseLog(medicationID: medication.id, scheduledAt: at,
///                                         status: .taken, takenAt: at))
/// let today = try await store.doses(forPatient: patientID, on: day, in: madrid)
/// ```
///
/// Implementations: ``InMemoryMedicationStore`` (for tests and previews) and the
/// SQLCipher store in the `MedVault` module (`Vault.medications`).
public protocol MedicationStore: MedicationRepository {
    /// The medications' schedules.
    var schedules: any MedicationScheduleRepository { get }

    /// What happened to doses; creating a log of a taken dose decrements the inventory.
    var doseLogs: any DoseLogRepository { get }

    /// Stock added to the medications; each refill increases the inventory.
    var refills: any MedicationRefillRepository { get }

    /// The clock that stamps records and decides which doses are already missed.
    var clock: RecordClock { get }

    /// What the day-plan and adherence queries need, read from one state of the store.
    ///
    /// The default implementation composes ``MedicationRepository/list(patientID:filter:)``,
    /// ``MedicationScheduleRepository/list(patientID:)`` (or `list(medicationID:)`) and
    /// ``DoseLogRepository/list(patientID:in:)`` (or `list(medicationID:in:)`): three
    /// reads, which a concurrent write may separate. A store that can read them in one
    /// transaction overrides it (the SQLCipher store does: one read transaction, one
    /// snapshot). An override must return exactly what the default returns on the same data.
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
    /// the repositories.
    public func doseInputs(forPatient patientID: UUID, medicationID: UUID?, in range: Range<Date>) async throws -> DoseInputs {
        let medications = try await list(patientID: patientID, filter: .all)
        guard let medicationID else {
            return DoseInputs(medications: medications,
                              schedules: try await schedules.list(patientID: patientID),
                              logs: try await doseLogs.list(patientID: patientID, in: range))
        }
        let own = medications.filter { $0.id == medicationID }
        guard !own.isEmpty else { return DoseInputs() }
        return DoseInputs(medications: own,
                          schedules: try await schedules.list(medicationID: medicationID),
                          logs: try await doseLogs.list(medicationID: medicationID, in: range))
    }
}
