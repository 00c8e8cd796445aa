import Foundation
import MedVaultCore

/// The keys of end-to-end encrypted sync, derived from the vault key: one seals record
/// envelopes, one computes the record keys the server sees, and the seed of an Ed25519
/// key with which a device proves it knows the vault key when it joins (the server
/// keeps only the public half, which lets it check a proof and do nothing else).
///
/// Each is HKDF-SHA256 (RFC 5869) of the vault key, with the vault id's 16 bytes as salt
/// and its own label as info (`docs/sync.md` gives the labels and a test vector), so a
/// key serves one purpose only and no key of one vault says anything about another's.
/// The vault key itself never leaves the vault; a server never receives any of these.
///
/// The keys live in secure pages (``SecureBytes``): call ``wipe()`` when done, after
/// which every method throws `MedVaultError.Code.locked`.
///
/// For example:
///
/// ```swift
/// let keys = try SyncKeys(vaultKey: vaultKey, vaultID: vaultID)
/// defer { keys.wipe() }
/// let sealed = try keys.seal(plaintext, associatedData: header)
/// let opened = try keys.open(sealed, associatedData: header)   // == plaintext
/// ```
public struct SyncKeys: Sendable {
    /// Bytes a sealed message adds to its plaintext: a 12-byte nonce and a 16-byte tag.
    public static let sealingOverhead = nonceLength + tagLength
    /// Length of a record key: an HMAC-SHA256.
    public static let macLength = SecureHKDF.outputLength

    static let nonceLength = SecureChaChaPoly.nonceLength
    static let tagLength = SecureChaChaPoly.tagLength

    /// HKDF info strings: one per key, never reused for anything else.
    enum Label {
        static let envelope = Array("MedVault sync envelope key v1".utf8)
        static let recordKey = Array("MedVault sync record key v1".utf8)
        static let deviceSigning = Array("MedVault sync device signing key v1".utf8)
        static let epochEnvelope = Array("MedVault sync epoch envelope key v2".utf8)
        static let epochAuthority = Array("MedVault sync epoch authority key v2".utf8)
    }

    /// Length of an epoch key (``init(vaultKey:vaultID:epoch:epochKey:)``).
    public static let epochKeyLength = 32

    /// The vault whose keys these are.
    public let vaultID: UUID
    /// The sync epoch these keys belong to: 0 for the keys derived from the vault key
    /// alone, 1 and later for those of an epoch key (docs/sync.md, "Epochs").
    public let epoch: UInt32
    private let envelopeKey: SecureBytes
    private let recordKeyKey: SecureBytes
    private let deviceSigningSeed: SecureBytes

    /// Derives the sync keys of a vault.
    ///
    /// - Parameters:
    ///   - vaultKey: The vault key (32 bytes).
    ///   - vaultID: The vault's id (the salt).
    /// - Throws: `MedVaultError.Code.locked` when `vaultKey` was wiped;
    ///   `MedVaultError.Code.invalidArgument` when it is not 32 bytes.
    public init(vaultKey: SecureBytes, vaultID: UUID) throws {
        guard vaultKey.count == SecureHKDF.outputLength else {
            throw MedVaultError(.invalidArgument, reason: "a vault key is 32 bytes")
        }
        var salt = ByteWriter()
        salt.append(vaultID)
        let (envelope, record, proof) = try vaultKey.withUnsafeBytes { ikm in
            (SecureHKDF.deriveSecureKey(inputKeyMaterial: ikm, salt: salt.bytes, info: Label.envelope),
             SecureHKDF.deriveSecureKey(inputKeyMaterial: ikm, salt: salt.bytes, info: Label.recordKey),
             SecureHKDF.deriveSecureKey(inputKeyMaterial: ikm, salt: salt.bytes, info: Label.deviceSigning))
        }
        self.vaultID = vaultID
        self.epoch = 0
        self.envelopeKey = envelope
        self.recordKeyKey = record
        self.deviceSigningSeed = proof
    }

