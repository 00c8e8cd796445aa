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
///
/// A schedule is one *version* of a series (``seriesID``): it is in force from
/// ``effectiveFrom`` through ``effectiveUntil``, except on its ``pauses``. Changing
/// the times from a given day on is ``MedicationScheduleRepository/revise(_:effectiveFrom:)``:
/// the current version ends the day before and a new one starts, so past days keep
/// the schedule that was in force then. Regimens: ``interval`` (every N days),
/// ``daysOfWeek``, ``taperSteps`` (amounts by date range) and per-time amounts
/// (``TimeOfDay/amount``). ``reminders`` holds the reminder lead time and snooze settings.
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
    /// The series this version belongs to: the identifier of its first version
    /// (the schedule's own ``id`` unless it was created by a revision).
    public var seriesID: UUID
    /// The first day this version is in force; `nil`: since the medication's start
    /// date (schedules stored before versions existed read this way).
    public var effectiveFrom: CalendarDate?
    /// The last day this version is in force, inclusive; `nil`: open-ended.
    public var effectiveUntil: CalendarDate?
    /// Days on which no dose is expected (see ``MedicationScheduleRepository/pause(_:from:through:)``).
    public var pauses: [SchedulePause]
    /// Every N days from a start date, or `nil` for every day (``daysOfWeek`` still applies).
    public var interval: DayInterval?
    /// A tapering regimen: the amount by date range; doses are expected only on days a
    /// step covers. Empty: no taper. Cannot be combined with per-time amounts.
    public var taperSteps: [TaperStep]
    /// Reminder lead time and snooze settings.
    public var reminders: ReminderSettings
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
        seriesID: UUID? = nil,
        effectiveFrom: CalendarDate? = nil,
        effectiveUntil: CalendarDate? = nil,
        pauses: [SchedulePause] = [],
        interval: DayInterval? = nil,
        taperSteps: [TaperStep] = [],
        reminders: ReminderSettings = .standard,
        createdAt: Date = Date(timeIntervalSince1970: 0),
        updatedAt: Date = Date(timeIntervalSince1970: 0),
        version: Int64 = 0
    ) {
        self.id = id
        self.medicationID = medicationID
        self.times = times
        self.daysOfWeek = daysOfWeek
        self.timeZoneIdentifier = timeZoneIdentifier
        self.seriesID = seriesID ?? id
        self.effectiveFrom = effectiveFrom
        self.effectiveUntil = effectiveUntil
        self.pauses = pauses
        self.interval = interval
        self.taperSteps = taperSteps
        self.reminders = reminders
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.version = version
    }

    /// The time zone, or `nil` when the identifier is unknown to this system.
    public var timeZone: TimeZone? { TimeZone(identifier: timeZoneIdentifier) }

    /// Whether doses are taken on `day` by weekday only (see ``expectsDoses(on:)``).
    public func applies(on day: CalendarDate) -> Bool {
        daysOfWeek.isEmpty || daysOfWeek.contains(Weekday(day))
    }
}

// MARK: - Codable

extension MedicationSchedule {
    enum CodingKeys: String, CodingKey {
        case id, medicationID, times, daysOfWeek, timeZoneIdentifier
        case seriesID, effectiveFrom, effectiveUntil, pauses, interval, taperSteps, reminders
        case createdAt, updatedAt, version
    }

    /// Decodes a schedule; the lifecycle, regimen and reminder fields are optional, so
    /// an export written before they existed reads as "in force since the medication
    /// started, every day, default reminders".
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let id = try c.decode(UUID.self, forKey: .id)
        self.init(
            id: id,
            medicationID: try c.decode(UUID.self, forKey: .medicationID),
            times: try c.decode([TimeOfDay].self, forKey: .times),
            daysOfWeek: try c.decode(Set<Weekday>.self, forKey: .daysOfWeek),
            timeZoneIdentifier: try c.decode(String.self, forKey: .timeZoneIdentifier),
            seriesID: try c.decodeIfPresent(UUID.self, forKey: .seriesID),
            effectiveFrom: try c.decodeIfPresent(CalendarDate.self, forKey: .effectiveFrom),
            effectiveUntil: try c.decodeIfPresent(CalendarDate.self, forKey: .effectiveUntil),
            pauses: try c.decodeIfPresent([SchedulePause].self, forKey: .pauses) ?? [],
            interval: try c.decodeIfPresent(DayInterval.self, forKey: .interval),
            taperSteps: try c.decodeIfPresent([TaperStep].self, forKey: .taperSteps) ?? [],
            reminders: try c.decodeIfPresent(ReminderSettings.self, forKey: .reminders) ?? .standard,
            createdAt: try c.decode(Date.self, forKey: .createdAt),
            updatedAt: try c.decode(Date.self, forKey: .updatedAt),
            version: try c.decode(Int64.self, forKey: .version))
    }
}
