import CSodium
import Foundation

/// A streaming SHA-256 (FIPS 180-4) for attachment integrity: feed the content chunk
/// by chunk with ``update(_:)``, then ``finalize()``. Memory use is constant whatever
/// the content's size.
///
/// It is a thin wrapper over libsodium's `crypto_hash_sha256` (the library MedVaultKeys
/// uses for every other primitive), so MedVault carries no hand-written hash and one
/// implementation of SHA-256. MedVaultCore calls libsodium directly rather than taking a
/// hashing protocol with the implementation injected from `MedVault`:
///
/// - the in-memory repositories hash attachments too; with injection, every in-memory
///   store (and every app test that builds one from MedVaultCore alone) would need a
///   hasher passed in, or would fall back to a second implementation;
/// - one concrete type means both backends compute digests with the same code, which
///   the conformance suite then only has to check once.
///
/// It is not used for keys or passwords, which MedVaultKeys handles.
///
/// For example:
///
/// ```swift
/// var hasher = SHA256Hasher()
/// for chunk in chunks { hasher.update(chunk) }
/// let digest = hasher.finalize()   // SHA256Digest, 32 bytes
/// ```
public struct SHA256Hasher: Sendable {
    // A plain C struct (eight words, a counter, one block): copying the hasher copies it.
    private var state = crypto_hash_sha256_state()
    private var byteCount: UInt64 = 0

    /// A hasher that has seen nothing.
    public init() {
        // sodium_init first, as libsodium asks; SHA-256 itself has one implementation and
        // no shared state, so it computes the same whether or not that succeeded.
        _ = LibSodium.ready
        crypto_hash_sha256_init(&state)
    }

    /// The number of bytes hashed so far.
    public var count: UInt64 { byteCount }

    /// Hashes `data` after what came before.
    public mutating func update(_ data: Data) {
        data.withUnsafeBytes { update(bytes: $0) }
    }

    /// Hashes `bytes` after what came before.
    public mutating func update(bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        byteCount &+= UInt64(bytes.count)
        crypto_hash_sha256_update(&state, base.assumingMemoryBound(to: UInt8.self), UInt64(bytes.count))
    }

    /// The digest of everything hashed. The hasher should not be used afterwards.
    public mutating func finalize() -> SHA256Digest {
        var digest = [UInt8](repeating: 0, count: Int(crypto_hash_sha256_BYTES))
        crypto_hash_sha256_final(&state, &digest)
        return SHA256Digest(unchecked: digest)
    }
}
