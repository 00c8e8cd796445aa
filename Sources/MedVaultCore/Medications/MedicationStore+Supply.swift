import Foundation

extension MedicationStore {
    /// How long a medication's stock lasts at its current schedules: the doses it
    /// still covers, the days of supply and the day it runs out (see ``SupplyForecast``),
    /// as of the store clock's now.
    ///
    /// For example:
    ///
    /// ```swift
    /// if let supply = try await store.supply(forMedication: id, in: madrid),
    ///    let runOut = supply.runOutDate {
    ///     print("\(supply.daysOfSupply ?? 0) days left; runs out on \(runOut)")
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - medicationID: The medication.
    ///   - timeZone: The zone of "today" and of times derived from the frequency.
    ///   - horizonDays: How far ahead to look (default a year and a day).
    /// - Returns: The supply, or `nil` when the medication tracks no inventory.
    /// - Throws: ``MedVaultError/Code/notFound`` for an unknown medication,
    ///   ``MedVaultError/Code/invalidArgument`` for a horizon below 1 or above 3660 days.
    public func supply(
        forMedication medicationID: UUID, in timeZone: TimeZone,
        horizonDays: Int = SupplyForecast.defaultHorizonDays
    ) async throws -> MedicationSupply? {
        guard (1...3660).contains(horizonDays) else {
            throw MedVaultError(.invalidArgument, field: "horizonDays", reason: "must be between 1 and 3660")
        }
        let medication = try await get(medicationID)
        guard medication.inventory != nil else { return nil }
        let now = clock.now()
        let end = LocalTime.startOfDay(CalendarDate(now, in: timeZone).adding(days: horizonDays + 1), in: timeZone)
        let inputs = try await doseInputs(forPatient: medication.patientID, medicationID: medicationID,
                                          in: now..<end)
        // The inputs' copy: one snapshot with the schedules and logs.
        let current = inputs.medications.first { $0.id == medicationID } ?? medication
        return SupplyForecast.supply(of: current, schedules: inputs.schedules, logs: inputs.logs,
                                     now: now, in: timeZone, horizonDays: horizonDays)
    }
}
