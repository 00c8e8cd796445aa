import Foundation
import MedVaultCore
import MedVaultKeys

extension Vault {
    /// Writes a consistent copy of the vault — its database and a keyring that opens it —
    /// into the new folder `destination`, while the vault stays in use.
    ///
    /// The copy opens as a vault with the password and recovery key that were in force
    /// when the backup began (a password changed later, here or in another process,
    /// does not apply to it). It holds every record committed before the call, and
    /// possibly some committed during it: it is one snapshot of the database.
    ///
    /// ```swift
    /// let report = try await vault.backup(to: backupsFolder.appendingPathComponent("2026-11-23")) { step in
    ///     print(step.phase, step.fractionCopied)
    /// }
    /// print(report.recordCounts["patient"] ?? 0)
    /// ```
    ///
    /// How: under the keyring lock (a few milliseconds) the keyring is read and its
    /// database key taken; the database is exported (`sqlcipher_export`) from a read
    /// transaction on a connection of its own into a temporary folder beside
    /// `destination`, under the same key or a new one (``BackupOptions/newDatabaseKey``);
    /// the copy is synced and checked with a fresh connection (it opens, passes
    /// `PRAGMA integrity_check` and `PRAGMA foreign_key_check`, and every table has the
    /// rows the snapshot had); the keyring copy is written last; the folder is synced
    /// and renamed to `destination`. Writers continue meanwhile; a key rotation and
    /// ``lock()`` wait for the export (``lock()`` stops it at its next progress check).
    /// A crash leaves at most a hidden temporary folder (`.<name>.backup-<hex>`) beside
    /// `destination`, never a partial `destination`.
    ///
    /// - Parameters:
    ///   - destination: A folder that does not exist yet, or an empty one. Its parent must exist.
    ///   - options: Same or new database key.
    ///   - progress: Called at each phase and while copying.
    /// - Returns: The copy's schema version and record counts.
    /// - Throws: `duplicate` when `destination` is a folder that is not empty;
    ///   `invalidArgument` when it is a file, a link, a pipe, or inside the vault's folder;
    ///   `diskFull` when its file system lacks room for the database, its WAL and 4 MiB;
    ///   `locked`; `cancelled`; `corrupted` when the copy fails its checks; storage errors.
    ///   Nothing is left at `destination` after an error.
    @discardableResult
    public func backup(
        to destination: URL, options: BackupOptions = BackupOptions(),
        progress: @escaping @Sendable (BackupProgress) -> Void = { _ in }
    ) async throws -> BackupReport {
        let destination = destination.standardizedFileURL
        if destination.path == layout.folder.path || destination.path.hasPrefix(layout.folder.path + "/") {
            throw MedVaultError(.invalidArgument, field: "destination", reason: "a backup cannot go inside the vault's own folder")
        }
        try BackupFolder.checkNewDestination(destination)
        try BackupFolder.requireRoom(DiskSpace.bytesNeededForCopy(of: layout.database), for: destination, doing: "the backup")
        // A rotation of this vault between reading the keys and starting the snapshot
        // changes the key under the snapshot: start again with the new keys.
        for attempt in 1... {
            let keys = try await backupKeys(newDatabaseKey: options.newDatabaseKey)
            defer { keys.wipe() }
            let temporary = try BackupFolder.makeTemporary(besides: destination, purpose: "backup")
            do {
                let report = try await writeBackup(into: VaultLayout(folder: temporary), keys: keys,
                                                   newDatabaseKey: options.newDatabaseKey, progress: progress)
                try BackupFolder.install(temporary, at: destination)
                try await audit.record(.backup)
                try? await audit.checkpoint()
                progress(BackupProgress(phase: .finished, fractionCopied: 1))
                return report
            } catch is KeyRotatedDuringBackup where attempt < 3 {
                BackupFolder.remove(temporary)
            } catch is KeyRotatedDuringBackup {
                BackupFolder.remove(temporary)
                throw MedVaultError(.conflict, reason: "the database key kept being rotated while the backup started; try again")
            } catch {
                BackupFolder.remove(temporary)
                throw error
            }
        }
        // `for attempt in 1...` only ends by returning or throwing.
        throw MedVaultError(.conflict, reason: "the backup could not start")
    }

