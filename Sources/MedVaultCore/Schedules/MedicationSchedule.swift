import Foundation

/// When a medication is taken: times of day, on some days of the week, in a time zone.
///
/// The times are wall-clock times in ``timeZoneIdentifier`` (an IANA name such as
/// `"Europe/Madrid"`), so a patient who takes a pill at 08:00 keeps taking it at
/// 08:00 local time across daylight-saving changes. See ``DoseExpansion`` for the
/// days when 02:30 does not exist or happens twice.
///
/// For example:
///
/// ```swift
/// let schedule = MedicationSchedule(
///     medicationID: metformin.id,
///     times: [TimeOfDay(hour: 8, label: "Breakfast"), TimeOfDay(hour: 20, label: "Dinner")],
///     daysOfWeek: [],            // every day
///     timeZoneIdentifier: "Europe/Madrid"
/// )
/// try await medications.schedules.create(schedule)
/// ```
public struct MedicationSchedule: Sendable, Hashable, Codable, Identifiable {
    /// Client-generated identifier.
    public let id: UUID
    /// The medication this schedule belongs to; cannot change once created.
    public var medicationID: UUID
    /// The times of day (at least one, each within 00:00–23:59).
    public var times: [TimeOfDay]
    /// The days of the week doses are taken; empty means every day.
    public var daysOfWeek: Set<Weekday>
    /// The IANA time zone the times are in.
    public var timeZoneIdentifier: String
    /// When the record was created (set by the repository).
    public var createdAt: Date
    /// When the record was last changed (set by the repository).
    public var updatedAt: Date
    /// The stored version (set by the repository).
    public var version: Int64

    /// Creates a schedule not yet stored (version 0).
    public init(
        id: UUID = UUID(),
        medicationID: UUID,
        times: [TimeOfDay],
        daysOfWeek: Set<Weekday> = [],
        timeZoneIdentifier: String,
        createdAt: Date = Date(timeIntervalSince1970: 0),
        updatedAt: Date = Date(timeIntervalSince1970: 0),
        version: Int64 = 0
    ) {
        self.id = id
        self.medicationID = medicationID
        self.times = times
        self.daysOfWeek = daysOfWeek
        self.timeZoneIdentifier = timeZoneIdentifier
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.version = version
    }

    /// The time zone, or `nil` when the identifier is unknown to this system.
    public var timeZone: TimeZone? { TimeZone(identifier: timeZoneIdentifier) }

    /// Whether doses are taken on `day` (by weekday only).
    public func applies(on day: CalendarDate) -> Bool {
        daysOfWeek.isEmpty || daysOfWeek.contains(Weekday(day))
    }
}
