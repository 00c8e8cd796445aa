/// One step of a tapering regimen: the amount of every dose from ``from`` through
/// ``through`` (inclusive; `nil` for the last, open-ended step).
///
/// A schedule with taper steps expects doses only on days a step covers, each of
/// the step's amount (see ``MedicationSchedule/taperSteps``).
///
/// For example:
///
/// ```swift
/// let taper = [
///     TaperStep(from: try CalendarDate(iso8601: "2026-03-26"), through: try CalendarDate(iso8601: "2026-03-28"), amount: 40),
///     TaperStep(from: try CalendarDate(iso8601: "2026-03-29"), through: try CalendarDate(iso8601: "2026-03-31"), amount: 20),
/// ]
/// ```
public struct TaperStep: Sendable, Hashable, Codable {
    /// The first day of the step.
    public var from: CalendarDate
    /// The last day of the step, inclusive; `nil`: open-ended (only the last step).
    public var through: CalendarDate?
    /// The amount of each dose in the step, in the medication's dosage unit; above zero.
    public var amount: MedicationQuantity

    /// Creates a step.
    public init(from: CalendarDate, through: CalendarDate?, amount: MedicationQuantity) {
        self.from = from
        self.through = through
        self.amount = amount
    }

    /// Whether `day` lies within the step.
    public func contains(_ day: CalendarDate) -> Bool {
        day >= from && (through.map { day <= $0 } ?? true)
    }
}
