/// The records the day-plan and adherence queries of a ``MedicationStore`` work
/// from, read together from one state of the store (see
/// ``MedicationStore/doseInputs(forPatient:medicationID:in:)``).
public struct DoseInputs: Sendable, Hashable {
    /// The medications, active or not, in ``Medication/listOrder(_:_:)``.
    public var medications: [Medication]
    /// Their schedules, oldest first (by `createdAt`, then identifier).
    public var schedules: [MedicationSchedule]
    /// Their logs with `scheduledAt` in the requested range, sorted by instant.
    public var logs: [DoseLog]

    /// Creates a set of inputs; all empty by default.
    public init(medications: [Medication] = [], schedules: [MedicationSchedule] = [], logs: [DoseLog] = []) {
        self.medications = medications
        self.schedules = schedules
        self.logs = logs
    }
}
