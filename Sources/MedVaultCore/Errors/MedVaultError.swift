/// The one error type every MedVault module throws.
///
/// Switch on ``code`` to react to a failure; ``field`` names the offending field
/// of a validation error. Neither the message nor ``description`` ever contains a
/// field *value*: MedVault errors are safe to log in a clinical setting.
///
/// For example:
///
/// ```swift
/// do {
///     try await patients.update(patient)
/// } catch let error as MedVaultError where error.code == .conflict {
///     // Somebody else saved the patient first: reload and merge.
/// }
/// ```
public struct MedVaultError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is. An open set: new codes may be added in
    /// minor releases, so keep a `default` branch when you switch on it.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        // MARK: Keys and access

        /// The password does not open the vault.
        public static let wrongPassword = Code(rawValue: "wrongPassword")
        /// The recovery key does not open the vault (well-formed, but not this vault's).
        public static let wrongRecoveryKey = Code(rawValue: "wrongRecoveryKey")
        /// The raw data key does not decrypt the database.
        public static let wrongKey = Code(rawValue: "wrongKey")
        /// The sync secret does not open the keyring the sync server holds: well-formed,
        /// but not this vault's (or the server's bytes were changed).
        public static let wrongSyncSecret = Code(rawValue: "wrongSyncSecret")
        /// The vault was locked; unlock it again before using it.
        public static let locked = Code(rawValue: "locked")

        // MARK: Records

        /// No record has the requested identifier.
        public static let notFound = Code(rawValue: "notFound")
        /// The record was changed since it was read (stale `version`); nothing was written.
        public static let conflict = Code(rawValue: "conflict")
        /// A field failed validation; see ``MedVaultError/field`` and ``MedVaultError/reason``.
        public static let validation = Code(rawValue: "validation")
        /// The operation would change something the medical record keeps forever.
        public static let immutable = Code(rawValue: "immutable")
        /// A record with the same identifier already exists.
        public static let duplicate = Code(rawValue: "duplicate")
        /// A limit of the record would be exceeded (such as an as-needed medication's
        /// `maximumDosesPer24Hours`); nothing was written.
        public static let limitExceeded = Code(rawValue: "limitExceeded")

        // MARK: Files and storage

        /// Stored data failed an integrity check (digest, authentication tag, format).
        public static let corrupted = Code(rawValue: "corrupted")
        /// The file is not a MedVault database (plain SQLite, random bytes, empty, truncated).
        public static let notADatabase = Code(rawValue: "notADatabase")
        /// The file or vault does not exist and opening an existing one was asked.
        public static let fileNotFound = Code(rawValue: "fileNotFound")
        /// The operating system refused access to a file.
        public static let permissionDenied = Code(rawValue: "permissionDenied")
        /// The database schema is newer than this version of MedVault understands.
        public static let schemaTooNew = Code(rawValue: "schemaTooNew")
        /// The SQLCipher library in use is missing or does not encrypt.
        public static let encryptionUnavailable = Code(rawValue: "encryptionUnavailable")
        /// The task was cancelled; the transaction was rolled back.
        public static let cancelled = Code(rawValue: "cancelled")
        /// Another storage or I/O failure (disk full, I/O error, busy beyond the timeout…).
        public static let storage = Code(rawValue: "storage")
        /// An argument outside its documented range (a parameter, not a record field).
        public static let invalidArgument = Code(rawValue: "invalidArgument")
        /// The disk (or the file system's quota) has no room for the write; nothing was
        /// changed. Free space and try again.
        public static let diskFull = Code(rawValue: "diskFull")
        /// Another process (or another open `Vault` in this one) has the vault open, and
        /// the operation needs it alone (key rotation, destroy); or a key operation of
        /// another process did not finish within the wait.
        public static let vaultInUse = Code(rawValue: "vaultInUse")

        // MARK: Remote services (the ICD-11 catalogue)

        /// A server could not be reached (no network, connection refused, host unknown).
        public static let offline = Code(rawValue: "offline")
        /// A server did not answer within the timeout.
        public static let timeout = Code(rawValue: "timeout")
        /// A server refused the credentials (HTTP 401 or 403, or the token endpoint said no).
        public static let unauthorized = Code(rawValue: "unauthorized")
        /// The sync server's device token expired (its lifetime is the server's
        /// configuration). `SyncEngine` renews it by itself, proving the vault key with
        /// the expired token; only a direct user of a transport sees this code.
        public static let tokenExpired = Code(rawValue: "tokenExpired")
        /// A server asked to slow down (HTTP 429); see ``MedVaultError/retryAfter``.
        public static let rateLimited = Code(rawValue: "rateLimited")
        /// A server failed (HTTP 5xx).
        public static let serverError = Code(rawValue: "serverError")
        /// A server's answer could not be understood: truncated, malformed, an unexpected
        /// shape or status, or text MedVault refuses to store.
        public static let badResponse = Code(rawValue: "badResponse")
    }

    /// What kind of failure this is.
    public let code: Code
    /// For validation errors, the name of the offending field (`"firstName"`), never its value.
    public let field: String?
    /// A fixed, human-readable explanation. Never contains a record's field value.
    public let reason: String
    /// The SQLite (extended) result code, when the failure came from SQLCipher.
    public let sqliteCode: Int32?
    /// For ``Code/rateLimited``: how long the server asked to wait (`Retry-After`), when it said.
    public let retryAfter: Duration?

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: The kind of failure.
    ///   - field: The offending field's *name*, for validation errors.
    ///   - reason: A fixed explanation. Do not interpolate record values into it.
    ///   - sqliteCode: The SQLite result code, if any.
    ///   - retryAfter: For ``Code/rateLimited``, the wait the server asked for.
    public init(_ code: Code, field: String? = nil, reason: String, sqliteCode: Int32? = nil,
                retryAfter: Duration? = nil) {
        self.code = code
        self.field = field
        self.reason = reason
        self.sqliteCode = sqliteCode
        self.retryAfter = retryAfter
    }

    /// Shorthand for a validation error on `field`.
    public static func validation(_ field: String, _ reason: String) -> MedVaultError {
        MedVaultError(.validation, field: field, reason: reason)
    }

    public var description: String {
        var text = "MedVaultError.\(code.rawValue)"
        if let field { text += " [\(field)]" }
        text += ": \(reason)"
        if let sqliteCode { text += " (SQLite code \(sqliteCode))" }
        if let retryAfter { text += " (retry after \(retryAfter.components.seconds) s)" }
        return text
    }
}
