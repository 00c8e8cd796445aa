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
    /// The adherence streak at the end of the period, in days: the consecutive days,
    /// counted back from its last day, on which a dose was taken (on time or late) and
    /// none skipped or missed (doses still pending do not count against a day). A day
    /// with a skipped or missed dose ends the streak; a day with no expected dose, or
    /// only pending ones, neither counts nor ends it (see
    /// ``AdherenceCalculator/streakDays(of:through:in:)``).
    public var streakDays: Int

    /// Creates statistics.
    public init(expected: Int = 0, taken: Int = 0, late: Int = 0, skipped: Int = 0, missed: Int = 0, pending: Int = 0,
                streakDays: Int = 0) {
        self.expected = expected
        self.taken = taken
        self.late = late
        self.skipped = skipped
        self.missed = missed
        self.pending = pending
        self.streakDays = streakDays
    }

    /// `(taken + late) / expected`, or `nil` when nothing was expected.
    public var rate: Double? {
        expected == 0 ? nil : Double(taken + late) / Double(expected)
    }
}

extension AdherenceStats {
    private enum CodingKeys: String, CodingKey {
        case expected, taken, late, skipped, missed, pending, streakDays
    }

    /// Decodes statistics; ``streakDays`` is 0 when absent (encoded before it existed).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(expected: try container.decode(Int.self, forKey: .expected),
                  taken: try container.decode(Int.self, forKey: .taken),
                  late: try container.decode(Int.self, forKey: .late),
                  skipped: try container.decode(Int.self, forKey: .skipped),
                  missed: try container.decode(Int.self, forKey: .missed),
                  pending: try container.decode(Int.self, forKey: .pending),
                  streakDays: try container.decodeIfPresent(Int.self, forKey: .streakDays) ?? 0)
    }
}
