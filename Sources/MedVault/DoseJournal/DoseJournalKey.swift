import Foundation
import MedVaultKeys

/// The limited key of a vault's dose journal (docs/extensions.md): it opens the journal
/// — the medication plan of the coming days and the dose logs and snoozes appended to
/// it — and nothing else. The vault key never leaves the app; an extension (a
/// notification action, a widget, a watch app) gets this key instead.
///
/// 32 random bytes in caller-visible secure memory, like libsodium's caller-owned key
/// buffers: store them with a `SecretStore` (on Apple platforms `KeychainSecretStore`
/// with an access group the extensions share and an accessibility that allows use after
/// first unlock), and ``wipe()`` a copy you no longer need.
///
/// For example:
///
/// ```swift
/// let key = try await vault.issueDoseJournalKey()
/// try secretStore.store(key.secret, account: "dose-journal")
/// key.wipe()
/// ```
public struct DoseJournalKey: Sendable {
    /// The key's bytes.
    public let secret: SecureBytes

    /// The key in `secret` (copied from a `SecretStore`).
    ///
    /// - Throws: `MedVaultError/Code/invalidArgument` unless it is 32 bytes.
    public init(_ secret: SecureBytes) throws {
        guard secret.count == 32 else {
            throw MedVaultError(.invalidArgument, field: "key", reason: "a dose journal key is 32 bytes")
        }
        self.secret = secret
    }

    /// Zeroes the key's bytes.
    public func wipe() { secret.wipe() }
}
