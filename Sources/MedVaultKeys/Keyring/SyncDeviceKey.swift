import CSodium
import Foundation
import MedVaultCore

/// One device's own sync key: a 32-byte random seed, kept in the device's encrypted
/// database and never sent anywhere, from which libsodium derives an Ed25519 signing key
/// (the device signs a new sync epoch's keys for the others with it) and an X25519 key
/// (the others seal a new epoch's keys to it, `crypto_box_seal`).
///
/// Its two public keys travel in the device's certificate (`SyncDeviceCertificate`),
/// signed by the vault's authority key of the epoch, so the server, which stores them,
/// cannot substitute its own (docs/sync.md, "Epochs").
///
/// The seed lives in secure pages; each operation derives the key pair it needs for that
/// call in a scratch buffer (`SecureMemory.withScratch`: zeroed on return, but not
/// `mlock`ed, as HKDF's intermediate keys) and zeroes it. Call ``wipe()`` when done.
public struct SyncDeviceKey: Sendable {
    /// Length of the seed.
    public static let seedLength = 32
    /// Length of an Ed25519 or X25519 public key.
    public static let publicKeyLength = 32
    /// Length of an Ed25519 signature.
    public static let signatureLength = 64
    /// Bytes `crypto_box_seal` adds to a message: an ephemeral public key and a tag.
    public static let sealOverhead = Int(crypto_box_sealbytes())

    private static let signingLabel = Array("MedVault sync device signing seed v1".utf8)
    private static let boxLabel = Array("MedVault sync device box seed v1".utf8)

    private let seed: SecureBytes

    /// A new random device key.
    public static func generate() -> SyncDeviceKey {
        SyncDeviceKey(seed: SecureBytes.random(count: seedLength))
    }

    private init(seed: SecureBytes) {
        self.seed = seed
    }

    /// The key stored in `bytes` (32), copied into secure memory.
    ///
    /// - Throws: `corrupted` when `bytes` is not 32 bytes long.
    package init(storedBytes bytes: UnsafeRawBufferPointer) throws {
        guard bytes.count == Self.seedLength else {
            throw MedVaultError(.corrupted, reason: "the stored device key has the wrong length")
        }
        self.seed = SecureBytes(copying: bytes)
    }

    /// The seed, for the sync engine to store in the vault's encrypted database.
    ///
    /// - Throws: `locked` after ``wipe()``.
    package func storedBytes() throws -> [UInt8] {
        try seed.withUnsafeBytes { Array($0) }
    }

    /// Overwrites the seed; every method then throws `locked`.
    public func wipe() { seed.wipe() }

    /// The Ed25519 public key (32 bytes).
    ///
    /// - Throws: `locked` after ``wipe()``.
    public func signingPublicKey() throws -> [UInt8] {
        try withSigningPair { publicKey, _ in publicKey }
    }

    /// The X25519 public key (32 bytes) others seal to.
    ///
    /// - Throws: `locked` after ``wipe()``.
    public func boxPublicKey() throws -> [UInt8] {
        try withBoxPair { publicKey, _ in publicKey }
    }

    /// Signs `message` with the device's Ed25519 key (RFC 8032).
    ///
    /// - Returns: A 64-byte signature.
    /// - Throws: `locked` after ``wipe()``.
    public func sign(_ message: [UInt8]) throws -> [UInt8] {
        try withSigningPair { _, secretKey in
            var signature = [UInt8](repeating: 0, count: Self.signatureLength)
            _ = message.withUnsafeBufferPointer { input in
                withUnsafeBytes(of: UInt8(0)) { empty in
                    crypto_sign_detached(&signature, nil,
                                         input.baseAddress ?? empty.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                         UInt64(input.count), secretKey)
                }
            }
            return signature
        }
    }

    /// Opens a message sealed to this device's X25519 key with ``seal(_:to:)``.
    ///
    /// - Returns: The message, in secure memory.
    /// - Throws: `corrupted` when the bytes were not sealed to this device or were changed;
    ///   `locked` after ``wipe()``.
    public func open(_ sealed: [UInt8]) throws -> SecureBytes {
        guard sealed.count >= Self.sealOverhead else {
            throw MedVaultError(.corrupted, reason: "a sealed sync message is too short")
        }
        return try withBoxPair { publicKey, secretKey in
            let opened = SecureBytes(count: sealed.count - Self.sealOverhead) { _ in }
            let status = opened.withFreshMutableBytes { output in
                withUnsafeBytes(of: UInt8(0)) { empty in
                    crypto_box_seal_open(
                        (output.baseAddress ?? UnsafeMutableRawPointer(mutating: empty.baseAddress!))
                            .assumingMemoryBound(to: UInt8.self),
                        sealed, UInt64(sealed.count), publicKey, secretKey)
                }
            }
            guard status == 0 else {
                opened.wipe()
                throw MedVaultError(.corrupted, reason: "a sealed sync message does not open with this device's key")
            }
            return opened
        }
    }

