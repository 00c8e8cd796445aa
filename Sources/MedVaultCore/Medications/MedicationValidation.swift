import Foundation

/// The validation rules of medications, schedules and dose logs, shared by every
/// repository implementation.
///
/// Each check throws ``MedVaultError/Code/validation`` naming the offending field
/// (`"dosage.amount"`, `"times"`, `"timeZoneIdentifier"`…) with a fixed reason:
/// never the value.
public enum MedicationValidation {
    /// Checks a medication before it is created or updated.
    ///
    /// - Throws: A validation error for a blank name or generic name, a name or generic
    ///   name with a control or bidi formatting character, instructions with a control
    ///   character other than newline or tab (see ``TextSafety``), a dosage amount
    ///   not above zero, an end date before the start date, a frequency out of range,
    ///   a strength not above zero, or a negative inventory.
    public static func validate(_ medication: Medication) throws {
        if isBlank(medication.name) { throw MedVaultError.validation("name", "must not be blank") }
        if let generic = medication.genericName, isBlank(generic) {
            throw MedVaultError.validation("genericName", "must not be blank when present")
        }
        try checkCharacters(medication.name, field: "name")
        try checkCharacters(medication.genericName, field: "genericName")
        try checkCharacters(medication.instructions, field: "instructions", multiline: true)
        try checkCharacters(medication.dosage.unit.rawValue, field: "dosage.unit")
        try checkCharacters(medication.form.rawValue, field: "form")
        try checkCharacters(medication.route.rawValue, field: "route")
        if !medication.dosage.amount.isPositive {
            throw MedVaultError.validation("dosage.amount", "must be greater than zero")
        }
        if let strength = medication.strength {
            try checkCharacters(strength.unit.rawValue, field: "strength.unit")
            if !strength.amount.isPositive {
                throw MedVaultError.validation("strength.amount", "must be greater than zero")
            }
        }
        if let end = medication.endDate, end < medication.startDate {
            throw MedVaultError.validation("endDate", "must not be before the start date")
        }
        switch medication.frequency {
        case .asNeeded:
            break
        case .timesPerDay(let count):
            if !(1...24).contains(count) {
                throw MedVaultError.validation("frequency.timesPerDay", "must be between 1 and 24")
            }
        case .everyNHours(let hours, let anchor):
            if !(1...24).contains(hours) {
                throw MedVaultError.validation("frequency.hours", "must be between 1 and 24")
            }
            if !anchor.isValid {
                throw MedVaultError.validation("frequency.startingAt", "must be a time within 00:00-23:59")
            }
        case .specificTimes(let times):
            if times.isEmpty { throw MedVaultError.validation("frequency.times", "must not be empty") }
            if !times.allSatisfy(\.isValid) {
                throw MedVaultError.validation("frequency.times", "must be times within 00:00-23:59")
            }
            if times.contains(where: { $0.amount != nil }) {
                throw MedVaultError.validation("frequency.times.amount", "per-time amounts need a schedule")
            }
        }
        if let maximum = medication.maximumDosesPer24Hours, !(1...100).contains(maximum) {
            throw MedVaultError.validation("maximumDosesPer24Hours", "must be between 1 and 100")
        }
        if let inventory = medication.inventory {
            if inventory.current < .zero {
                throw MedVaultError.validation("inventory.current", "must not be negative")
            }
            if inventory.minimum < .zero {
                throw MedVaultError.validation("inventory.minimum", "must not be negative")
            }
            if let size = inventory.packageSize, !size.isPositive {
                throw MedVaultError.validation("inventory.packageSize", "must be greater than zero")
            }
        }
    }

    /// Checks a schedule before it is created or updated.
    ///
    /// - Throws: A validation error for no times, a time outside 00:00–23:59, a time
    ///   label with a control or bidi formatting character, or a
    ///   time zone identifier this system does not know.
    public static func validate(_ schedule: MedicationSchedule) throws {
        if schedule.times.isEmpty { throw MedVaultError.validation("times", "must not be empty") }
        if !schedule.times.allSatisfy(\.isValid) {
            throw MedVaultError.validation("times", "must be times within 00:00-23:59")
        }
        for time in schedule.times {
            try checkCharacters(time.label, field: "times.label")
        }
        if schedule.timeZone == nil {
            throw MedVaultError.validation("timeZoneIdentifier", "is not a known time zone")
        }
        try ScheduleRegimenValidation.validate(schedule)
    }

    /// Checks a dose log before it is stored.
    ///
    /// - Throws: A validation error for a pending status, a taken (or late) dose
    ///   without `takenAt`, a `takenAt` on a dose not taken, or a skip reason on a
    ///   dose not skipped, an amount on a dose not taken or not above zero.
    public static func validate(_ log: DoseLog) throws {
        switch log.status {
        case .pending:
            throw MedVaultError.validation("status", "a logged dose cannot be pending")
        case .taken, .late:
            if log.takenAt == nil { throw MedVaultError.validation("takenAt", "is required for a taken dose") }
        case .skipped, .missed:
            if log.takenAt != nil { throw MedVaultError.validation("takenAt", "must be empty for a dose not taken") }
        }
        if let amount = log.amount {
            if !log.consumesDose { throw MedVaultError.validation("amount", "is only allowed on a taken dose") }
            if !amount.isPositive { throw MedVaultError.validation("amount", "must be greater than zero") }
        }
        if log.skipReason != nil, log.status != .skipped {
            throw MedVaultError.validation("skipReason", "is only allowed on a skipped dose")
        }
        try checkCharacters(log.skipReason?.rawValue, field: "skipReason")
        try checkCharacters(log.notes, field: "notes", multiline: true)
    }

    /// Throws when `text` holds characters ``TextSafety`` refuses in a line (or in a note).
    static func checkCharacters(_ text: String?, field: String, multiline: Bool = false) throws {
        var errors: [MedVaultError] = []
        ClinicalValidation.checkCharacters(text, field: field, multiline: multiline, into: &errors)
        try ClinicalValidation.throwFirst(errors)
    }

    static func isBlank(_ text: String) -> Bool {
        text.allSatisfy { $0.isWhitespace || $0.isNewline }
    }
}
