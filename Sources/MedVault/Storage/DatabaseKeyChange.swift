import CSQLCipher
import Foundation
import MedVaultCore
import MedVaultKeys
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Re-encrypts a database under a new key, as a copy that replaces the original in
/// one atomic `rename`.
///
/// SQLCipher 3.4's `sqlite3_rekey` rewrites the file in place, reports success even
/// when its commit failed (for example with another connection open), and offers no
/// progress. MedVault instead exports the whole database into a new file encrypted
/// under the new key (`sqlcipher_export`), proves the copy with a fresh connection and
/// `PRAGMA integrity_check`, and only then renames it over the original. At every
/// instant the file at the database path is entirely under the old key or entirely
/// under the new one. The `Vault` records the pending key in the keyring before the
/// copy starts and finalises the keyring after the rename; `docs/key-rotation.md`
/// describes the whole protocol.
enum DatabaseKeyChange {
    /// The file the re-encrypted copy is written to, beside the database.
    static func copyURL(for database: URL) -> URL {
        URL(fileURLWithPath: database.path + ".rekey")
    }

    /// Writes a copy of the database at `source` (under `oldKey`) encrypted under
    /// `newKey` to `destination`, which must not exist.
    ///
    /// - Parameter progress: Called with the fraction done, 0…1; return `false` to stop
    ///   (the partial copy is removed and `cancelled` thrown).
    static func exportCopy(
        of source: URL, oldKey: SecureBytes, to destination: URL, newKey: SecureBytes,
        configuration: DatabaseConfiguration, progress: @escaping (Double) -> Bool
    ) throws {
        // The source's companions are opened by SQLite below; a planted link is refused.
        try DatabaseFile.checkCompanions(of: source)
        unlinkAll(destination)
        do {
            // Created empty and private first: connections are opened without
            // SQLITE_OPEN_CREATE, and an empty file is a new database to SQLite.
            let descriptor = open(destination.path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0o600)
            guard descriptor >= 0 else {
                throw DatabaseFile.fileError(errno, "creating the re-encrypted copy \(destination.lastPathComponent)")
            }
            close(descriptor)
            // A companion that could not be removed above (a folder) is refused, not followed.
            try DatabaseFile.checkCompanions(of: destination)
            let connection = try DatabaseConnection.open(path: source.path, key: oldKey, role: .writer,
                                                         configuration: configuration)
            defer { connection.close() }
            let literal = try DatabaseConnection.rawKeyLiteral(newKey)
            defer { literal.wipe() }
            try connection.attach(destination.path, as: "rekeyed", keyLiteral: literal)
            // The copy is written with the same settings as the original, the keyring's.
            try connection.applyCipherSettings(configuration.cipherSettings, schema: "rekeyed")
            let version = try connection.fetchOne("PRAGMA main.user_version") { row in row.int64(at: 0) } ?? 0
            let sourceSize = max(1, fileSize(source))
            let tracker = ExportProgress(destination: destination.path, expectedBytes: sourceSize, report: progress)
            try tracker.installed(on: connection) {
                try connection.executeScript("SELECT sqlcipher_export('rekeyed');")
            }
            try connection.executeScript("PRAGMA rekeyed.user_version = \(version);")
            // In WAL mode before it replaces the database: otherwise the first process
            // to open the swapped file switches its journal mode, which takes the file
            // exclusively while other processes start reading it (a `database is locked`
            // read, seen right after a rotation while another process opened the vault).
            let mode = try connection.fetchOne("PRAGMA rekeyed.journal_mode = WAL") { row in row.text(at: 0) }
            guard mode?.lowercased() == "wal" else {
                throw MedVaultError(.storage, reason: "the re-encrypted copy could not be switched to WAL mode")
            }
            try connection.executeScript("DETACH DATABASE rekeyed;")
            _ = progress(1)
        } catch {
            // Measured before the partial copy is removed, which frees its space.
            let failure = diskFullIfNoRoom(error, beside: destination)
            unlinkAll(destination)
            throw failure
        }
        try syncFile(destination)
    }

    /// SQLCipher 3.4's `sqlcipher_export` reports a write that ran out of space as a
    /// plain `SQLITE_ERROR` ("SQL logic error or missing database"). A copy that failed
    /// with less than ``DiskSpace/margin`` left on its disk ran out of room: said as
    /// `diskFull`, with what to do.
    static func diskFullIfNoRoom(_ error: any Error, beside copy: URL) -> any Error {
        guard let failure = error as? MedVaultError, failure.code != .cancelled, failure.code != .diskFull,
              let free = DiskSpace.availableBytes(in: copy.deletingLastPathComponent()),
              free < DiskSpace.margin else { return error }
        return MedVaultError(.diskFull, reason: """
            the disk filled while the re-encrypted copy was written (\(free / 1024) KiB left); \
            the database keeps its old key; free space and try again
            """, sqliteCode: failure.sqliteCode)
    }

