/// The checks of a schedule's lifecycle, regimen and reminder fields, run by
/// ``MedicationValidation/validate(_:)-(MedicationSchedule)``.
enum ScheduleRegimenValidation {
    static func validate(_ schedule: MedicationSchedule) throws {
        if let from = schedule.effectiveFrom, let until = schedule.effectiveUntil, until < from {
            throw MedVaultError.validation("effectiveUntil", "must not be before effectiveFrom")
        }
        try checkRanges(schedule.pauses.map { ($0.from, $0.through) }, field: "pauses")
        if let interval = schedule.interval, !(1...366).contains(interval.days) {
            throw MedVaultError.validation("interval.days", "must be between 1 and 366")
        }
        try checkRanges(schedule.taperSteps.map { ($0.from, $0.through) }, field: "taperSteps")
        if schedule.taperSteps.contains(where: { !$0.amount.isPositive }) {
            throw MedVaultError.validation("taperSteps.amount", "must be greater than zero")
        }
        if schedule.times.contains(where: { $0.amount.map { !$0.isPositive } ?? false }) {
            throw MedVaultError.validation("times.amount", "must be greater than zero")
        }
        if !schedule.taperSteps.isEmpty, schedule.times.contains(where: { $0.amount != nil }) {
            throw MedVaultError.validation("times.amount", "cannot be combined with taper steps")
        }
        let reminders = schedule.reminders
        if !(0...1440).contains(reminders.leadMinutes) {
            throw MedVaultError.validation("reminders.leadMinutes", "must be between 0 and 1440")
        }
        if !(1...240).contains(reminders.snoozeMinutes) {
            throw MedVaultError.validation("reminders.snoozeMinutes", "must be between 1 and 240")
        }
        if !(0...10).contains(reminders.maximumSnoozes) {
            throw MedVaultError.validation("reminders.maximumSnoozes", "must be between 0 and 10")
        }
    }

    /// Date ranges in order, each ending on or after its start, not overlapping; only
    /// the last may be open-ended.
    private static func checkRanges(_ ranges: [(from: CalendarDate, through: CalendarDate?)], field: String) throws {
        var previousEnd: CalendarDate?
        for (index, range) in ranges.enumerated() {
            if let through = range.through, through < range.from {
                throw MedVaultError.validation(field, "a range must not end before it starts")
            }
            if index > 0 {
                guard let end = previousEnd, range.from > end else {
                    throw MedVaultError.validation(field, "ranges must be in order and must not overlap")
                }
            }
            previousEnd = range.through
        }
    }
}
