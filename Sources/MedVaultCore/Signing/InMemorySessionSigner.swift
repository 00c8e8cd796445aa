import Crypto
import Foundation

/// The in-memory store's session signer: one random Ed25519 key for the store's life,
/// whatever the professional (a test double has no vault key to derive keys from).
struct InMemorySessionSigner: SessionSigner {
    private let key = Curve25519.Signing.PrivateKey()

    func sign(_ content: Data, professionalID: UUID) throws -> (publicKey: Data, signature: Data) {
        (key.publicKey.rawRepresentation, try key.signature(for: content))
    }

    func publicKey(professionalID: UUID) throws -> Data {
        key.publicKey.rawRepresentation
    }
}