    /// Opens `url` with `key` on a fresh connection and runs a full integrity check.
    ///
    /// - Throws: `wrongKey` when the key does not open it, `corrupted` when the check
    ///   finds a problem.
    static func verify(_ url: URL, key: SecureBytes, configuration: DatabaseConfiguration) throws {
        try checkRegularFile(url)
        try DatabaseFile.checkCompanions(of: url)
        let connection = try DatabaseConnection.open(path: url.path, key: key, role: .reader,
                                                     configuration: configuration)
        defer { connection.close() }
        let result = try connection.fetchAll("PRAGMA integrity_check") { row in row.text(at: 0) }
        guard result == ["ok"] else {
            throw MedVaultError(.corrupted, reason: "the re-encrypted database failed its integrity check")
        }
    }

    /// Atomically replaces `database` with `copy`; no connection may be open.
    ///
    /// - Returns: Whether the folder was synced, so the swap is durable. `false` means
    ///   the file at `database` *is* the copy now (the rename happened) but a power cut
    ///   could still bring the old one back: the caller must then keep both keys.
    /// - Throws: Only when the rename itself failed (the original is untouched).
    static func replace(_ database: URL, with copy: URL) throws -> Bool {
        // The old database's WAL was checkpointed when its pool closed; a leftover
        // WAL (under the old key) must never be applied to the new file.
        unlink(database.path + "-wal")
        unlink(database.path + "-shm")
        guard rename(copy.path, database.path) == 0 else {
            throw DatabaseFile.fileError(errno, "replacing the database with its re-encrypted copy")
        }
        // The verifying connection left the copy an empty `-wal` and a `-shm` (it was
        // in WAL mode, and wrote nothing): they pair with no file now.
        unlink(copy.path + "-wal")
        unlink(copy.path + "-shm")
        // From here nothing may throw: the file is under the new key.
        if (try? DatabaseFile.syncFolder(of: database)) != nil { return true }
        return (try? DatabaseFile.syncFolder(of: database)) != nil
    }

    /// Removes a copy left behind by an interrupted rotation.
    static func unlinkAll(_ url: URL) {
        for suffix in ["", "-journal", "-wal", "-shm"] {
            unlink(url.path + suffix)
        }
    }

    static func fileSize(_ url: URL) -> Int {
        var status = stat()
        return stat(url.path, &status) == 0 ? Int(status.st_size) : 0
    }

    /// Refuses a copy that is a link or not a regular file (planted after the export).
    private static func checkRegularFile(_ url: URL) throws {
        var status = stat()
        guard lstat(url.path, &status) == 0 else { throw DatabaseFile.fileError(errno, "examining \(url.lastPathComponent)") }
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            throw MedVaultError(.storage, reason: "\(url.lastPathComponent) is not a regular file; MedVault refuses to open it")
        }
    }

    private static func syncFile(_ url: URL) throws {
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { throw DatabaseFile.fileError(errno, "syncing the re-encrypted copy") }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw DatabaseFile.fileError(errno, "syncing the re-encrypted copy") }
    }
}

/// Reports an export's progress from SQLite's progress handler, by the size the
/// destination file has reached against the source's size.
private final class ExportProgress {
    let destination: String
    let expectedBytes: Int
    let report: (Double) -> Bool
    var stopped = false

    init(destination: String, expectedBytes: Int, report: @escaping (Double) -> Bool) {
        self.destination = destination
        self.expectedBytes = expectedBytes
        self.report = report
    }

    func installed(on connection: DatabaseConnection, _ body: () throws -> Void) throws {
        let context = Unmanaged.passUnretained(self).toOpaque()
        medvault_sqlite3_progress_handler(connection.handle, 1_000, { context in
            guard let context else { return 0 }
            let tracker = Unmanaged<ExportProgress>.fromOpaque(context).takeUnretainedValue()
            let written = DatabaseKeyChange.fileSize(URL(fileURLWithPath: tracker.destination))
            let fraction = min(0.99, Double(written) / Double(tracker.expectedBytes))
            if !tracker.report(fraction) {
                tracker.stopped = true
                return 1
            }
            return 0
        }, context)
        defer { medvault_sqlite3_progress_handler(connection.handle, 0, nil, nil) }
        do {
            try withExtendedLifetime(self) { try body() }
        } catch {
            if stopped {
                throw MedVaultError(.cancelled, reason: "the key rotation was stopped; the database keeps its old key")
            }
            throw error
        }
    }
}
