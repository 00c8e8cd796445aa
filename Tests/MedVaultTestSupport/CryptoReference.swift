import Foundation

/// The independent reference for MedVault's primitives: `Tests/Scripts/crypto_reference.py`,
/// which answers with Python's `hashlib`, `hmac` and `cryptography` (OpenSSL underneath).
/// MedVault computes everything with libsodium, so a test that compares with this compares
/// two implementations written by different people.
///
/// Requests are batched: one Python start per call, whatever their number.
package enum CryptoReference {
    /// One request; the answer is its output's bytes.
    package enum Request {
        case sha256(_ message: [UInt8])
        case hmac(key: [UInt8], message: [UInt8])
        /// The first 32 bytes of HKDF-SHA256.
        case hkdf(inputKeyMaterial: [UInt8], salt: [UInt8], info: [UInt8])
        /// Ciphertext ‖ tag.
        case chachaSeal(key: [UInt8], nonce: [UInt8], associatedData: [UInt8], message: [UInt8])
        case ed25519PublicKey(seed: [UInt8])
        /// `[1]` when the signature is valid, `[0]` otherwise.
        case ed25519Verify(publicKey: [UInt8], message: [UInt8], signature: [UInt8])

        var encoded: [String] {
            switch self {
            case .sha256(let message): ["sha256", Hex.string(message)]
            case .hmac(let key, let message): ["hmac", Hex.string(key), Hex.string(message)]
            case .hkdf(let ikm, let salt, let info): ["hkdf", Hex.string(ikm), Hex.string(salt), Hex.string(info)]
            case .chachaSeal(let key, let nonce, let aad, let message):
                ["chacha-seal", Hex.string(key), Hex.string(nonce), Hex.string(aad), Hex.string(message)]
            case .ed25519PublicKey(let seed): ["ed25519-public", Hex.string(seed)]
            case .ed25519Verify(let publicKey, let message, let signature):
                ["ed25519-verify", Hex.string(publicKey), Hex.string(message), Hex.string(signature)]
            }
        }
    }

    /// The answers to `requests`, in order.
    package static func answers(_ requests: [Request]) async throws -> [[UInt8]] {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.url.appendingPathComponent("requests.json")
        try JSONEncoder().encode(requests.map(\.encoded)).write(to: file)
        let child = try await PythonChild(script: "crypto_reference.py", arguments: [file.path])
        defer { child.stop() }
        let answers = try JSONDecoder().decode([String].self, from: Data(child.firstLine.utf8))
        guard answers.count == requests.count else { throw ReferenceError.answerCount }
        return answers.map { Hex.bytes($0) }
    }

    /// The answer to one request.
    package static func answer(_ request: Request) async throws -> [UInt8] {
        try await answers([request])[0]
    }

    package enum ReferenceError: Error { case answerCount }
}
