import Foundation
import MedVaultCore
import MedVaultKeys
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An encrypted clinical-records vault: the facade apps use.
///
/// A vault is a folder holding an SQLCipher database and a keyring (see
/// ``VaultLayout``). The database key is random; password, recovery-key and
/// platform slots in the keyring each wrap it (through the vault key), so changing
/// the password re-wraps 32 bytes whatever the vault's size, and a forgotten
/// password is recovered with the recovery key.
///
/// ```swift
/// let created = try await Vault.create(at: folder, password: Password("correct horse"))
/// print("Write this down: \(created.recoveryKey.formatted)")
/// let vault = created.vault
/// let ana = try await vault.patients.create(
///     Patient(firstName: "Ana", lastName: "Núñez", dateOfBirth: try CalendarDate(iso8601: "1984-03-07")))
/// await vault.lock()
///
/// let reopened = try await Vault.open(at: folder, password: Password("correct horse"))
/// ```
public final class Vault: Sendable {
    /// The vault's files.
    public let layout: VaultLayout
    /// The vault's identifier, bound into every slot of its keyring.
    public let vaultID: UUID
    /// The options the vault was opened with.
    public let options: Options
    /// The encrypted database. Use it for tables of your own; the repositories below
    /// cover MedVault's records.
    public let database: VaultDatabase
    let keys: VaultKeySession
    /// Notifies observers of committed changes (docs/changes.md).
    let changeFeed: ChangeFeed

    /// The vault owner's profile (one per vault).
    public let professional: any ProfessionalRepository
    /// Patients: create, update, deactivate, list, search.
    public let patients: any PatientRepository
    /// Clinical sessions, a patient's history and the agenda.
    public let sessions: any ClinicalSessionRepository
    /// ICD-11 diagnoses of sessions.
    public let diagnoses: any DiagnosisRepository
    /// Files attached to sessions, streamed in and out in encrypted chunks.
    public let attachments: any AttachmentRepository
    /// Medications, schedules and dose logs, with today's doses and adherence.
    public let medications: any MedicationStore
    /// The offline ICD-11 cache, kept in the encrypted database (see `ICD11CachedCatalog`).
    public let icd11Cache: any ICD11CacheRepository
    /// The tamper-evident audit trail: query it, verify it (docs/audit.md).
    public let audit: VaultAuditTrail

    static let lockedError = MedVaultError(.locked, reason: "the vault is locked; open it again")

    init(layout: VaultLayout, keyring: Keyring, vaultKey: SecureBytes, auditKey: AuditKey,
         signingRoot: ProfessionalSigningRoot, pool: VaultDatabase, presence: VaultFileLock, options: Options) {
        pool.auditKeys.install(auditKey, signingRoot: signingRoot)
        self.audit = VaultAuditTrail(pool: pool, layout: layout)
        self.layout = layout
        self.vaultID = keyring.vaultID
        self.options = options
        self.database = pool
        self.changeFeed = ChangeFeed(pool: pool, vaultID: keyring.vaultID)
        self.keys = VaultKeySession(keyring: keyring, vaultKey: vaultKey, layout: layout, presence: presence,
                                    lockTimeout: options.lockTimeout)
        // The presence lock lives as long as a connection may: a repository value kept
        // after the Vault is gone still counts as having the vault open.
        pool.retainUntilClosed(presence)
        let records = SQLCipherClinicalRecords(pool: pool, clock: options.clock,
                                               maximumAttachmentByteCount: Int64(options.maximumAttachmentByteCount))
        self.professional = records.professional
        self.patients = records.patients
        self.sessions = records.sessions
        self.diagnoses = records.diagnoses
        self.attachments = records.attachments
        self.medications = SQLCipherMedicationStore(pool: pool, clock: options.clock)
        self.icd11Cache = SQLCipherICD11CacheRepository(pool: pool, clock: options.clock)
    }

    // MARK: - Creating

    /// Creates a vault in `folder` (created if missing, with mode 0700; an existing
    /// folder of this user is made private, 0700; another user's folder is refused
    /// with `permissionDenied`).
    ///
    /// Runs Argon2id once for the password slot.
    ///
    /// - Parameters:
    ///   - folder: Where the vault's files go. It must not hold a vault already.
    ///   - password: The owner's password.
    ///   - options: Key-derivation and database options.
    /// - Returns: The open vault and its recovery key, to show the owner once.
    /// - Throws: `duplicate` when the folder already holds a vault's files;
    ///   `validation` (field `password`) for a password that fails
    ///   `options.passwordPolicy`, before anything is derived or written;
    ///   `invalidArgument` for weak KDF parameters; file errors.
    public static func create(at folder: URL, password: Password, options: Options = Options()) async throws -> Creation {
        try options.passwordPolicy.check(password)
        let layout = VaultLayout(folder: folder)
        if holdsVault(layout) { throw alreadyAVault }
        try VaultFolder.prepare(layout.folder)
        let kdf = options.kdf
        let cipher = options.database.cipherSettings
        let creation = try await BlockingWork.run { [cipher] in try Keyring.create(password: password, kdf: kdf, cipher: cipher) }
        defer { creation.databaseKey.wipe() }
        let auditKey = try AuditKey(vaultKey: creation.vaultKey, vaultID: creation.keyring.vaultID)
        let signingRoot = try ProfessionalSigningRoot(vaultKey: creation.vaultKey, vaultID: creation.keyring.vaultID)
        let files = try await createFiles(in: layout, keyring: creation.keyring, databaseKey: creation.databaseKey,
                                          options: options)
        let vault = Vault(layout: layout, keyring: creation.keyring, vaultKey: creation.vaultKey, auditKey: auditKey,
                          signingRoot: signingRoot, pool: files.pool, presence: files.presence, options: options)
        return Creation(vault: try await auditingUnlock(vault), recoveryKey: creation.recoveryKey)
    }

