import Foundation

/// Which reminders beyond each dose's own an app wants from
/// `MedicationStore.upcomingReminders(forPatient:from:until:timeZone:options:)`:
/// follow-ups for missed doses, low-stock and refill events.
///
/// For example:
///
/// ```swift
/// // Follow up after 30 minutes; remind to refill with 5 days of supply left.
/// let options = ReminderOptions(followUpMinutes: 30, refillLeadDays: 5)
/// ```
public struct ReminderOptions: Sendable, Hashable, Codable {
    /// Minutes after a dose's reminder last fired (its time, or the end of its last
    /// snooze) that a follow-up fires if the dose is still not logged, 1 through 1,440;
    /// `nil` for no follow-ups. Default 15.
    public var followUpMinutes: Int?
    /// A refill reminder fires with the first expected dose of the day from which the
    /// stock lasts at most this many days (the run-out day minus this many days), 0
    /// through 90; `nil` for no refill reminders. Default 7.
    public var refillLeadDays: Int?
    /// Whether a low-stock event fires with the expected dose that takes the stock to
    /// or below the inventory's minimum. Default `true`.
    public var lowStock: Bool

    /// Creates options; the defaults follow up after 15 minutes, remind to refill with
    /// 7 days of supply left, and report low stock.
    public init(followUpMinutes: Int? = 15, refillLeadDays: Int? = 7, lowStock: Bool = true) {
        self.followUpMinutes = followUpMinutes
        self.refillLeadDays = refillLeadDays
        self.lowStock = lowStock
    }

    /// The defaults: follow-ups after 15 minutes, refill at 7 days of supply, low stock.
    public static let standard = ReminderOptions()

    /// Only each dose's own reminder: no follow-up, refill or low-stock event.
    public static let dosesOnly = ReminderOptions(followUpMinutes: nil, refillLeadDays: nil, lowStock: false)

    /// The longest follow-up delay, 1,440 minutes.
    public static let maximumFollowUpMinutes = 1_440
    /// The longest refill lead, 90 days.
    public static let maximumRefillLeadDays = 90

    /// Throws when a value is out of range.
    ///
    /// - Throws: ``MedVaultError/Code/invalidArgument`` (field `followUpMinutes` or
    ///   `refillLeadDays`).
    public func check() throws {
        if let followUpMinutes, !(1...Self.maximumFollowUpMinutes).contains(followUpMinutes) {
            throw MedVaultError(.invalidArgument, field: "followUpMinutes", reason: "must be between 1 and 1440")
        }
        if let refillLeadDays, !(0...Self.maximumRefillLeadDays).contains(refillLeadDays) {
            throw MedVaultError(.invalidArgument, field: "refillLeadDays", reason: "must be between 0 and 90")
        }
    }
}
