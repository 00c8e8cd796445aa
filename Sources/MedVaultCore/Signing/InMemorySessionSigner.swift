import Foundation

/// The in-memory store's session signer: one random Ed25519 key for the store's life,
/// whatever the professional (a test double has no vault key to derive keys from).
struct InMemorySessionSigner: SessionSigner {
    private let key = Ed25519.EphemeralSigningKey()

    func sign(_ content: Data, professionalID: UUID) throws -> (publicKey: Data, signature: Data) {
        (key.publicKey, key.signature(for: content))
    }

    func publicKey(professionalID: UUID) throws -> Data {
        key.publicKey
    }
}