    /// Seals `message` to a device's X25519 public key (`crypto_box_seal`: an ephemeral
    /// key pair, so the sender cannot open it afterwards either).
    ///
    /// - Throws: `invalidArgument` for a public key that is not 32 bytes or not a point
    ///   libsodium accepts; `locked` when `message` was wiped.
    public static func seal(_ message: SecureBytes, to publicKey: [UInt8]) throws -> [UInt8] {
        guard publicKey.count == publicKeyLength, SecureMemory.sodiumReady else {
            throw MedVaultError(.invalidArgument, reason: "a device's box key is 32 bytes")
        }
        // The ephemeral key pair, the shared key and the message passed through vector registers.
        defer { SecureMemory.scrubAfterSecretUse() }
        return try message.withUnsafeBytes { input in
            var sealed = [UInt8](repeating: 0, count: input.count + sealOverhead)
            let status = withUnsafeBytes(of: UInt8(0)) { empty in
                crypto_box_seal(&sealed, (input.baseAddress ?? empty.baseAddress!).assumingMemoryBound(to: UInt8.self),
                                UInt64(input.count), publicKey)
            }
            guard status == 0 else {
                throw MedVaultError(.invalidArgument, reason: "a device's box key was refused")
            }
            return sealed
        }
    }

    /// Whether `signature` is a valid Ed25519 signature of `message` by `publicKey`.
    public static func verify(_ signature: [UInt8], of message: [UInt8], by publicKey: [UInt8]) -> Bool {
        Ed25519.isValidSignature(signature, of: message, publicKey: publicKey)
    }

    // MARK: - Key pairs

    private func withSigningPair<Result>(_ body: ([UInt8], UnsafePointer<UInt8>) throws -> Result) throws -> Result {
        try withPair(label: Self.signingLabel, secretLength: Int(crypto_sign_SECRETKEYBYTES), body) {
            crypto_sign_seed_keypair($0, $1, $2)
        }
    }

    private func withBoxPair<Result>(_ body: ([UInt8], UnsafePointer<UInt8>) throws -> Result) throws -> Result {
        try withPair(label: Self.boxLabel, secretLength: Int(crypto_box_SECRETKEYBYTES), body) {
            crypto_box_seed_keypair($0, $1, $2)
        }
    }

    /// Derives the pair's own seed from the device seed (HKDF, one label per key), then the
    /// pair, both in scratch buffers zeroed on return (`SecureMemory.withScratch`: they live
    /// for this call only, so no guarded allocation, whose `mmap` and `mprotect`s a sync
    /// pass would pay at each signature).
    private func withPair<Result>(
        label: [UInt8], secretLength: Int, _ body: ([UInt8], UnsafePointer<UInt8>) throws -> Result,
        derive: (UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>, UnsafePointer<UInt8>) -> Int32
    ) throws -> Result {
        guard SecureMemory.sodiumReady else { throw MedVaultError(.storage, reason: "libsodium is not initialised") }
        // The pair, and what `body` computed with it, passed through vector registers.
        defer { SecureMemory.scrubAfterSecretUse() }
        return try SecureMemory.withScratch(byteCount: SecureHKDF.outputLength) { pairSeed in
            try seed.withUnsafeBytes { ikm in
                SecureHKDF.derive(inputKeyMaterial: ikm, salt: [], info: label, into: pairSeed)
            }
            return try SecureMemory.withScratch(byteCount: secretLength) { secret in
                var publicKey = [UInt8](repeating: 0, count: Self.publicKeyLength)
                let secretPointer = secret.baseAddress!.assumingMemoryBound(to: UInt8.self)
                _ = derive(&publicKey, secretPointer, pairSeed.baseAddress!.assumingMemoryBound(to: UInt8.self))
                return try body(publicKey, UnsafePointer(secretPointer))
            }
        }
    }
}
