import Foundation
import MedVaultCore
import MedVaultKeys
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Vault {
    /// The locks and database of a vault being created in an empty folder
    /// (``create(at:password:options:)``, ``join(at:keyring:password:options:)``).
    struct NewVaultFiles {
        let pool: VaultDatabase
        let presence: VaultFileLock
    }

    /// Creates a vault's files in `layout`'s folder: the database under `databaseKey`
    /// (migrated), then `keyring`.
    ///
    /// Two processes creating a vault in one folder: the keyring lock lets one in, and
    /// it checks again that the folder holds no vault. A creation marker comes first
    /// (synced), then the database, then the keyring, then the marker goes. A crash
    /// before the keyring leaves the marker beside a database nobody can open: the next
    /// creation removes both and starts again (``holdsVault(_:)`` does not count them as
    /// a vault). A database without a keyring *and* without the marker is never
    /// touched: its keyring may only have been moved away. On any error nothing it
    /// created is left open or locked (a database it created is removed if the keyring
    /// could not be written).
    ///
    /// - Parameter seed: Rows to write in the new database before the keyring exists (a
    ///   joined vault's sync secret): a failure leaves nothing, as any other before the
    ///   keyring.
    /// - Returns: The open pool and the presence lock held shared, for the new `Vault`.
    /// - Throws: `duplicate` when the folder already holds a vault; `vaultInUse` when
    ///   another process holds its presence lock; `locked`/timeout of the keyring lock;
    ///   storage errors.
    static func createFiles(in layout: VaultLayout, keyring: Keyring, databaseKey: SecureBytes,
                            options: Options,
                            seed: (@Sendable (DatabaseConnection) throws -> Void)? = nil) async throws -> NewVaultFiles {
        let presence = try VaultFileLock(layout.presenceLock)
        let keyringLock = try VaultFileLock(layout.keyringLock)
        defer { keyringLock.release() }
        try await keyringLock.lock(.exclusive, timeout: options.lockTimeout,
                                   waitingFor: "another process is opening or changing a vault in this folder")
        guard try presence.tryLockCurrent(.shared) else {
            throw MedVaultError(.vaultInUse, reason: "another process holds this folder's vault lock")
        }
        if holdsVault(layout) {
            presence.release()
            throw alreadyAVault
        }
        let pool: VaultDatabase
        do {
            // An unlink and a folder fsync: on a thread of their own, as every file sync.
            try await BlockingWork.run {
                try removeInterruptedCreation(layout)
                try markCreation(layout)
            }
            pool = try await VaultDatabase.open(
                at: layout.database, key: databaseKey, mode: .createIfMissing,
                migrator: MedVaultSchema.migrator(appending: options.appMigrations), configuration: options.database
            )
        } catch {
            presence.release()
            throw error
        }
        do {
            if let seed { try await pool.write { db in try seed(db) } }
            try KeyringFile.write(keyring, to: layout.keyring)
        } catch {
            await pool.close()
            DatabaseFile.removeNewlyCreated(layout.database)
            // The write may have failed after its rename (syncing the folder): a keyring
            // without its database would leave a folder that neither opens nor is created.
            unlink(layout.keyring.path)
            unlink(layout.creationMarker.path)
            presence.release()
            throw error
        }
        // The vault is whole. The marker's removal is synced, so that a power cut cannot
        // bring it back beside a vault with records (a crash before that: the next open
        // removes it).
        _ = try? await BlockingWork.run { try removeMarker(layout) }
        return NewVaultFiles(pool: pool, presence: presence)
    }

    /// Whether `layout`'s folder has a keyring, or a database that is not an
    /// interrupted creation (one beside the creation marker).
    static func holdsVault(_ layout: VaultLayout) -> Bool {
        let manager = FileManager.default
        if manager.fileExists(atPath: layout.keyring.path) { return true }
        return manager.fileExists(atPath: layout.database.path) && !isInterruptedCreation(layout)
    }

    /// Whether the folder holds what a creation killed before its keyring left: the
    /// marker and no keyring.
    /// Only a keyring that is certainly absent (`ENOENT`) counts: an I/O error reading
    /// the folder never makes a vault's database look abandoned.
    static func isInterruptedCreation(_ layout: VaultLayout) -> Bool {
        var status = stat()
        guard lstat(layout.creationMarker.path, &status) == 0 else { return false }
        return lstat(layout.keyring.path, &status) != 0 && errno == ENOENT
    }

    /// Removes the creation marker of a whole vault and syncs the folder.
    static func removeMarker(_ layout: VaultLayout) throws {
        guard unlink(layout.creationMarker.path) == 0 else { return }
        try DatabaseFile.syncFolder(of: layout.creationMarker)
    }

    /// Creates the creation marker (kept if an interrupted creation left one) and syncs
    /// the folder, so that no database can be on disk without it before its keyring.
    private static func markCreation(_ layout: VaultLayout) throws {
        var status = stat()
        if lstat(layout.creationMarker.path, &status) != 0 {
            try BackupFolder.createEmptyFile(layout.creationMarker)
        }
        try DatabaseFile.syncFolder(of: layout.creationMarker)
    }

    /// Removes an interrupted creation's files (under the keyring lock, no keyring).
    private static func removeInterruptedCreation(_ layout: VaultLayout) throws {
        guard isInterruptedCreation(layout) else { return }
        for file in layout.allFiles where file != layout.creationMarker && file != layout.keyring {
            guard unlink(file.path) == 0 || errno == ENOENT else {
                throw DatabaseFile.fileError(errno, "removing what an interrupted creation left (\(file.lastPathComponent))")
            }
        }
    }

    /// The error for a folder that already holds a vault.
    static var alreadyAVault: MedVaultError {
        MedVaultError(.duplicate, reason: "the folder already holds a vault")
    }
}
