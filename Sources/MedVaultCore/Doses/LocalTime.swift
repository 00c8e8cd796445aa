import Foundation

/// Converts wall-clock times on calendar days to instants, with one fixed rule for
/// the days daylight-saving time begins or ends.
///
/// - A time that does not exist (it falls in the gap of a spring-forward day, such
///   as 02:30 in Europe/Madrid on 2026-03-29, when clocks jump from 02:00 to 03:00)
///   is shifted forward by the length of the gap: 02:30 becomes 03:30 local time.
/// - A time that occurs twice (it falls in the overlap of a fall-back day, such as
///   02:30 in Europe/Madrid on 2026-10-25, when clocks go from 03:00 back to 02:00)
///   takes its first occurrence (02:30 summer time, 00:30 UTC).
///
/// Each scheduled time therefore gives exactly one instant on every day. The same
/// rule gives the start of a day: on a day whose midnight does not exist, the day
/// starts at the first instant that does.
///
/// The conversion uses only `TimeZone.secondsFromGMT(for:)`, so it behaves the same
/// on every platform Foundation runs on.
public enum LocalTime {
    /// The instant at which the wall clock of `timeZone` reads `minutes` after
    /// midnight on `day`, resolved as the type documentation describes.
    ///
    /// For example:
    ///
    /// ```swift
    /// let madrid = TimeZone(identifier: "Europe/Madrid")!
    /// let day = try CalendarDate(iso8601: "2026-03-29")
    /// LocalTime.instant(on: day, minutesSinceMidnight: 150, in: madrid) // 01:30 UTC = 03:30 CEST
    /// ```
    ///
    /// - Parameters:
    ///   - day: The calendar day, in `timeZone`.
    ///   - minutesSinceMidnight: The wall-clock time; values past 1440 run into the next days.
    ///   - timeZone: The zone of the wall clock.
    /// - Returns: The instant, in whole seconds.
    public static func instant(on day: CalendarDate, minutesSinceMidnight: Int, in timeZone: TimeZone) -> Date {
        let local = Int64(day.dayNumber) * 86_400 + Int64(minutesSinceMidnight) * 60
        // Offsets a day before and a day after: every real zone has at most one
        // transition in that span, so these are the offsets in force either side.
        let before = Int64(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(local - 86_400))))
        let after = Int64(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(local + 86_400))))
        var valid: [Int64] = []
        for offset in Set([before, after]) {
            let candidate = local - offset
            if Int64(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(candidate)))) == offset {
                valid.append(candidate)
            }
        }
        // Overlap: both readings exist, take the earlier. Gap: neither exists; reading
        // the time with the offset in force before the jump lands `gap` later.
        let seconds = valid.min() ?? (local - before)
        return Date(timeIntervalSince1970: Double(seconds))
    }

    /// The first instant of `day` in `timeZone`.
    public static func startOfDay(_ day: CalendarDate, in timeZone: TimeZone) -> Date {
        instant(on: day, minutesSinceMidnight: 0, in: timeZone)
    }

    /// The half-open instant range `[start of first, start of the day after last)`
    /// covering the calendar days `first...last` in `timeZone`.
    public static func interval(from first: CalendarDate, through last: CalendarDate, in timeZone: TimeZone) -> Range<Date> {
        let start = startOfDay(first, in: timeZone)
        let end = startOfDay(last.adding(days: 1), in: timeZone)
        return start..<max(start, end)
    }
}
