import Foundation
import MedVaultCore
import MedVaultKeys

/// The key state of an unlocked vault: the keyring as last written and the vault key.
///
/// An actor, so that key operations (password change, rotation, lock) never
/// interleave: each reads the keyring, writes a new one, and replaces its copy.
actor VaultKeySession {
    private(set) var keyring: Keyring
    private var vaultKey: SecureBytes?
    let keyringURL: URL

    init(keyring: Keyring, vaultKey: SecureBytes, keyringURL: URL) {
        self.keyring = keyring
        self.vaultKey = vaultKey
        self.keyringURL = keyringURL
    }

    var isLocked: Bool { vaultKey == nil }

    /// The vault key, or `locked`.
    func requireVaultKey() throws -> SecureBytes {
        guard let vaultKey else { throw Vault.lockedError }
        return vaultKey
    }

    /// Computes a new keyring from the current one and the vault key, writes it
    /// atomically, and keeps it. Returns what `change` returned beside the keyring.
    func update<Extra: Sendable>(
        _ change: (Keyring, SecureBytes) async throws -> (Keyring, Extra)
    ) async throws -> Extra {
        let vaultKey = try requireVaultKey()
        let (updated, extra) = try await change(keyring, vaultKey)
        try KeyringFile.write(updated, to: keyringURL)
        keyring = updated
        return extra
    }

    /// Wipes the vault key; later key operations fail with `locked`.
    func lock() {
        vaultKey?.wipe()
        vaultKey = nil
    }
}
