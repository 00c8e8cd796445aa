/// The name of a table whose changes the change log records: one of MedVault's record
/// tables, or an app table that opted in with
/// ``DatabaseConnection/logChange(in:id:operation:version:)``.
///
/// An open set: an app's own table is `VaultTable("app_reminder")` or the string
/// literal `"app_reminder"`.
///
/// ```swift
/// let changes = try await vault.changeNotifications(in: [.patient, .clinicalSession])
/// ```
public struct VaultTable: RawRepresentable, Hashable, Sendable, Codable, ExpressibleByStringLiteral,
    CustomStringConvertible {
    /// The SQL table name.
    public let rawValue: String

    /// A table named `rawValue`.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A table named `name`.
    public init(_ name: String) { self.rawValue = name }

    /// A table named by a string literal.
    public init(stringLiteral value: String) { self.rawValue = value }

    public var description: String { rawValue }

    /// The vault owner's profile.
    public static let professional = VaultTable("professional")
    /// Patients.
    public static let patient = VaultTable("patient")
    /// Clinical sessions.
    public static let clinicalSession = VaultTable("clinical_session")
    /// Diagnoses.
    public static let diagnosis = VaultTable("diagnosis")
    /// Attachments (logged once complete).
    public static let attachment = VaultTable("attachment")
    /// Medications.
    public static let medication = VaultTable("medication")
    /// Medication schedules.
    public static let medicationSchedule = VaultTable("medication_schedule")
    /// Dose logs.
    public static let doseLog = VaultTable("dose_log")
    /// A dose log's previous values, kept by a correction or a void (append-only).
    public static let doseLogRevision = VaultTable("dose_log_revision")
    /// Refill events (append-only).
    public static let medicationRefill = VaultTable("medication_refill")
    /// Explicit changes of a medication's stock (append-only; docs/medications.md, "Inventory").
    public static let medicationStockAdjustment = VaultTable("medication_stock_adjustment")
    /// Session signatures (one per signed session, keyed by the session's id).
    public static let sessionSignature = VaultTable("session_signature")
    /// Addenda of signed sessions (append-only).
    public static let sessionAddendum = VaultTable("session_addendum")

    /// Every MedVault record table the change log covers (and so sync and the audit
    /// trail): the tables `RecordTableRegistry` declares.
    public static let recordTables: Set<VaultTable> = Set(RecordTableRegistry.recordTables.map(\.table))
}
