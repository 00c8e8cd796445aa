/// How often a medication is taken.
///
/// A medication's expected doses come from its schedules (``MedicationSchedule``);
/// when it has none, they come from its frequency, in the time zone of the query
/// (see ``DoseExpansion``):
///
/// - ``timesPerDay(_:)``: `n` doses spread over the waking day, 08:00 to 22:00
///   (`n` = 1: 08:00; `n` = 2: 08:00 and 22:00; `n` = 3: 08:00, 15:00, 22:00…).
/// - ``everyNHours(_:startingAt:)``: from the anchor time, every `n` hours, the
///   cycle restarting at the anchor every day, so every day has the same wall-clock
///   times (every 8 hours from 06:00: 06:00, 14:00, 22:00; every 5 hours from 08:00:
///   08:00, 13:00, 18:00, 23:00 and 04:00).
/// - ``specificTimes(_:)``: exactly these times.
/// - ``asNeeded``: no expected dose at all, whatever the schedules say; logged
///   doses are kept but excluded from adherence.
public enum MedicationFrequency: Sendable, Hashable, Codable {
    /// `n` times a day, `n` in 1…24.
    case timesPerDay(Int)
    /// Every `n` hours, `n` in 1…24, anchored at a time of day.
    case everyNHours(Int, startingAt: TimeOfDay)
    /// At these times of day (at least one).
    case specificTimes([TimeOfDay])
    /// Only when needed: no expected doses.
    case asNeeded

    /// Whether this is ``asNeeded``.
    public var isAsNeeded: Bool {
        if case .asNeeded = self { return true }
        return false
    }
}
