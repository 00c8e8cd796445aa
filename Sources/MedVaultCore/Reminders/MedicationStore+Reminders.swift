import Foundation

extension MedicationStore {
    /// The reminders an app's notification scheduler should schedule for a patient:
    /// every expected dose not yet logged whose reminder fires in `[from, until)`, at
    /// its schedule's lead time before the dose, or at the end of its last snooze;
    /// sorted by firing instant. DST-correct: dose instants come from ``LocalTime``.
    ///
    /// Frequency-derived doses (medications without schedules) are read in `timeZone`
    /// and reminded at their time.
    ///
    /// For example:
    ///
    /// ```swift
    /// let now = store.clock.now()
    /// for reminder in try await store.upcomingReminders(forPatient: id, from: now,
    ///                                                   until: now.addingTimeInterval(86_400)) {
    ///     scheduleNotification(at: reminder.remindAt, for: reminder.id)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - patientID: The patient.
    ///   - from: The first firing instant included.
    ///   - until: The first firing instant excluded.
    ///   - timeZone: The zone of frequency-derived doses (default: GMT).
    /// - Throws: ``MedVaultError/Code/invalidArgument`` when `until` is before `from` or
    ///   more than ``ReminderPlanner/maximumWindow`` (31 days) after it.
    public func upcomingReminders(
        forPatient patientID: UUID, from: Date, until: Date, timeZone: TimeZone = .gmt
    ) async throws -> [DoseReminder] {
        guard until >= from else {
            throw MedVaultError(.invalidArgument, reason: "the end of the window is before its start")
        }
        guard ReminderPlanner.isPlausible(from), until.timeIntervalSince(from) <= ReminderPlanner.maximumWindow else {
            throw MedVaultError(.invalidArgument, reason: "the window must start at a plausible instant and span at most 31 days")
        }
        let window = from..<until
        let range = ReminderPlanner.expansionRange(for: window)
        let inputs = try await doseInputs(forPatient: patientID, medicationID: nil, in: range)
        let snoozes = try await schedules.snoozes(patientID: patientID, in: range)
        let schedulesByMedication = Dictionary(grouping: inputs.schedules, by: \.medicationID)
        var expected: [ExpectedDose] = []
        for medication in inputs.medications {
            expected += DoseExpansion.expectedDoses(
                for: medication, schedules: schedulesByMedication[medication.id] ?? [],
                in: range, fallbackTimeZone: timeZone)
        }
        return ReminderPlanner.reminders(expected: expected, schedules: inputs.schedules, logs: inputs.logs,
                                         snoozes: snoozes, in: window)
    }
}