    // MARK: - Opening

    /// Opens the vault in `folder` with its password.
    ///
    /// - Throws: `wrongPassword`; `fileNotFound` when there is no vault (or its keyring
    ///   is missing); `corrupted` for a damaged keyring; `notADatabase` when the
    ///   database does not decrypt with the keyring's key.
    public static func open(at folder: URL, password: Password, options: Options = Options()) async throws -> Vault {
        let layout = VaultLayout(folder: folder)
        let keyring = try readKeyring(layout)
        let vaultKey: SecureBytes
        do {
            vaultKey = try await BlockingWork.run { try keyring.unlock(password: password) }
        } catch {
            await countUnlockFailure(layout, error)
            throw error
        }
        return try await auditingUnlock(unlocked(layout: layout, keyring: keyring, vaultKey: vaultKey, options: options))
    }

    /// Opens the vault in `folder` with its recovery key.
    ///
    /// - Throws: `wrongRecoveryKey`, and the errors of ``open(at:password:options:)``.
    public static func open(at folder: URL, recoveryKey: RecoveryKey, options: Options = Options()) async throws -> Vault {
        let layout = VaultLayout(folder: folder)
        let keyring = try readKeyring(layout)
        let vaultKey: SecureBytes
        do {
            vaultKey = try keyring.unlock(recoveryKey: recoveryKey)
        } catch {
            await countUnlockFailure(layout, error)
            throw error
        }
        return try await auditingUnlock(unlocked(layout: layout, keyring: keyring, vaultKey: vaultKey, options: options))
    }

    /// Opens the vault in `folder` with a platform slot whose secret is in `store`.
    ///
    /// - Throws: `notFound` when `store` holds no secret for any platform slot.
    public static func open(at folder: URL, secretStore store: any SecretStore, options: Options = Options()) async throws -> Vault {
        let layout = VaultLayout(folder: folder)
        let keyring = try readKeyring(layout)
        let vaultKey = try await keyring.unlock(using: store)
        return try await auditingUnlock(unlocked(layout: layout, keyring: keyring, vaultKey: vaultKey, options: options))
    }

    static func readKeyring(_ layout: VaultLayout) throws -> Keyring {
        do {
            return try KeyringFile.read(at: layout.keyring)
        } catch let error as MedVaultError where error.code == .fileNotFound {
            if isInterruptedCreation(layout) {
                throw MedVaultError(.fileNotFound, reason: """
                    the vault's creation was interrupted before its keyring was written: it holds no record; \
                    create it again
                    """)
            }
            throw MedVaultError(.fileNotFound, reason: "there is no vault keyring in this folder")
        }
    }

