/// Where a clinical session stands: an open set of string values.
///
/// A ``completed`` session is part of the medical record: it can be amended but not
/// deleted, and its status cannot change any more.
public struct SessionStatus: ExtensibleCategory {
    /// The stored value.
    public let rawValue: String
    /// Wraps a stored value, known or not.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Planned, not yet held ("programada").
    public static let scheduled = SessionStatus(rawValue: "scheduled")
    /// Held and documented ("completada").
    public static let completed = SessionStatus(rawValue: "completed")
    /// Called off ("cancelada").
    public static let cancelled = SessionStatus(rawValue: "cancelled")

}