    /// Derives the sync keys of one epoch of a vault: the envelope key and the vault's
    /// authority key (the Ed25519 seed whose public half the server checks proofs with)
    /// come from the epoch key, with the vault id and the epoch as salt; the record-key key
    /// still comes from the vault key, so a record keeps its server key across epochs.
    ///
    /// Epoch 0 has no epoch key: it is ``init(vaultKey:vaultID:)``.
    ///
    /// - Parameters:
    ///   - vaultKey: The vault key (32 bytes).
    ///   - vaultID: The vault's id.
    ///   - epoch: The epoch, 1 or later.
    ///   - epochKey: The epoch's random key (32 bytes), which a device that starts an epoch
    ///     sends to the others sealed to their device keys.
    /// - Throws: `invalidArgument` for a key that is not 32 bytes or epoch 0; `locked` when a
    ///   key was wiped.
    public init(vaultKey: SecureBytes, vaultID: UUID, epoch: UInt32, epochKey: SecureBytes) throws {
        guard epoch > 0 else { throw MedVaultError(.invalidArgument, reason: "epoch 0 has no epoch key") }
        guard vaultKey.count == SecureHKDF.outputLength, epochKey.count == Self.epochKeyLength else {
            throw MedVaultError(.invalidArgument, reason: "vault and epoch keys are 32 bytes")
        }
        var salt = ByteWriter()
        salt.append(vaultID)
        salt.append(epoch)
        var vaultSalt = ByteWriter()
        vaultSalt.append(vaultID)
        let record = try vaultKey.withUnsafeBytes { ikm in
            SecureHKDF.deriveSecureKey(inputKeyMaterial: ikm, salt: vaultSalt.bytes, info: Label.recordKey)
        }
        let (envelope, authority) = try epochKey.withUnsafeBytes { ikm in
            (SecureHKDF.deriveSecureKey(inputKeyMaterial: ikm, salt: salt.bytes, info: Label.epochEnvelope),
             SecureHKDF.deriveSecureKey(inputKeyMaterial: ikm, salt: salt.bytes, info: Label.epochAuthority))
        }
        self.vaultID = vaultID
        self.epoch = epoch
        self.envelopeKey = envelope
        self.recordKeyKey = record
        self.deviceSigningSeed = authority
    }

    /// Whether any of the three keys was wiped.
    public var wasWiped: Bool { envelopeKey.wasWiped || recordKeyKey.wasWiped || deviceSigningSeed.wasWiped }

    /// Zeroes the three keys. Every method then throws `MedVaultError.Code.locked`.
    public func wipe() {
        envelopeKey.wipe()
        recordKeyKey.wipe()
        deviceSigningSeed.wipe()
    }

    // MARK: - Sealing

    /// Seals `plaintext` with ChaCha20-Poly1305 under the envelope key and a fresh random
    /// nonce, authenticating `associatedData` too.
    ///
    /// Random 96-bit nonces stay safe far beyond any vault's sync volume (the chance of a
    /// repeat stays below 2⁻³² up to 2³² messages under one key).
    ///
    /// - Returns: nonce ‖ ciphertext ‖ tag (``sealingOverhead`` bytes longer than `plaintext`).
    /// - Throws: `MedVaultError.Code.locked` after ``wipe()``.
    public func seal(_ plaintext: [UInt8], associatedData: [UInt8]) throws -> [UInt8] {
        let nonce = SecureChaChaPoly.randomNonce()
        var ciphertext = [UInt8](repeating: 0, count: plaintext.count)
        let tag = try envelopeKey.withUnsafeBytes { key in
            plaintext.withUnsafeBytes { input in
                ciphertext.withUnsafeMutableBytes { output in
                    SecureChaChaPoly.seal(input, key: key, nonce: nonce, associatedData: associatedData, into: output)
                }
            }
        }
        // Unreachable: the key is 32 bytes (checked at init), the nonce 12, the output
        // exactly as long as the input, and no array in memory reaches the AEAD's limit
        // (256 GiB; `SecureChaChaPoly` refuses past it rather than repeat its key stream).
        guard let tag else { throw MedVaultError(.storage, reason: "sealing a sync envelope failed") }
        return nonce + ciphertext + tag
    }

