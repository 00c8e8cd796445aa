/// How well doses were taken over a period.
///
/// Counts only *expected* doses (from schedules and frequency; as-needed
/// medications are excluded). A dose still ``DoseStatus/pending`` (its grace window
/// has not passed) is reported in ``pending`` and is not yet part of ``expected``:
/// `expected == taken + late + skipped + missed`.
/// Logs that match no expected dose (off-schedule or as-needed) are not counted.
public struct AdherenceStats: Sendable, Hashable, Codable {
    /// Doses that were due and whose outcome is known.
    public var expected: Int
    /// Taken within the grace window.
    public var taken: Int
    /// Taken after the grace window.
    public var late: Int
    /// Skipped.
    public var skipped: Int
    /// Missed (logged as missed, or never logged).
    public var missed: Int
    /// Due later, or still within their grace window.
    public var pending: Int

    /// Creates statistics.
    public init(expected: Int = 0, taken: Int = 0, late: Int = 0, skipped: Int = 0, missed: Int = 0, pending: Int = 0) {
        self.expected = expected
        self.taken = taken
        self.late = late
        self.skipped = skipped
        self.missed = missed
        self.pending = pending
    }

    /// `(taken + late) / expected`, or `nil` when nothing was expected.
    public var rate: Double? {
        expected == 0 ? nil : Double(taken + late) / Double(expected)
    }
}
