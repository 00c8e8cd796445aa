/// What a change-log entry records happened to its record.
///
/// An open set (later record types may add operations); switch with a `default`.
public struct ChangeOperation: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The stored name of the operation.
    public let rawValue: String

    /// An operation named `rawValue`.
    public init(rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }

    /// The record was created (an attachment: its content became complete and visible).
    public static let insert = ChangeOperation(rawValue: "insert")
    /// The record's fields changed.
    public static let update = ChangeOperation(rawValue: "update")
    /// A patient was deactivated (`deletedAt` set) or a medication made inactive.
    public static let deactivate = ChangeOperation(rawValue: "deactivate")
    /// A deactivated patient or inactive medication became active again.
    public static let reactivate = ChangeOperation(rawValue: "reactivate")
    /// A clinical session's status became `cancelled`.
    public static let cancel = ChangeOperation(rawValue: "cancel")
    /// The record was deleted, where its table allows it (sessions not yet completed,
    /// attachments of them, schedules, dose logs, app tables).
    public static let delete = ChangeOperation(rawValue: "delete")
}
