import CSQLCipher
import Foundation
import MedVaultCore

/// Maps SQLite result codes to `MedVaultError`s whose text never carries data.
///
/// SQLite's own `sqlite3_errmsg` can echo parts of a statement; MedVault reports the
/// generic text for the code (`sqlite3_errstr`) plus a fixed context instead. The
/// one exception is the message of MedVault's own triggers (`RAISE(ABORT, 'medvault: …')`),
/// which is fixed text written by MedVault and is passed through.
enum SQLiteResult {
    /// The prefix of every message raised by MedVault's SQL triggers.
    static let triggerPrefix = "medvault:"

    // Extended constraint codes; the C header defines them with macros Swift cannot import.
    static let constraintPrimaryKey: Int32 = SQLITE_CONSTRAINT | (6 << 8)
    static let constraintForeignKey: Int32 = SQLITE_CONSTRAINT | (3 << 8)
    static let constraintUnique: Int32 = SQLITE_CONSTRAINT | (8 << 8)

    /// The error for `code`.
    ///
    /// - Parameters:
    ///   - connection: The connection, to recognise MedVault's trigger messages.
    ///   - context: What was being done ("reading rows"); fixed text.
    ///   - file: The database file involved (its name is reported, never its content);
    ///     also used to tell a full disk from another I/O failure.
    static func error(_ code: Int32, connection: OpaquePointer?, context: String, file: URL? = nil) -> MedVaultError {
        let primary = code & 0xFF
        let generic = medvault_sqlite3_errstr(code).map { String(cString: $0) } ?? "unknown error"
        if let connection, primary == SQLITE_CONSTRAINT,
           let message = medvault_sqlite3_errmsg(connection).map({ String(cString: $0) }),
           message.hasPrefix(triggerPrefix) {
            return triggerError(message, code: code)
        }
        if let connection, primary == SQLITE_ERROR, isCodecFailure(connection) {
            return MedVaultError(.corrupted,
                                 reason: "\(context)\(file.map { " (\($0.lastPathComponent))" } ?? ""): a page of the database "
                                    + "does not decrypt or authenticate: the file is damaged; run `medvault verify` and restore a backup",
                                 sqliteCode: code)
        }
        let name = file.map { " (\($0.lastPathComponent))" } ?? ""
        let reason = "\(context)\(name): \(generic)"
        switch primary {
        case SQLITE_CONSTRAINT:
            if code == constraintUnique || code == constraintPrimaryKey {
                return MedVaultError(.duplicate, reason: reason, sqliteCode: code)
            }
            if code == constraintForeignKey {
                return MedVaultError(.notFound, reason: "\(context): a referenced record does not exist", sqliteCode: code)
            }
            return MedVaultError(.validation, reason: reason, sqliteCode: code)
        case SQLITE_NOTADB:
            return MedVaultError(.wrongKey, reason: reason, sqliteCode: code)
        case SQLITE_CORRUPT:
            return MedVaultError(.corrupted,
                                 reason: "\(context)\(name): the database file is damaged; run `medvault verify` and restore a backup",
                                 sqliteCode: code)
        case SQLITE_FULL:
            return MedVaultError(.diskFull, reason: "\(context)\(name): \(StorageSpace.diskFullAdvice)", sqliteCode: code)
        case SQLITE_IOERR where isOutOfSpace(file):
            return MedVaultError(.diskFull, reason: "\(context)\(name): \(StorageSpace.diskFullAdvice)", sqliteCode: code)
        case SQLITE_CANTOPEN:
            return MedVaultError(.storage,
                                 reason: "\(reason): the file, its -wal or -shm companion, or the vault folder "
                                    + "is missing, not a regular file, or not writable by this user",
                                 sqliteCode: code)
        case SQLITE_PERM, SQLITE_READONLY, SQLITE_AUTH:
            return MedVaultError(.permissionDenied, reason: reason, sqliteCode: code)
        case SQLITE_INTERRUPT:
            return MedVaultError(.cancelled, reason: reason, sqliteCode: code)
        default:
            return MedVaultError(.storage, reason: reason, sqliteCode: code)
        }
    }

    /// Whether an `SQLITE_ERROR` came from SQLCipher's page codec (a page whose HMAC
    /// does not verify) rather than from SQL: the codec sets the bare code with no
    /// message of its own, so `sqlite3_errmsg` is exactly the generic text, while every
    /// SQL-level `SQLITE_ERROR` ("no such table: …", "integer overflow") says more.
    private static func isCodecFailure(_ connection: OpaquePointer) -> Bool {
        guard let message = medvault_sqlite3_errmsg(connection).map({ String(cString: $0) }),
              let generic = medvault_sqlite3_errstr(SQLITE_ERROR).map({ String(cString: $0) })
        else { return false }
        return message == generic
    }

    /// Whether an I/O failure on `file` is explained by a full disk: `errno` still says
    /// so, or the folder has no usable space left.
    private static func isOutOfSpace(_ file: URL?) -> Bool {
        if StorageSpace.isOutOfSpace(errno: errno) { return true }
        guard let file else { return false }
        return StorageSpace.isExhausted(folder: file.deletingLastPathComponent().path)
    }

    /// `medvault: immutable: <fixed text>` → `.immutable`; `medvault: <code>: …` likewise.
    private static func triggerError(_ message: String, code: Int32) -> MedVaultError {
        let body = message.dropFirst(triggerPrefix.count).trimmingCharacters(in: .whitespaces)
        let parts = body.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
        let errorCode = parts.first.map { MedVaultError.Code(rawValue: $0) } ?? .storage
        let reason = parts.count > 1 ? parts[1] : body
        return MedVaultError(errorCode, reason: reason, sqliteCode: code)
    }
}