    /// Opens what ``seal(_:associatedData:)`` returned.
    ///
    /// - Throws: `MedVaultError.Code.corrupted` when the bytes were changed, sealed under
    ///   another vault's key or with other associated data, or are too short to be
    ///   sealed; `MedVaultError.Code.locked` after ``wipe()``.
    public func open(_ sealed: [UInt8], associatedData: [UInt8]) throws -> [UInt8] {
        guard sealed.count >= Self.sealingOverhead else { throw Self.unauthenticated }
        let nonce = Array(sealed[0..<Self.nonceLength])
        let tag = Array(sealed[(sealed.count - Self.tagLength)...])
        let ciphertext = sealed[Self.nonceLength..<(sealed.count - Self.tagLength)]
        var plaintext = [UInt8](repeating: 0, count: ciphertext.count)
        let opened = try envelopeKey.withUnsafeBytes { key in
            ciphertext.withUnsafeBytes { input in
                plaintext.withUnsafeMutableBytes { output in
                    SecureChaChaPoly.open(input, tag: tag, key: key, nonce: nonce,
                                          associatedData: associatedData, into: output)
                }
            }
        }
        guard opened else { throw Self.unauthenticated }
        return plaintext
    }

    static let unauthenticated = MedVaultError(
        .corrupted, reason: "a sync message failed authentication: changed, truncated or sealed for another vault")

    // MARK: - MACs

    /// The key the server stores a record under: HMAC-SHA256 of the table name
    /// (UTF-8 after its length as a big-endian UInt32) and the record id's 16 bytes, under the record-key key.
    ///
    /// The same record always has the same key in one vault, so a server can keep a
    /// record's envelopes together, while neither the id nor the table can be read from
    /// it, and keys of two vaults never match.
    ///
    /// - Throws: `MedVaultError.Code.locked` after ``wipe()``.
    public func recordKey(table: String, recordID: UUID) throws -> [UInt8] {
        var message = ByteWriter()
        let name = Array(table.utf8)
        message.append(UInt32(truncatingIfNeeded: name.count))
        message.append(raw: name)
        message.append(recordID)
        return try mac(recordKeyKey, message.bytes)
    }

    /// The public key of the vault's device-signing key (Ed25519, 32 bytes): what a sync
    /// server stores to check join proofs. It opens nothing and signs nothing.
    ///
    /// - Throws: `MedVaultError.Code.locked` after ``wipe()``.
    public func deviceSigningPublicKey() throws -> [UInt8] {
        try SeededSigningKey.withKeyPair(seed: deviceSigningSeed) { publicKey, _ in Array(publicKey) }
    }

    /// Signs `message` (a server's challenge with what it binds) with the vault's
    /// device-signing key: only a holder of the vault key can.
    ///
    /// The Ed25519 secret key exists, in secure memory, for the duration of this call
    /// only; it is derived, proves membership and decrypts nothing.
    ///
    /// - Returns: A 64-byte Ed25519 signature.
    /// - Throws: `MedVaultError.Code.locked` after ``wipe()``.
    public func signForDevice(_ message: [UInt8]) throws -> [UInt8] {
        try SeededSigningKey.withKeyPair(seed: deviceSigningSeed) { _, secretKey in
            Array(SeededSigningKey.sign(Data(message), secretKey: secretKey))
        }
    }

    private func mac(_ key: SecureBytes, _ message: [UInt8]) throws -> [UInt8] {
        var output = [UInt8](repeating: 0, count: Self.macLength)
        try key.withUnsafeBytes { keyBytes in
            message.withUnsafeBytes { messageBytes in
                output.withUnsafeMutableBytes { SecureHKDF.hmac(key: keyBytes, [messageBytes], into: $0) }
            }
        }
        return output
    }
}
