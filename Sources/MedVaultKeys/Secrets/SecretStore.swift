/// A place outside the keyring that keeps small secrets by account name: the Apple
/// Keychain, a file in a protected folder, or memory in tests.
///
/// A platform key slot keeps its random key-encryption key in a `SecretStore`, so the
/// vault opens without a password while that store is available (for example on the
/// device whose Keychain holds the secret).
///
/// For example:
///
/// ```swift
/// let store = InMemorySecretStore()
/// try await store.store(SecureBytes.random(count: 32), account: "medvault.example")
/// let secret = try await store.load(account: "medvault.example")
/// ```
public protocol SecretStore: Sendable {
    /// Stores `secret` under `account`, replacing any secret already there.
    ///
    /// - Parameters:
    ///   - secret: The bytes to keep. The store keeps its own copy.
    ///   - account: A non-secret name.
    /// - Throws: A `MedVaultError` when the store refuses.
    func store(_ secret: SecureBytes, account: String) async throws

    /// Loads the secret stored under `account`.
    ///
    /// - Parameter account: The name used with ``store(_:account:)``.
    /// - Returns: The secret, or `nil` when none is stored under that name.
    /// - Throws: A `MedVaultError` when the store cannot be read.
    func load(account: String) async throws -> SecureBytes?

    /// Deletes the secret stored under `account`; does nothing when none is.
    ///
    /// - Parameter account: The name used with ``store(_:account:)``.
    /// - Throws: A `MedVaultError` when the store refuses.
    func delete(account: String) async throws
}

/// A ``SecretStore`` in memory, for tests and previews. Secrets vanish with the store.
public actor InMemorySecretStore: SecretStore {
    private var secrets: [String: SecureBytes] = [:]

    /// Creates an empty store.
    public init() {}

    /// Keeps a copy of `secret` under `account`.
    ///
    /// - Throws: `MedVaultError.Code.locked` when `secret` was wiped.
    public func store(_ secret: SecureBytes, account: String) throws {
        let copy = try secret.copy()
        secrets[account]?.wipe()
        secrets[account] = copy
    }

    /// Returns a copy of the secret under `account`, or `nil`.
    public func load(account: String) throws -> SecureBytes? {
        try secrets[account]?.copy()
    }

    /// Wipes and forgets the secret under `account`.
    public func delete(account: String) {
        secrets[account]?.wipe()
        secrets[account] = nil
    }

    /// The accounts that hold a secret, sorted (for tests).
    public var accounts: [String] { secrets.keys.sorted() }
}
