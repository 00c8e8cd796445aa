import Foundation

/// A day on the proleptic Gregorian calendar, with no time and no time zone.
///
/// Dates of birth, medication start and end dates and expiration dates are
/// calendar dates, not instants: "1984-03-07" must read back as the 7th of March
/// whatever time zone the process runs in. `CalendarDate` does its arithmetic on
/// day numbers, never through `Date`, so no time zone can shift it.
///
/// For example:
///
/// ```swift
/// let birth = try CalendarDate(iso8601: "1984-03-07")
/// birth.year            // 1984
/// birth.adding(days: 1) // 1984-03-08
/// ```
public struct CalendarDate: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// The year, 1 through 9999.
    public let year: Int
    /// The month, 1 through 12.
    public let month: Int
    /// The day of the month, 1 through 28–31.
    public let day: Int

    /// Creates a date, checking that it exists.
    ///
    /// - Throws: ``MedVaultError/Code/invalidArgument`` for a day that does not exist
    ///   (month 13, 30 February, year 0).
    public init(year: Int, month: Int, day: Int) throws {
        guard (1...9999).contains(year), (1...12).contains(month),
              (1...Self.daysInMonth(year: year, month: month)).contains(day)
        else {
            throw MedVaultError(.invalidArgument, reason: "not a valid calendar date")
        }
        self.year = year
        self.month = month
        self.day = day
    }

    /// Parses an ISO 8601 calendar date, `YYYY-MM-DD`.
    ///
    /// - Throws: ``MedVaultError/Code/invalidArgument`` when the text is not such a date.
    public init(iso8601 text: String) throws {
        // Byte by byte: exactly four, two and two ASCII digits around two hyphens.
        // (Every stored date is read through here, so no Character-level work.)
        var fields = (year: 0, month: 0, day: 0)
        var count = 0
        for byte in text.utf8 {
            defer { count += 1 }
            switch count {
            case 4, 7:
                guard byte == UInt8(ascii: "-") else { throw Self.malformed }
            case 0...9:
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { throw Self.malformed }
                let digit = Int(byte - UInt8(ascii: "0"))
                if count < 4 {
                    fields.year = fields.year * 10 + digit
                } else if count < 7 {
                    fields.month = fields.month * 10 + digit
                } else {
                    fields.day = fields.day * 10 + digit
                }
            default:
                throw Self.malformed
            }
        }
        guard count == 10 else { throw Self.malformed }
        try self.init(year: fields.year, month: fields.month, day: fields.day)
    }

    private static let malformed = MedVaultError(.invalidArgument, reason: "expected a date as YYYY-MM-DD")

    /// Creates the date with the given number of days since 1970-01-01.
    public init(dayNumber: Int) {
        // Howard Hinnant's civil_from_days.
        let z = dayNumber + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        self.year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        self.month = month
        self.day = day
    }

    /// The calendar date that the instant `date` falls on in `timeZone`.
    public init(_ date: Date, in timeZone: TimeZone) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        // Gregorian components of a real instant always form a valid date.
        self.init(unchecked: parts.year ?? 1970, parts.month ?? 1, parts.day ?? 1)
    }

    private init(unchecked year: Int, _ month: Int, _ day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// Days since 1970-01-01 (negative before it).
    public var dayNumber: Int {
        // Howard Hinnant's days_from_civil.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = month > 2 ? month - 3 : month + 9
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The date `days` days later (earlier when negative).
    public func adding(days: Int) -> CalendarDate {
        CalendarDate(dayNumber: dayNumber + days)
    }

    /// The ISO weekday: 1 = Monday … 7 = Sunday.
    public var isoWeekday: Int {
        // 1970-01-01 was a Thursday (4).
        let r = (dayNumber + 3) % 7
        return (r < 0 ? r + 7 : r) + 1
    }

    /// `YYYY-MM-DD`.
    public var iso8601: String {
        func pad(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))"
    }

    public var description: String { iso8601 }

    public static func < (lhs: CalendarDate, rhs: CalendarDate) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }

    /// The number of days in `month` of `year`.
    public static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2:
            let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
            return leap ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    // MARK: Codable, as an ISO string

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        try self.init(iso8601: text)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(iso8601)
    }
}
