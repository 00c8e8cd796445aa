/// "Every N days from a start date": a schedule with an interval expects doses on
/// ``startDate`` and every ``days`` days after it (before it, none).
///
/// Days are counted on the calendar, not in 24-hour periods, so the time of day
/// stays the same wall-clock time across daylight-saving changes.
///
/// For example:
///
/// ```swift
/// let everyOtherDay = DayInterval(days: 2, startDate: try CalendarDate(iso8601: "2026-03-27"))
/// everyOtherDay.contains(try CalendarDate(iso8601: "2026-03-29")) // true
/// ```
public struct DayInterval: Sendable, Hashable, Codable {
    /// The number of days between two dosing days, 1 through 366.
    public var days: Int
    /// The first dosing day.
    public var startDate: CalendarDate

    /// Creates an interval.
    public init(days: Int, startDate: CalendarDate) {
        self.days = days
        self.startDate = startDate
    }

    /// Whether `day` is a dosing day: on or after ``startDate``, a multiple of ``days`` later.
    public func contains(_ day: CalendarDate) -> Bool {
        let offset = day.dayNumber - startDate.dayNumber
        return offset >= 0 && days > 0 && offset % days == 0
    }
}
