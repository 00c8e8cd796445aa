import Foundation
import MedVaultCore
import MedVaultKeys
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Vault {
    /// Restores the backup in `backup` (a folder written by ``backup(to:options:progress:)``)
    /// as the vault in `folder`, after verifying it with the backup's password.
    ///
    /// ```swift
    /// let report = try await Vault.restore(from: backupFolder, to: vaultFolder, password: password)
    /// let vault = try await Vault.open(at: vaultFolder, password: password)
    /// ```
    ///
    /// Nothing is replaced or created before the backup is verified: its files are
    /// copied into a private temporary folder beside `folder` and synced; the copy's
    /// keyring must open with `password` and unwrap a database key; the database must
    /// decrypt with it, pass `PRAGMA integrity_check` and `PRAGMA foreign_key_check`,
    /// and have a schema this build knows (an older one is migrated when the vault is
    /// next opened). Only then is the verified folder renamed into place:
    ///
    /// * `folder` missing or empty: one atomic rename.
    /// * `folder` holds a vault: only when no process has it open (its presence lock is
    ///   taken exclusively, under its keyring lock), the two folders are exchanged in one
    ///   atomic step (Linux `renameat2`, Darwin `renamex_np`), then the old keyring is
    ///   crypto-shredded and the old folder removed. Where the file system cannot
    ///   exchange, the old folder is renamed aside (`.<name>.replaced-<hex>`) and the new
    ///   one into place: a crash between the two renames leaves `folder` absent and both
    ///   complete vaults beside it; rename one of them back. At no instant is a
    ///   half-written vault at `folder` (docs/backup.md).
    ///
    /// - Parameters:
    ///   - backup: The backup's folder.
    ///   - folder: Where the vault goes.
    ///   - password: A password of the backup (the one in force when it was taken).
    ///   - options: Key-derivation, app migrations (to recognise the backup's schema) and `lockTimeout`.
    ///   - progress: Called while copying, verifying, and when finished.
    /// - Returns: The verified copy's schema version and record counts.
    /// - Throws: `wrongPassword`; `fileNotFound` when `backup` holds no keyring or
    ///   database; `corrupted` or `notADatabase` for a damaged or foreign backup;
    ///   `schemaTooNew`; `invalidArgument` for a `folder` that is a file, link or pipe,
    ///   or a folder holding files that are not a vault's; `vaultInUse`; `diskFull` when
    ///   the target's file system lacks room for the backup and 4 MiB. Nothing at
    ///   `folder` changes on any error.
    @discardableResult
    public static func restore(
        from backup: URL, to folder: URL, password: Password, options: Options = Options(),
        progress: @escaping @Sendable (BackupProgress) -> Void = { _ in }
    ) async throws -> BackupReport {
        try await restore(from: backup, to: folder, options: options, progress: progress) { keyring in
            try await BlockingWork.run { try keyring.unlock(password: password) }
        }
    }

    /// Restores a backup, verifying it with the backup's recovery key; see
    /// ``restore(from:to:password:options:progress:)``.
    ///
    /// - Throws: `wrongRecoveryKey`, and the errors of ``restore(from:to:password:options:progress:)``.
    @discardableResult
    public static func restore(
        from backup: URL, to folder: URL, recoveryKey: RecoveryKey, options: Options = Options(),
        progress: @escaping @Sendable (BackupProgress) -> Void = { _ in }
    ) async throws -> BackupReport {
        try await restore(from: backup, to: folder, options: options, progress: progress) { keyring in
            try keyring.unlock(recoveryKey: recoveryKey)
        }
    }

    private static func restore(
        from backup: URL, to folder: URL, options: Options,
        progress: @escaping @Sendable (BackupProgress) -> Void,
        unlock: @Sendable (Keyring) async throws -> SecureBytes
    ) async throws -> BackupReport {
        let source = VaultLayout(folder: backup)
        let target = VaultLayout(folder: folder)
        guard source.folder.path != target.folder.path else {
            throw MedVaultError(.invalidArgument, field: "vault", reason: "the backup cannot be restored over itself")
        }
        try checkBackupFolder(source)
        let replacing = try RestoreTarget.inspect(target)
        try BackupFolder.requireRoom(DatabaseKeyChange.fileSize(source.database) + DiskSpace.margin,
                                     for: target.folder, doing: "the restore")
        let temporary = try BackupFolder.makeTemporary(besides: target.folder, purpose: "restore")
        do {
            let copy = VaultLayout(folder: temporary)
            let total = max(1, DatabaseKeyChange.fileSize(source.database))
            progress(BackupProgress(phase: .copying, fractionCopied: 0))
            // The keyring copy keeps another name until the copy is verified: a restore
            // killed before that leaves a folder that does not open as a vault.
            let stagedKeyring = temporary.appendingPathComponent("keyring.unverified")
            try await BlockingWork.run {
                try BackupFolder.copyFile(source.keyring, to: stagedKeyring) { _ in true }
                try BackupFolder.copyFile(source.database, to: copy.database) { copied in
                    progress(BackupProgress(phase: .copying, fractionCopied: min(0.99, Double(copied) / Double(total))))
                    return true
                }
                try DatabaseFile.syncFolder(of: copy.database)
            }
            progress(BackupProgress(phase: .verifying, fractionCopied: 1))
            let report = try await verifyCopy(copy, keyring: stagedKeyring, options: options, unlock: unlock)
            guard rename(stagedKeyring.path, copy.keyring.path) == 0 else {
                throw DatabaseFile.fileError(errno, "naming the restored keyring")
            }
            try DatabaseFile.syncFolder(of: copy.keyring)
            if replacing {
                try await RestoreTarget.replace(target, with: temporary, lockTimeout: options.lockTimeout)
            } else {
                try BackupFolder.install(temporary, at: target.folder)
            }
            progress(BackupProgress(phase: .finished, fractionCopied: 1))
            return report
        } catch {
            BackupFolder.remove(temporary)
            throw error
        }
    }

    /// A backup folder holds a keyring and a database, regular files, and no
    /// write-ahead log or rollback journal, not even an empty one (a backup's database
    /// is whole; a folder copied from a live vault may have committed records only in
    /// its `-wal`).
    private static func checkBackupFolder(_ backup: VaultLayout) throws {
        switch try BackupFolder.entry(at: backup.folder) {
        case .folder: break
        case .missing, .emptyFolder:
            throw MedVaultError(.fileNotFound, field: "backup", reason: "there is no backup in this folder")
        case .other(let what):
            throw MedVaultError(.invalidArgument, field: "backup", reason: "the backup's path \(what)")
        }
        for file in [backup.keyring, backup.database] {
            switch try BackupFolder.entry(at: file) {
            case .missing:
                throw MedVaultError(.fileNotFound, field: "backup", reason: "the backup has no \(file.lastPathComponent)")
            case .other("is a file"): break
            case .other(let what):
                throw MedVaultError(.invalidArgument, field: "backup", reason: "the backup's \(file.lastPathComponent) \(what)")
            case .emptyFolder, .folder:
                throw MedVaultError(.invalidArgument, field: "backup", reason: "the backup's \(file.lastPathComponent) is a folder")
            }
        }
        // Any `-wal` or `-journal`, even empty or a link: a backup has none, and SQLite
        // would apply one to the copy it verifies.
        for suffix in ["-wal", "-journal"] {
            guard try BackupFolder.entry(at: URL(fileURLWithPath: backup.database.path + suffix)) != .missing else { continue }
            throw MedVaultError(.invalidArgument, field: "backup", reason: """
                the backup's database has a \(suffix) file beside it: it is a copy of a vault in use, not a backup; \
                take one with `backup`
                """)
        }
    }

    /// Opens the copy's keyring with the caller's secret and checks its database.
    private static func verifyCopy(
        _ copy: VaultLayout, keyring keyringFile: URL, options: Options,
        unlock: @Sendable (Keyring) async throws -> SecureBytes
    ) async throws -> BackupReport {
        let keyring = try KeyringFile.read(at: keyringFile)
        guard !keyring.hasPendingRotation else {
            throw MedVaultError(.invalidArgument, field: "backup",
                                reason: "the backup's keyring records an unfinished key rotation: it is not a backup MedVault wrote")
        }
        let vaultKey = try await unlock(keyring)
        defer { vaultKey.wipe() }
        let databaseKey = try keyring.databaseKey(vaultKey: vaultKey)
        defer { databaseKey.wipe() }
        var configuration = options.database
        configuration.cipherSettings = keyring.cipherSettings
        let migrator = MedVaultSchema.migrator(appending: options.appMigrations)
        let contents = try await BlockingWork.run { [configuration] in
            try DatabaseSnapshot.verify(copy.database, key: databaseKey, configuration: configuration, migrator: migrator)
        }
        // The restored trail ends where the backup was taken, before this vault's own
        // checkpoint: the next unlock records the restore and checkpoints from there. The
        // checkpoint carries a random id that the keyring copy awaits, so it is honoured
        // once, and a checkpoint of another restore copied here later is reported.
        let auditKey = try AuditKey(vaultKey: vaultKey, vaultID: keyring.vaultID)
        defer { auditKey.wipe() }
        let restoreID = Keyring.randomBytes(32)
        let restored = AuditCheckpoint(sequence: 0, mac: restoreID, isRestored: true)
        // The record also names the restored trail's first entry and head: a pending
        // record pasted into another keyring of this vault is no blank cheque.
        let awaiting = try keyring.replacingAuditRecord(
            AuditAnchor(trail: contents.auditTrail, pendingRestore: restoreID).encoded(key: auditKey), vaultKey: vaultKey)
        try await BlockingWork.run {
            try AuditCheckpoint.write(restored, to: copy.auditCheckpoint, key: auditKey)
            try KeyringFile.write(awaiting, to: keyringFile)
        }
        return BackupReport(vaultID: keyring.vaultID, schemaVersion: contents.schemaVersion,
                            recordCounts: reportedCounts(contents.rowCounts),
                            databaseByteCount: DatabaseKeyChange.fileSize(copy.database), hasNewDatabaseKey: false)
    }
}
