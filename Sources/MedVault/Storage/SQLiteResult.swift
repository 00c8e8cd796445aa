import CSQLCipher
import Foundation
import MedVaultCore

/// Maps SQLite result codes to ``MedVaultError``s whose text never carries data.
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

    static func error(_ code: Int32, connection: OpaquePointer?, context: String) -> MedVaultError {
        let primary = code & 0xFF
        let generic = sqlite3_errstr(code).map { String(cString: $0) } ?? "unknown error"
        if let connection, primary == SQLITE_CONSTRAINT,
           let message = sqlite3_errmsg(connection).map({ String(cString: $0) }),
           message.hasPrefix(triggerPrefix) {
            return triggerError(message, code: code)
        }
        let reason = "\(context): \(generic)"
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
            return MedVaultError(.corrupted, reason: reason, sqliteCode: code)
        case SQLITE_PERM, SQLITE_READONLY, SQLITE_AUTH:
            return MedVaultError(.permissionDenied, reason: reason, sqliteCode: code)
        case SQLITE_INTERRUPT:
            return MedVaultError(.cancelled, reason: reason, sqliteCode: code)
        default:
            return MedVaultError(.storage, reason: reason, sqliteCode: code)
        }
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
