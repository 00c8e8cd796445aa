/// A range of calendar days on which a schedule expects no dose: from ``from``
/// through ``through`` inclusive, or open-ended until the schedule is resumed.
///
/// For example:
///
/// ```swift
/// // Paused for a week, then resumed automatically.
/// let week = SchedulePause(from: try CalendarDate(iso8601: "2026-03-09"),
///                          through: try CalendarDate(iso8601: "2026-03-15"))
/// ```
public struct SchedulePause: Sendable, Hashable, Codable {
    /// The first day without doses.
    public var from: CalendarDate
    /// The last day without doses, inclusive; `nil` until the schedule is resumed.
    public var through: CalendarDate?

    /// Creates a pause.
    public init(from: CalendarDate, through: CalendarDate? = nil) {
        self.from = from
        self.through = through
    }

    /// Whether `day` lies within the pause.
    public func contains(_ day: CalendarDate) -> Bool {
        day >= from && (through.map { day <= $0 } ?? true)
    }
}
