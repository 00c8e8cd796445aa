import MedVaultCore
import MedVaultKeys

extension Vault {
    /// How a vault derives keys and opens its database.
    public struct Options: Sendable {
        /// Argon2id parameters for new password slots (creation, password change,
        /// reset). Existing slots keep the parameters they were made with.
        /// Default: `Argon2Parameters.recommended` (64 MiB, 3 passes, 4 lanes).
        public var kdf: Argon2Parameters
        /// What a new password must be, checked by ``Vault/create(at:password:options:)``,
        /// ``Vault/changePassword(from:to:)`` and
        /// ``Vault/resetPassword(at:recoveryKey:newPassword:options:)`` before any key is
        /// derived. Default `PasswordPolicy.standard` (12 characters, 60 estimated bits).
        public var passwordPolicy: PasswordPolicy
        /// Connection settings of the database.
        public var database: DatabaseConfiguration
        /// Where the repositories read "now" from.
        public var clock: RecordClock
        /// The largest attachment accepted, in bytes. Default 100 MiB.
        public var maximumAttachmentByteCount: Int
        /// How long opening the vault or a key operation waits for another process's
        /// key operation (a password change, a key rotation) to finish before failing
        /// with `vaultInUse`. Default 30 seconds.
        public var lockTimeout: Duration
        /// The app's own migrations, for its own tables, run after MedVault's every time
        /// the vault is created or opened (see ``AppMigrations``). Default: none.
        public var appMigrations: AppMigrations
        /// The most Argon2 memory, in KiB, a keyring that arrives through sync may ask of
        /// this device: the keyring ``Vault/join(at:keyring:syncSecret:password:options:)``
        /// unlocks, and a password slot another device publishes, which this device would
        /// run at its next unlock. Above it, or above 4 passes at this memory, the keyring
        /// is refused before any derivation (`invalidArgument`; a synced one is left
        /// alone and records still sync). Default 256 MiB, four times
        /// `Argon2Parameters.recommended`: a phone or an app extension keeps its memory,
        /// whatever a device holding the sync secret publishes. Raise it where every
        /// device of the vault is a desktop with a costlier password setting.
        public var maximumSyncedArgon2MemoryKiB: UInt32

        /// Creates options; every argument has a sensible default.
        public init(
            kdf: Argon2Parameters = .recommended,
            passwordPolicy: PasswordPolicy = .standard,
            database: DatabaseConfiguration = DatabaseConfiguration(),
            clock: RecordClock = .system,
            maximumAttachmentByteCount: Int = 100 * 1024 * 1024,
            lockTimeout: Duration = .seconds(30),
            appMigrations: AppMigrations = AppMigrations(),
            maximumSyncedArgon2MemoryKiB: UInt32 = 256 * 1024
        ) {
            self.kdf = kdf
            self.passwordPolicy = passwordPolicy
            self.database = database
            self.clock = clock
            self.maximumAttachmentByteCount = maximumAttachmentByteCount
            self.lockTimeout = lockTimeout
            self.appMigrations = appMigrations
            self.maximumSyncedArgon2MemoryKiB = maximumSyncedArgon2MemoryKiB
        }

        /// Throws `invalidArgument` when `keyring`'s password slot asks for more Argon2 work
        /// than ``maximumSyncedArgon2MemoryKiB`` allows (memory, or memory × passes above
        /// four passes at that memory).
        func checkSyncedKeyringCost(_ keyring: Keyring) throws {
            let limit = UInt64(maximumSyncedArgon2MemoryKiB)
            for slot in keyring.slots {
                guard let parameters = slot.argon2Parameters else { continue }
                let memory = UInt64(parameters.memoryKiB)
                guard memory <= limit, memory * UInt64(parameters.iterations) <= limit * 4 else {
                    throw MedVaultError(.invalidArgument, field: "keyring", reason:
                        "the synced keyring asks for more Argon2 memory or work than this device accepts (Vault.Options.maximumSyncedArgon2MemoryKiB)")
                }
            }
        }
    }

    /// A new vault and the recovery key to show its owner, once.
    public struct Creation: Sendable {
        /// The open vault.
        public let vault: Vault
        /// The recovery key. Show it to the owner once; MedVault keeps no copy.
        public let recoveryKey: RecoveryKey
    }

    /// Where a key rotation stands, reported to its progress callback.
    public struct RotationProgress: Sendable, Hashable {
        /// The steps of a rotation, in order.
        public enum Phase: Sendable, Hashable {
            /// The new key is recorded, wrapped, in the keyring (it is durable from here).
            case pendingKeyRecorded
            /// The database is being copied under the new key.
            case copying
            /// The copy is being checked (a fresh connection, `PRAGMA integrity_check`)
            /// before it replaces the database.
            case verifying
            /// The copy was verified and has replaced the database.
            case databaseReplaced
            /// The keyring holds only the new key: the rotation is complete.
            case finished
        }
        /// The current step.
        public let phase: Phase
        /// The fraction of the database copied, 0…1.
        public let fractionCopied: Double
    }
}
