/// A wall-clock time of day, hour and minute, with no date and no time zone.
///
/// Repositories reject a time outside 00:00–23:59 with a validation error; the
/// initializer does not check, so a value decoded from elsewhere can be validated
/// where it is saved.
///
/// For example:
///
/// ```swift
/// let breakfast = TimeOfDay(hour: 8, minute: 30, label: "With breakfast")
/// ```
public struct TimeOfDay: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// The hour, 0 through 23.
    public var hour: Int
    /// The minute, 0 through 59.
    public var minute: Int
    /// An optional label shown with the dose ("Morning", "With breakfast").
    public var label: String?
    /// The amount of the dose at this time, when it differs from the medication's
    /// dosage ("2 tablets in the morning, 1 at night"); above zero. Only schedules
    /// store it: a medication's `specificTimes` frequency refuses it.
    public var amount: MedicationQuantity?

    /// Creates a time of day.
    public init(hour: Int, minute: Int = 0, label: String? = nil, amount: MedicationQuantity? = nil) {
        self.hour = hour
        self.minute = minute
        self.label = label
        self.amount = amount
    }

    /// Whether the time is within 00:00–23:59.
    public var isValid: Bool { (0...23).contains(hour) && (0...59).contains(minute) }

    /// Minutes since midnight.
    public var minutesSinceMidnight: Int { hour * 60 + minute }

    /// `HH:MM`.
    public var description: String {
        let h = hour < 10 ? "0\(hour)" : "\(hour)"
        let m = minute < 10 ? "0\(minute)" : "\(minute)"
        return "\(h):\(m)"
    }

    /// Orders by clock time (labels and amounts do not take part).
    public static func < (lhs: Self, rhs: Self) -> Bool {
        lhs.minutesSinceMidnight < rhs.minutesSinceMidnight
    }
}