    /// The keyring to copy and the keys of the backup, read under the keyring lock (one
    /// key operation at a time, so no rotation of this vault runs meanwhile).
    private func backupKeys(newDatabaseKey: Bool) async throws -> BackupKeys {
        try await self.keys.perform { operation in
            let vaultKey = operation.vaultKey
            // A pending rotation never survives opening; drop one defensively, so the
            // copy's keyring names exactly the key its database is under.
            let keyring = try await operation.keyring().abandoningRotation(vaultKey: vaultKey)
            let sourceKey = try keyring.databaseKey(vaultKey: vaultKey)
            guard newDatabaseKey else {
                return BackupKeys(keyring: keyring, sourceKey: sourceKey, copyKey: try sourceKey.copy())
            }
            let (begun, copyKey) = try keyring.beginningRotation(vaultKey: vaultKey)
            return BackupKeys(keyring: try begun.completingRotation(vaultKey: vaultKey),
                              sourceKey: sourceKey, copyKey: copyKey)
        }
    }

    private func writeBackup(
        into copy: VaultLayout, keys: BackupKeys, newDatabaseKey: Bool,
        progress: @escaping @Sendable (BackupProgress) -> Void
    ) async throws -> BackupReport {
        let configuration = database.configuration
        let lockRequest = self.keys.lockRequest
        progress(BackupProgress(phase: .copying, fractionCopied: 0))
        let snapshot: DatabaseSnapshot.Contents
        do {
            snapshot = try await exportSnapshot(into: copy, keys: keys, progress: progress)
        } catch {
            // Stopped by lock(), or refused by the pool lock() closed: say `locked`.
            if lockRequest.isSet { throw Vault.lockedError }
            throw error
        }
        if lockRequest.isSet { throw Vault.lockedError }
        progress(BackupProgress(phase: .verifying, fractionCopied: 1))
        let migrator = MedVaultSchema.migrator(appending: options.appMigrations)
        let copied = try await BlockingWork.run {
            try DatabaseSnapshot.verify(copy.database, key: keys.copyKey, configuration: configuration, migrator: migrator)
        }
        guard copied.schemaVersion == snapshot.schemaVersion, copied.rowCounts == snapshot.rowCounts else {
            throw MedVaultError(.corrupted, reason: "the backup's copy does not hold the rows of the snapshot it was made from")
        }
        // Last: a folder with a keyring is a complete, verified copy.
        try KeyringFile.write(keys.keyring, to: copy.keyring)
        return BackupReport(vaultID: vaultID, schemaVersion: copied.schemaVersion,
                            recordCounts: Self.reportedCounts(copied.rowCounts),
                            databaseByteCount: DatabaseKeyChange.fileSize(copy.database),
                            hasNewDatabaseKey: newDatabaseKey)
    }

    /// Exports the database's snapshot into `copy`, admitted like a read: a rotation or
    /// `close()` waits until the export is done, so the file is never replaced under it.
    private func exportSnapshot(
        into copy: VaultLayout, keys: BackupKeys, progress: @escaping @Sendable (BackupProgress) -> Void
    ) async throws -> DatabaseSnapshot.Contents {
        let database = self.database
        let source = layout.database
        let configuration = database.configuration
        let lockRequest = self.keys.lockRequest
        let stop = LockRequest()
        return try await database.admitted {
            // A rotation in this process may have run since the keys were read.
            guard database.keyBox.key == keys.sourceKey else { throw KeyRotatedDuringBackup() }
            return try await withTaskCancellationHandler {
                try await BlockingWork.run {
                    try DatabaseSnapshot.export(source, sourceKey: keys.sourceKey, to: copy.database, copyKey: keys.copyKey,
                                                configuration: configuration) { fraction in
                        guard !lockRequest.isSet, !stop.isSet else { return false }
                        progress(BackupProgress(phase: .copying, fractionCopied: fraction))
                        return true
                    }
                }
            } onCancel: {
                stop.set()
            }
        }
    }

    /// The counts a report shows: MedVault's record tables.
    static func reportedCounts(_ counts: [String: Int]) -> [String: Int] {
        counts.filter { countedTables.contains($0.key) }
    }
}

/// The database key changed between reading the keyring and starting the snapshot.
private struct KeyRotatedDuringBackup: Error {}

/// The keyring a backup copies, the key the live database is under, and the key the
/// copy is written under (the same bytes, or new ones). Wiped when the backup ends.
struct BackupKeys: Sendable {
    let keyring: Keyring
    let sourceKey: SecureBytes
    let copyKey: SecureBytes

    func wipe() {
        sourceKey.wipe()
        copyKey.wipe()
    }
}
