/// What an audit-trail entry records: a change to a record, or a vault-wide event.
///
/// An open set (an app's own change-log operations appear under their own names);
/// switch with a `default`. Record actions mirror the change log's operations
/// (`ChangeOperation`): `ChangeOperation.insert` is ``create``.
///
/// ```swift
/// let exports = try await vault.audit.entries(actions: [.export, .fhirExport])
/// ```
public struct AuditAction: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The action's name (what the CLI prints and `--action` takes).
    public let rawValue: String

    /// An action named `rawValue`.
    public init(rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }

    // MARK: - Records

    /// A record was created (a signature: the session was signed; an addendum: added).
    public static let create = AuditAction(rawValue: "create")
    /// A record's fields changed.
    public static let update = AuditAction(rawValue: "update")
    /// A patient was deactivated or a medication made inactive.
    public static let deactivate = AuditAction(rawValue: "deactivate")
    /// A patient or medication became active again.
    public static let reactivate = AuditAction(rawValue: "reactivate")
    /// A clinical session was cancelled.
    public static let cancel = AuditAction(rawValue: "cancel")
    /// A record was deleted where its table allows it.
    public static let delete = AuditAction(rawValue: "delete")

    // MARK: - Events

    /// A patient's record was exported (`Vault.exportRecord(of:)`, `exportAllRecords()`).
    public static let export = AuditAction(rawValue: "export")
    /// A FHIR bundle of a patient was exported.
    public static let fhirExport = AuditAction(rawValue: "fhir-export")
    /// A backup was written.
    public static let backup = AuditAction(rawValue: "backup")
    /// The vault was restored from a backup.
    public static let restore = AuditAction(rawValue: "restore")
    /// Records were imported (each record imported also has its `create` entry).
    public static let importRecords = AuditAction(rawValue: "import")
    /// The vault was unlocked.
    public static let unlock = AuditAction(rawValue: "unlock")
    /// A password or recovery key was refused (counted in the keyring folder while the
    /// vault was locked, moved into the trail by the next unlock).
    public static let unlockFailed = AuditAction(rawValue: "unlock-failed")
    /// The password was changed.
    public static let passwordChange = AuditAction(rawValue: "password-change")
    /// A new recovery key replaced the old one.
    public static let recoveryKeyRegeneration = AuditAction(rawValue: "recovery-key-regeneration")
    /// A platform key slot was added or removed.
    public static let slotChange = AuditAction(rawValue: "slot-change")
    /// The database was re-encrypted under a new data key.
    public static let databaseKeyRotation = AuditAction(rawValue: "database-key-rotation")
    /// The vault's sync keys were used to seal or open a batch of envelopes.
    public static let sync = AuditAction(rawValue: "sync")

    /// Every action MedVault itself records, records first, then events.
    public static let builtIn: [AuditAction] = [
        .create, .update, .deactivate, .reactivate, .cancel, .delete, .export, .fhirExport, .backup, .restore,
        .importRecords, .unlock, .unlockFailed, .passwordChange, .recoveryKeyRegeneration, .slotChange,
        .databaseKeyRotation, .sync,
    ]
}
