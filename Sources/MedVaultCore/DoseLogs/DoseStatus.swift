/// The state of one dose.
///
/// A closed set, because dose resolution and adherence depend on every case.
/// ``pending`` and ``late`` are mostly *derived* when doses are read (see
/// ``DoseResolution``): a stored log says ``taken``, ``skipped`` or ``missed``, and a
/// taken dose reads as ``late`` when it was taken after the grace window.
public enum DoseStatus: String, Sendable, Hashable, Codable, CaseIterable {
    /// Not logged yet, and its grace window has not passed.
    case pending
    /// Taken within the grace window.
    case taken
    /// Deliberately not taken (see ``SkipReason``).
    case skipped
    /// Not taken: logged as missed, or not logged once the grace window passed.
    case missed
    /// Taken after the grace window.
    case late
}
