import Crypto
import Foundation

/// A streaming SHA-256 (FIPS 180-4) for attachment integrity: feed the content chunk
/// by chunk with ``update(_:)``, then ``finalize()``. Memory use is constant whatever
/// the content's size.
///
/// It is a thin wrapper over swift-crypto's `SHA256` (CryptoKit on Apple platforms,
/// BoringSSL's audited, vendored implementation elsewhere), so MedVault carries no
/// hand-written hash. MedVaultCore depends on swift-crypto directly rather than taking
/// a hashing protocol with the implementation injected from `MedVault`:
///
/// - the package already depends on swift-crypto (MedVaultKeys uses it for keys), so
///   no app gains a dependency, and swift-crypto needs no system library: MedVaultCore
///   still builds with SwiftPM alone, with nothing installed;
/// - the in-memory repositories hash attachments too; with injection, every in-memory
///   store (and every app test that builds one from MedVaultCore alone) would need a
///   hasher passed in, or would fall back to a second implementation — the very
///   duplicate this replaces;
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
    private var hash = SHA256()
    private var byteCount: UInt64 = 0

    /// A hasher that has seen nothing.
    public init() {}

    /// The number of bytes hashed so far.
    public var count: UInt64 { byteCount }

    /// Hashes `data` after what came before.
    public mutating func update(_ data: Data) {
        byteCount &+= UInt64(data.count)
        hash.update(data: data)
    }

    /// Hashes `bytes` after what came before.
    public mutating func update(bytes: UnsafeRawBufferPointer) {
        byteCount &+= UInt64(bytes.count)
        hash.update(bufferPointer: bytes)
    }

    /// The digest of everything hashed. The hasher should not be used afterwards.
    public mutating func finalize() -> SHA256Digest {
        SHA256Digest(unchecked: Array(hash.finalize()))
    }
}
