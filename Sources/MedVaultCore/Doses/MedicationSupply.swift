import Foundation

/// How long a medication's stock lasts at its current plan: the answer of
/// ``MedicationStore/supply(forMedication:in:horizonDays:)``, computed by
/// ``SupplyForecast``.
public struct MedicationSupply: Sendable, Hashable {
    /// The medication.
    public var medicationID: UUID
    /// The stock on hand when computed, in the unit of the dose.
    public var stock: MedicationQuantity
    /// How many of the coming expected doses the stock covers in full.
    public var coveredDoses: Int
    /// Whole days from today the stock covers: the days before ``runOutDate``
    /// (0 when a dose still due today cannot be covered). `nil` when the stock lasts
    /// past the horizon, or the plan expects no dose (as needed, inactive, ended).
    public var daysOfSupply: Int?
    /// The calendar day of the first expected dose the stock cannot cover; `nil` as
    /// for ``daysOfSupply``.
    public var runOutDate: CalendarDate?

    /// Creates a supply.
    public init(medicationID: UUID, stock: MedicationQuantity, coveredDoses: Int,
                daysOfSupply: Int?, runOutDate: CalendarDate?) {
        self.medicationID = medicationID
        self.stock = stock
        self.coveredDoses = coveredDoses
        self.daysOfSupply = daysOfSupply
        self.runOutDate = runOutDate
    }
}

/// Days of supply and run-out date, written once for every store: the coming doses
/// come from ``DoseExpansion`` (so every regimen it expands is counted), each takes
/// the medication's dose from the stock, in order, until one cannot be covered.
///
/// Rules:
/// - Counted: the doses expected from `now` (inclusive) through the end of the
///   horizon's last day, in `timeZone` for frequency-derived times, that have no log
///   yet (a logged taken dose already left the stock).
/// - A dose is covered when the stock left is at least its amount; the first one
///   that is not gives the run-out date (its calendar day in `timeZone`).
/// - Days of supply = run-out date − today (days), in `timeZone`.
public enum SupplyForecast {
    /// The default horizon: a year and a day.
    public static let defaultHorizonDays = 366

    /// The supply of `medication`, or `nil` when it does not track an inventory.
    ///
    /// - Parameters:
    ///   - medication: The medication, with its inventory.
    ///   - schedules: Its schedules.
    ///   - logs: Its logs from `now` on (others are ignored).
    ///   - now: The instant the forecast starts.
    ///   - timeZone: The zone of "today" and of frequency-derived times.
    ///   - horizonDays: How many days from today to look ahead (at least 1).
    public static func supply(
        of medication: Medication, schedules: [MedicationSchedule], logs: [DoseLog],
        now: Date, in timeZone: TimeZone, horizonDays: Int = defaultHorizonDays
    ) -> MedicationSupply? {
        guard let inventory = medication.inventory else { return nil }
        let today = CalendarDate(now, in: timeZone)
        let end = LocalTime.startOfDay(today.adding(days: max(horizonDays, 1)), in: timeZone)
        let logged = Set(logs.filter { $0.medicationID == medication.id }.map(\.scheduledAt.millisecondsSince1970))
        let doses = DoseExpansion.expectedDoses(for: medication, schedules: schedules, in: now..<max(end, now),
                                                fallbackTimeZone: timeZone)
        var left = inventory.current
        var covered = 0
        for dose in doses where !logged.contains(dose.scheduledAt.millisecondsSince1970) {
            let amount = doseAmount(of: dose, for: medication)
            guard left >= amount else {
                let runOut = CalendarDate(dose.scheduledAt, in: timeZone)
                return MedicationSupply(medicationID: medication.id, stock: inventory.current, coveredDoses: covered,
                                        daysOfSupply: runOut.dayNumber - today.dayNumber, runOutDate: runOut)
            }
            left = left - amount
            covered += 1
        }
        return MedicationSupply(medicationID: medication.id, stock: inventory.current, coveredDoses: covered,
                                daysOfSupply: nil, runOutDate: nil)
    }

    /// The amount `dose` takes from the stock: what its schedule sets (a taper step or a
    /// per-time amount), else the medication's dose.
    static func doseAmount(of dose: ExpectedDose, for medication: Medication) -> MedicationQuantity {
        dose.amount ?? medication.dosage.amount
    }
}
