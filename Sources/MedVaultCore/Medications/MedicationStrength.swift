/// How much active ingredient one unit of the dose holds: 850 mg per tablet, 50 mg
/// per ml. Separate from the dose (``Medication/dosage``: 1 tablet, 5 ml), which is
/// also the unit the inventory is counted in.
///
/// For example:
///
/// ```swift
/// let metformin = Medication(patientID: id, name: "Metformina",
///                            dosage: Dosage(amount: 1, unit: .tablets),
///                            strength: MedicationStrength(amount: 850, unit: .mg),
///                            frequency: .timesPerDay(2), startDate: start)
/// metformin.strengthPerDose // 850 mg
/// ```
public struct MedicationStrength: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The amount of active ingredient in one unit of the dose's unit; above zero.
    public var amount: MedicationQuantity
    /// The unit of ``amount`` (mg, g, units…).
    public var unit: DosageUnit

    /// Creates a strength.
    public init(amount: MedicationQuantity, unit: DosageUnit) {
        self.amount = amount
        self.unit = unit
    }

    /// `"<amount> <unit>"`, for example `"850 mg"`.
    public var description: String { "\(amount) \(unit.rawValue)" }
}

extension Medication {
    /// The active ingredient in one dose (strength × dose amount), or `nil` without a
    /// strength. A product past the exact range of ``MedicationQuantity`` (three
    /// decimals) is rounded down to the thousandth.
    public var strengthPerDose: MedicationStrength? {
        guard let strength else { return nil }
        let product = strength.amount.thousandths.multipliedReportingOverflow(by: dosage.amount.thousandths)
        guard !product.overflow else { return nil }
        return MedicationStrength(amount: MedicationQuantity(thousandths: product.partialValue / 1000), unit: strength.unit)
    }
}