    /// Opens the database with the key the keyring holds, finishing or undoing a key
    /// rotation that a crash interrupted.
    ///
    /// Runs under the keyring lock, so no other process changes the keyring or rotates
    /// meanwhile, and takes the presence lock before the database is opened. The
    /// clean-ups of what crashed processes left (temporary keyrings, a rotation's copy,
    /// attachments whose writer died) run only where they cannot be another live
    /// process's work: keyring leftovers and rotation copies under the keyring lock
    /// (their writers hold it), abandoned attachments only when no other process has
    /// the vault open.
    private static func unlocked(layout: VaultLayout, keyring unlockedKeyring: Keyring, vaultKey: SecureBytes,
                                 options: Options) async throws -> Vault {
        let presence: VaultFileLock
        do {
            presence = try VaultFileLock(layout.presenceLock)
        } catch {
            vaultKey.wipe()
            throw error
        }
        do {
            let keyringLock = try VaultFileLock(layout.keyringLock)
            defer { keyringLock.release() }
            try await keyringLock.lock(.exclusive, timeout: options.lockTimeout,
                                       waitingFor: "another process is changing this vault's keys or rotating its database key")
            // The keyring may have changed since it was read for unlocking (another
            // process changed the password meanwhile): the vault key still opens it.
            var keyring = try VaultKeySession.reread(layout, cached: unlockedKeyring, vaultKey: vaultKey)
            // Every holder of the presence lock alone also holds the keyring lock, which
            // this process has: a conflict here is a process that is ending (SIGKILL
            // closes its files one by one, the keyring lock's first) or one that breaks
            // the protocol. The first passes at once; the second gets vaultInUse.
            try await presence.lock(.shared, timeout: min(options.lockTimeout, .seconds(5)),
                                    waitingFor: "another process holds this vault out of turn")
            try KeyringFile.removeTemporaryFiles(besides: layout.keyring)
            // A creation killed after writing the keyring left its marker: the vault is whole.
            try removeMarker(layout)
            let alone = try presence.upgradeIfAlone()
            defer { if alone { presence.downgrade() } }
            // The database is opened with the cipher settings the keyring recorded for it.
            var options = options
            options.database.cipherSettings = keyring.cipherSettings
            let (databaseKey, pending) = try keyring.databaseKeys(vaultKey: vaultKey)
            defer { databaseKey.wipe() }
            let pool: VaultDatabase
            if let pendingKey = pending {
                defer { pendingKey.wipe() }
                (pool, keyring) = try await recoverRotation(layout: layout, keyring: keyring, vaultKey: vaultKey,
                                                            currentKey: databaseKey, pendingKey: pendingKey, options: options)
            } else {
                // A copy left by a rotation that was abandoned before it was recorded.
                DatabaseKeyChange.unlinkAll(DatabaseKeyChange.copyURL(for: layout.database))
                pool = try await VaultDatabase.open(at: layout.database, key: databaseKey, mode: .openExisting,
                                                   migrator: MedVaultSchema.migrator(appending: options.appMigrations), configuration: options.database,
                                                   keyIsAuthenticated: true)
            }
            if alone {
                // An attachment whose writer crashed mid-stream was never visible; drop
                // its chunks — but never another live process's upload in progress.
                do {
                    try await SQLCipherAttachmentRepository(pool: pool).removeIncompleteAttachments()
                } catch {
                    await pool.close()
                    throw error
                }
            }
            let auditKey: AuditKey
            let signingRoot: ProfessionalSigningRoot
            do {
                auditKey = try AuditKey(vaultKey: vaultKey, vaultID: keyring.vaultID)
                signingRoot = try ProfessionalSigningRoot(vaultKey: vaultKey, vaultID: keyring.vaultID)
            } catch {
                await pool.close()
                throw error
            }
            return Vault(layout: layout, keyring: keyring, vaultKey: vaultKey, auditKey: auditKey,
                         signingRoot: signingRoot, pool: pool, presence: presence, options: options)
        } catch {
            presence.release()
            vaultKey.wipe()
            throw error
        }
    }

    /// A rotation was under way: the database is under the current key (the swap had
    /// not happened) or under the pending one (it had). Either way, finish the keyring.
    private static func recoverRotation(
        layout: VaultLayout, keyring: Keyring, vaultKey: SecureBytes,
        currentKey: SecureBytes, pendingKey: SecureBytes, options: Options
    ) async throws -> (VaultDatabase, Keyring) {
        func open(_ key: SecureBytes, authenticated: Bool) async throws -> VaultDatabase {
            try await VaultDatabase.open(at: layout.database, key: key, mode: .openExisting,
                                        migrator: MedVaultSchema.migrator(appending: options.appMigrations), configuration: options.database,
                                        keyIsAuthenticated: authenticated)
        }
        /// Writes `keyring` for an opened `pool`, closing the pool when that fails.
        func finish(_ pool: VaultDatabase, _ keyring: () throws -> Keyring) async throws -> (VaultDatabase, Keyring) {
            do {
                let finished = try keyring()
                try KeyringFile.write(finished, to: layout.keyring)
                return (pool, finished)
            } catch {
                await pool.close()
                throw error
            }
        }
        let pool: VaultDatabase
        do {
            pool = try await open(currentKey, authenticated: false)
        } catch let error as MedVaultError where error.code == .wrongKey {
            let pool = try await open(pendingKey, authenticated: true)
            return try await finish(pool) { try keyring.completingRotation(vaultKey: vaultKey) }
        }
        DatabaseKeyChange.unlinkAll(DatabaseKeyChange.copyURL(for: layout.database))
        return try await finish(pool) { try keyring.abandoningRotation(vaultKey: vaultKey) }
    }

    // MARK: - Locking

    /// Whether ``lock()`` was called.
    public var isLocked: Bool {
        get async { await keys.isLocked }
    }

    /// Closes the database and zeroes every key byte the vault holds. Every later call
    /// on the vault or its repositories fails with `locked`; open the vault again to
    /// continue.
    ///
    /// Safe at any moment: a key operation in flight (a password change waiting for
    /// Argon2id, a rotation copying) stops at its next step without writing, or
    /// finishes the step it cannot undo, before `lock()` returns; reads and writes
    /// already admitted finish first, later ones fail with `locked`.
    public func lock() async {
        await keys.lock()
        // Observations end before the pool closes: none touches a closed pool.
        await changeFeed.close()
        // The last checkpoint of the trail's head, while the pool is still open.
        await audit.closing()
        await database.close()
        // After the close: writes admitted before lock() still MACed their entries.
        database.auditKeys.wipe()
        // Last: another process may rotate the key only once this one's connections
        // are closed.
        keys.presence.release()
    }
}
