import Foundation

/// One way to open a vault: a copy of the vault key sealed under a key-encryption key (KEK)
/// that comes from a password, the recovery key or a platform secret store.
///
/// Everything but ``wrapped`` is the slot's header, bound into the seal's associated data
/// together with the format version and the vault id: a slot whose KDF parameters were
/// lowered, or that was copied from another vault, does not open.
public struct KeySlot: Sendable, Hashable, Identifiable {
    /// What protects a slot. An open set: later formats may add kinds.
    public struct Kind: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The byte stored in the keyring file.
        public let rawValue: UInt8
        /// Creates a kind from its stored byte.
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        /// A password, stretched with Argon2id.
        public static let password = Kind(rawValue: 1)
        /// The recovery key, expanded with HKDF-SHA256.
        public static let recovery = Kind(rawValue: 2)
        /// A random KEK kept in a ``SecretStore`` (Keychain, file, memory).
        public static let platform = Kind(rawValue: 3)

        /// `password`, `recovery`, `platform` or `kind(n)`.
        public var description: String {
            switch self {
            case .password: "password"
            case .recovery: "recovery"
            case .platform: "platform"
            default: "kind(\(rawValue))"
            }
        }
    }

    /// How the slot's KEK is obtained.
    public enum KeyDerivation: Sendable, Hashable {
        /// Argon2id over the normalised password with these parameters and salt.
        case argon2id(Argon2Parameters, salt: [UInt8])
        /// HKDF-SHA256 over the recovery key with this salt.
        case hkdfSHA256(salt: [UInt8])
        /// A random 32-byte KEK kept in a secret store under this account name.
        case storedSecret(account: String)
    }

    /// The slot's identifier, unique within the keyring.
    public let id: UUID
    /// What protects the slot.
    public let kind: Kind
    /// How the KEK is derived or found.
    public let derivation: KeyDerivation
    /// The vault key sealed under the KEK.
    public let wrapped: WrappedKey

    /// The Argon2id parameters of a password slot, or `nil`.
    public var argon2Parameters: Argon2Parameters? {
        if case .argon2id(let parameters, _) = derivation { return parameters }
        return nil
    }

    /// Whether this is a password slot whose Argon2id costs are below
    /// ``Argon2Parameters/productionFloor`` (for example a vault made with the test preset).
    ///
    /// Such a slot falls to a GPU guessing millions of passwords a second: `Vault.verify()`
    /// reports it as a problem and `Vault.info()` lists it.
    public var isBelowProductionFloor: Bool {
        argon2Parameters.map { !$0.meetsProductionFloor } ?? false
    }

    /// The secret-store account of a platform slot, or `nil`.
    public var account: String? {
        if case .storedSecret(let account) = derivation { return account }
        return nil
    }

    init(id: UUID, kind: Kind, derivation: KeyDerivation, wrapped: WrappedKey) {
        self.id = id
        self.kind = kind
        self.derivation = derivation
        self.wrapped = wrapped
    }
}
