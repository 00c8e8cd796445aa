/// A day of the week, numbered as ISO 8601 does (1 = Monday … 7 = Sunday), like
/// ``CalendarDate/isoWeekday``.
public enum Weekday: Int, Sendable, Hashable, Codable, CaseIterable, Comparable {
    case monday = 1, tuesday, wednesday, thursday, friday, saturday, sunday

    /// The weekday of `date`.
    public init(_ date: CalendarDate) {
        // isoWeekday is always 1...7.
        self = Weekday(rawValue: date.isoWeekday) ?? .monday
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}
