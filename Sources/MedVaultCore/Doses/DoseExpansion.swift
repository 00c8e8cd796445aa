import Foundation

/// Expands a medication's schedules (or, without schedules, its frequency) into
/// the doses it expects in an instant range. Pure: both repository implementations
/// call it, so they cannot disagree on what was expected.
///
/// Rules:
/// - An as-needed medication expects nothing. An inactive one expects nothing from
///   its ``Medication/deactivatedAt`` on (nothing at all when that is unknown): past
///   days keep their doses.
/// - With schedules, each schedule version gives its times on the days it expects
///   doses (``MedicationSchedule/expectsDoses(on:)``: in force, not paused, on its days
///   of week, on its interval, within a taper step), in its own time zone. Without
///   schedules, the frequency gives the times (see ``MedicationFrequency``), in
///   `fallbackTimeZone`.
/// - A dose belongs to the calendar day of its wall-clock time in that zone; that
///   day must lie within the medication's start and end dates.
/// - Daylight saving follows ``LocalTime``: a nonexistent time moves forward by the
///   gap, a repeated time takes its first occurrence: exactly one dose each.
/// - Two times giving the same instant for the same medication are one dose (the
///   first label wins), since a medication has at most one log per instant.
public enum DoseExpansion {
    /// The wall-clock times a frequency gives when the medication has no schedule
    /// (empty for ``MedicationFrequency/asNeeded``). Invalid times are dropped.
    public static func times(for frequency: MedicationFrequency) -> [TimeOfDay] {
        switch frequency {
        case .asNeeded:
            return []
        case .specificTimes(let times):
            return times.filter(\.isValid).sorted()
        case .timesPerDay(let count):
            guard (1...24).contains(count) else { return [] }
            if count == 1 { return [TimeOfDay(hour: 8)] }
            // Spread over the waking day, 08:00 to 22:00 (840 minutes).
            return (0..<count).map { index in
                let minutes = 480 + index * 840 / (count - 1)
                return TimeOfDay(hour: minutes / 60, minute: minutes % 60)
            }
        case .everyNHours(let hours, let anchor):
            guard (1...24).contains(hours), anchor.isValid else { return [] }
            return stride(from: 0, to: 24, by: hours).map { offset in
                let minutes = (anchor.minutesSinceMidnight + offset * 60) % 1440
                return TimeOfDay(hour: minutes / 60, minute: minutes % 60)
            }.sorted()
        }
    }

    /// The doses `medication` expects with `scheduledAt` in `range`, sorted by instant.
    ///
    /// - Parameters:
    ///   - medication: The medication.
    ///   - schedules: Its schedules (others' are ignored).
    ///   - range: The half-open instant range.
    ///   - fallbackTimeZone: The zone of frequency-derived times, when there is no schedule.
    public static func expectedDoses(
        for medication: Medication,
        schedules: [MedicationSchedule],
        in range: Range<Date>,
        fallbackTimeZone: TimeZone
    ) -> [ExpectedDose] {
        guard !medication.frequency.isAsNeeded else { return [] }
        var range = range
        if !medication.isActive {
            guard let deactivatedAt = medication.deactivatedAt, deactivatedAt > range.lowerBound else { return [] }
            range = range.lowerBound..<min(range.upperBound, deactivatedAt)
        }
        let own = schedules.filter { $0.medicationID == medication.id }
        var plans: [(times: [TimeOfDay], schedule: MedicationSchedule?, zone: TimeZone)] = []
        if own.isEmpty {
            plans.append((times(for: medication.frequency), nil, fallbackTimeZone))
        } else {
            for schedule in own {
                // Validation refuses unknown zones; one decoded from elsewhere is skipped.
                guard let zone = schedule.timeZone else { continue }
                plans.append((schedule.times.filter(\.isValid).sorted(), schedule, zone))
            }
        }

        var byInstant: [Int64: ExpectedDose] = [:]
        for plan in plans where !plan.times.isEmpty {
            // A local day that overlaps the range starts at most a day before the
            // range's first local day (offsets are under 24 hours).
            var day = CalendarDate(range.lowerBound, in: plan.zone).adding(days: -1)
            let lastDay = CalendarDate(range.upperBound, in: plan.zone).adding(days: 1)
            while day <= lastDay {
                defer { day = day.adding(days: 1) }
                guard medication.isInTreatment(on: day), plan.schedule?.expectsDoses(on: day) ?? true
                else { continue }
                for time in plan.times {
                    let instant = LocalTime.instant(on: day, minutesSinceMidnight: time.minutesSinceMidnight, in: plan.zone)
                    guard range.contains(instant) else { continue }
                    let key = instant.millisecondsSince1970
                    if byInstant[key] == nil {
                        byInstant[key] = ExpectedDose(
                            medicationID: medication.id, scheduledAt: instant, label: time.label,
                            amount: plan.schedule?.amount(on: day, at: time), scheduleID: plan.schedule?.id)
                    }
                }
            }
        }
        return byInstant.values.sorted { $0.scheduledAt < $1.scheduledAt }
    }
}
