import Foundation

extension MedicationStore {
    /// The reminders an app's notification scheduler should schedule for a patient,
    /// those that fire in `[from, until)`, sorted by firing instant:
    ///
    /// - every expected dose not yet logged, at its schedule's lead time before the
    ///   dose, or at the end of its last snooze;
    /// - its follow-up, ``ReminderOptions/followUpMinutes`` later (default 15), for a
    ///   dose still not logged then;
    /// - low-stock and refill events, with the expected dose that takes the stock over
    ///   their thresholds (the inventory's minimum; ``ReminderOptions/refillLeadDays``
    ///   days of supply, default 7): see ``ReminderPlanner/stockReminders(medication:expected:logs:window:timeZone:options:)``.
    ///
    /// Each has a stable ``DoseReminder/ID/identifier`` to schedule and cancel it by.
    /// DST-correct: dose instants come from ``LocalTime``; leads, snoozes and follow-ups
    /// are real durations from them. Frequency-derived doses (medications without
    /// schedules) are read in `timeZone` and reminded at their time; stock events count
    /// days in `timeZone`, from a stock that is the inventory's at `from`.
    ///
    /// For example:
    ///
    /// ```swift
    /// let now = store.clock.now()
    /// for reminder in try await store.upcomingReminders(forPatient: id, from: now,
    ///                                                   until: now.addingTimeInterval(86_400)) {
    ///     scheduleNotification(at: reminder.remindAt, kind: reminder.kind, id: reminder.id.identifier)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - patientID: The patient.
    ///   - from: The first firing instant included.
    ///   - until: The first firing instant excluded.
    ///   - timeZone: The zone of frequency-derived doses and of stock events' days (default: GMT).
    ///   - options: Follow-ups and stock events (default ``ReminderOptions/standard``).
    /// - Throws: ``MedVaultError/Code/invalidArgument`` when `until` is before `from` or
    ///   more than ``ReminderPlanner/maximumWindow`` (31 days) after it, or an option is
    ///   out of range (``ReminderOptions/check()``).
    public func upcomingReminders(
        forPatient patientID: UUID, from: Date, until: Date, timeZone: TimeZone = .gmt,
        options: ReminderOptions = .standard
    ) async throws -> [DoseReminder] {
        guard until >= from else {
            throw MedVaultError(.invalidArgument, reason: "the end of the window is before its start")
        }
        guard ReminderPlanner.isPlausible(from), until.timeIntervalSince(from) <= ReminderPlanner.maximumWindow else {
            throw MedVaultError(.invalidArgument, reason: "the window must start at a plausible instant and span at most 31 days")
        }
        try options.check()
        let window = from..<until
        let range = ReminderPlanner.expansionRange(for: window, options: options)
        let inputs = try await doseInputs(forPatient: patientID, medicationID: nil, in: range)
        let snoozes = try await schedules.snoozes(patientID: patientID, in: range)
        let schedulesByMedication = Dictionary(grouping: inputs.schedules, by: \.medicationID)
        var expected: [ExpectedDose] = []
        var stock: [DoseReminder] = []
        for medication in inputs.medications {
            let doses = DoseExpansion.expectedDoses(
                for: medication, schedules: schedulesByMedication[medication.id] ?? [],
                in: range, fallbackTimeZone: timeZone)
            expected += doses
            stock += ReminderPlanner.stockReminders(medication: medication, expected: doses, logs: inputs.logs,
                                                    window: window, timeZone: timeZone, options: options)
        }
        let doses = ReminderPlanner.reminders(expected: expected, schedules: inputs.schedules, logs: inputs.logs,
                                              snoozes: snoozes, in: window, options: options)
        return ReminderPlanner.sorted(doses + stock)
    }
}
