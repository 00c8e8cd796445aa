import Foundation

extension MedicationStore {
    // MARK: - A day's doses

    /// A patient's doses on calendar day `day` in `timeZone`: every dose expected by
    /// the active medications' schedules (or frequencies, read in `timeZone`), each
    /// with its status as of the store clock's now, plus the logs of the day that
    /// match no expected dose (as-needed intakes), sorted by instant.
    ///
    /// Expected doses are computed, not stored: nothing is written until a dose is logged.
    ///
    /// For example:
    ///
    /// ```swift
    /// let madrid = TimeZone(identifier: "Europe/Madrid")!
    /// let today = CalendarDate(store.clock.now(), in: madrid)
    /// for dose in try await store.doses(forPatient: patientID, on: today, in: madrid) {
    ///     print(dose.scheduledAt, dose.status) // pending, taken, late, skipped, missed
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - patientID: The patient.
    ///   - day: The calendar day, in `timeZone`.
    ///   - timeZone: The zone that delimits the day.
    ///   - graceWindow: How long after its time a dose may still be taken on time
    ///     (default 60 minutes); an unlogged dose reads as missed once it has passed.
    /// - Throws: ``MedVaultError/Code/invalidArgument`` for a negative grace window.
    public func doses(
        forPatient patientID: UUID,
        on day: CalendarDate,
        in timeZone: TimeZone,
        graceWindow: Duration = DoseResolution.defaultGraceWindow
    ) async throws -> [ScheduledDose] {
        try await resolvedDoses(forPatient: patientID, medicationID: nil, from: day, through: day,
                                in: timeZone, graceWindow: graceWindow)
    }

    // MARK: - Adherence

    /// Adherence of one medication over the calendar days `first...last` in `timeZone`.
    ///
    /// - Throws: ``MedVaultError/Code/notFound`` for an unknown medication,
    ///   ``MedVaultError/Code/invalidArgument`` when `last` is before `first` or the
    ///   grace window is negative.
    public func adherence(
        forMedication medicationID: UUID,
        from first: CalendarDate,
        through last: CalendarDate,
        in timeZone: TimeZone,
        graceWindow: Duration = DoseResolution.defaultGraceWindow
    ) async throws -> AdherenceStats {
        let medication = try await get(medicationID)
        let doses = try await resolvedDoses(forPatient: medication.patientID, medicationID: medicationID,
                                            from: first, through: last, in: timeZone, graceWindow: graceWindow)
        return Self.stats(of: doses, through: last, in: timeZone)
    }

    /// Adherence of all of a patient's medications over the calendar days
    /// `first...last` in `timeZone` (as-needed medications excluded).
    ///
    /// - Throws: ``MedVaultError/Code/invalidArgument`` when `last` is before `first`
    ///   or the grace window is negative.
    public func adherence(
        forPatient patientID: UUID,
        from first: CalendarDate,
        through last: CalendarDate,
        in timeZone: TimeZone,
        graceWindow: Duration = DoseResolution.defaultGraceWindow
    ) async throws -> AdherenceStats {
        let doses = try await resolvedDoses(forPatient: patientID, medicationID: nil,
                                            from: first, through: last, in: timeZone, graceWindow: graceWindow)
        return Self.stats(of: doses, through: last, in: timeZone)
    }

    private static func stats(of doses: [ScheduledDose], through last: CalendarDate, in timeZone: TimeZone) -> AdherenceStats {
        var stats = AdherenceCalculator.stats(of: doses)
        stats.streakDays = AdherenceCalculator.streakDays(of: doses, through: last, in: timeZone)
        return stats
    }

    // MARK: - Inventory

    /// A patient's active medications whose inventory is at or below its minimum.
    public func lowInventory(forPatient patientID: UUID) async throws -> [Medication] {
        try await list(patientID: patientID, filter: .active).filter { $0.inventory?.isLow == true }
    }

    /// A patient's active medications whose stock expires within `days` days of
    /// today (today in `timeZone`, by the store clock), already expired ones included.
    ///
    /// - Parameters:
    ///   - patientID: The patient.
    ///   - days: The horizon; 0 means "expires today or has expired".
    ///   - timeZone: The zone that decides which day today is.
    /// - Throws: ``MedVaultError/Code/invalidArgument`` for a negative `days`.
    public func expiring(forPatient patientID: UUID, withinDays days: Int, in timeZone: TimeZone) async throws -> [Medication] {
        guard days >= 0 else {
            throw MedVaultError(.invalidArgument, reason: "the horizon must not be negative")
        }
        let horizon = CalendarDate(clock.now(), in: timeZone).adding(days: days)
        return try await list(patientID: patientID, filter: .active).filter { medication in
            guard let expiration = medication.inventory?.expirationDate else { return false }
            return expiration <= horizon
        }
    }

    // MARK: - Shared

    private func resolvedDoses(
        forPatient patientID: UUID,
        medicationID: UUID?,
        from first: CalendarDate,
        through last: CalendarDate,
        in timeZone: TimeZone,
        graceWindow: Duration
    ) async throws -> [ScheduledDose] {
        guard last >= first else {
            throw MedVaultError(.invalidArgument, reason: "the last day is before the first")
        }
        guard graceWindow >= .zero else {
            throw MedVaultError(.invalidArgument, reason: "the grace window must not be negative")
        }
        let range = LocalTime.interval(from: first, through: last, in: timeZone)
        let inputs = try await doseInputs(forPatient: patientID, medicationID: medicationID, in: range)
        let schedulesByMedication = Dictionary(grouping: inputs.schedules, by: \.medicationID)
        var expected: [ExpectedDose] = []
        for medication in inputs.medications {
            expected += DoseExpansion.expectedDoses(
                for: medication, schedules: schedulesByMedication[medication.id] ?? [],
                in: range, fallbackTimeZone: timeZone
            )
        }
        let logs = inputs.logs.filter { range.contains($0.scheduledAt) }
        return DoseResolution.merge(expected: expected, logs: logs, now: clock.now(), graceWindow: graceWindow)
    }
}
