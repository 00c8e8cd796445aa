import Foundation
import MedVaultCore
import MedVaultKeys

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
    /// it checks again that the folder holds no vault. The database comes first and the
    /// keyring last, so a crash in between leaves a database nobody can open and no
    /// keyring, which a later creation refuses to overwrite. On any error nothing it
    /// created is left open or locked (a database it created is removed if the keyring
    /// could not be written).
    ///
    /// - Returns: The open pool and the presence lock held shared, for the new `Vault`.
    /// - Throws: `duplicate` when the folder already holds a vault; `vaultInUse` when
    ///   another process holds its presence lock; `locked`/timeout of the keyring lock;
    ///   storage errors.
    static func createFiles(in layout: VaultLayout, keyring: Keyring, databaseKey: SecureBytes,
                            options: Options) async throws -> NewVaultFiles {
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
            pool = try await VaultDatabase.open(
                at: layout.database, key: databaseKey, mode: .createIfMissing,
                migrator: MedVaultSchema.migrator(appending: options.appMigrations), configuration: options.database
            )
        } catch {
            presence.release()
            throw error
        }
        do {
            try KeyringFile.write(keyring, to: layout.keyring)
        } catch {
            await pool.close()
            DatabaseFile.removeNewlyCreated(layout.database)
            presence.release()
            throw error
        }
        return NewVaultFiles(pool: pool, presence: presence)
    }

    /// Whether `layout`'s folder has a keyring or a database file.
    static func holdsVault(_ layout: VaultLayout) -> Bool {
        let manager = FileManager.default
        return manager.fileExists(atPath: layout.keyring.path) || manager.fileExists(atPath: layout.database.path)
    }

    /// The error for a folder that already holds a vault.
    static var alreadyAVault: MedVaultError {
        MedVaultError(.duplicate, reason: "the folder already holds a vault")
    }
}
