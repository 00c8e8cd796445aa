import Foundation

/// Counts resolved doses into ``AdherenceStats``. Pure: both repository
/// implementations call it.
public enum AdherenceCalculator {
    /// The statistics of `doses`: only expected doses count (logs that match no
    /// expected dose, such as as-needed intakes, are ignored); pending doses are
    /// reported apart and excluded from ``AdherenceStats/expected``.
    ///
    /// For example:
    ///
    /// ```swift
    /// let stats = AdherenceCalculator.stats(of: doses)
    /// stats.rate // (taken + late) / expected, nil when nothing was expected
    /// ```
    public static func stats(of doses: [ScheduledDose]) -> AdherenceStats {
        var stats = AdherenceStats()
        for dose in doses where dose.isExpected {
            switch dose.status {
            case .pending: stats.pending += 1
            case .taken: stats.taken += 1
            case .late: stats.late += 1
            case .skipped: stats.skipped += 1
            case .missed: stats.missed += 1
            }
        }
        stats.expected = stats.taken + stats.late + stats.skipped + stats.missed
        return stats
    }

    /// The streak of `doses` at the end of day `last` in `timeZone`: walking back day
    /// by day from `last`, each day whose expected doses include one taken (on time or
    /// late) and none skipped or missed counts 1; the first day with a skipped or
    /// missed dose ends the walk; a day with no expected dose, or only pending ones
    /// (today's doses still to come), is passed over. Logs that match no expected dose
    /// do not count.
    ///
    /// For example, with one dose a day: taken Monday to Wednesday, missed Thursday,
    /// taken Friday and Saturday, and Sunday's still pending, the streak on Sunday is 2.
    public static func streakDays(of doses: [ScheduledDose], through last: CalendarDate, in timeZone: TimeZone) -> Int {
        var byDay: [Int: (taken: Bool, broken: Bool)] = [:]
        for dose in doses where dose.isExpected {
            let day = CalendarDate(dose.scheduledAt, in: timeZone).dayNumber
            var state = byDay[day] ?? (false, false)
            switch dose.status {
            case .taken, .late: state.taken = true
            case .skipped, .missed: state.broken = true
            case .pending: break
            }
            byDay[day] = state
        }
        var streak = 0
        for day in byDay.keys.filter({ $0 <= last.dayNumber }).sorted(by: >) {
            let state = byDay[day]!
            if state.broken { break }
            if state.taken { streak += 1 }
        }
        return streak
    }
}
