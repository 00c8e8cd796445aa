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
}
