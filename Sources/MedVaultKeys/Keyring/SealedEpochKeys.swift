import Foundation
import MedVaultCore

/// A vault's sync epoch keys as the server keeps them for the recovery kit: sealed under
/// a key derived from the vault key *and* the sync secret, so that only a holder of both
/// — an enrolled device, or someone with the recovery kit (the secret, and the password or
/// recovery key that opens the vault key) — opens them. The server cannot; a device
/// revoked at the epoch that sealed them cannot either, since that epoch came with a new
/// sync secret it was never given (docs/sync.md, "Epochs").
///
/// Layout: `MVEPOCHS` ‖ version u16 (1) ‖ vault id (16) ‖ newest epoch u32 ‖ first epoch
/// u32 (0 for a vault registered before epochs, 1 for one born with them) ‖ nonce (12) ‖
/// ChaCha20-Poly1305 of (epoch u32 ‖ key (32))* ‖ tag (16), integers big-endian; the
/// associated data is everything before the nonce. The key is
/// HKDF-SHA256(vault key ‖ sync secret, salt = vault id, `MedVault sync epoch keys v1`).
public enum SealedEpochKeys {
    static let magic = Array("MVEPOCHS".utf8)
    static let formatVersion: UInt16 = 1
    private static let keyInfo = Array("MedVault sync epoch keys v1".utf8)
    private static let headerLength = 8 + 2 + 16 + 4 + 4
    private static let entryLength = 4 + SyncKeys.epochKeyLength
    /// The most epochs one sealed list holds: a vault re-keyed this often is refused.
    public static let maximumEpochs = 4_096

    /// What ``open(_:vaultID:vaultKey:secret:)`` finds.
    public struct Opened: Sendable {
        /// Epoch → key, in secure memory.
        public let keys: [UInt32: SecureBytes]
        /// The vault's first epoch: 0 when it was registered before epochs (its epoch-0
        /// envelopes are genuine), 1 when it was born with them (an epoch-0 envelope is forged).
        public let firstEpoch: UInt32
    }

    /// Seals `keys` (epoch → key; epochs from 1) for `vaultID`, whose first epoch is `firstEpoch`.
    ///
    /// - Throws: `invalidArgument` for an empty list, epoch 0, a key that is not 32 bytes or
    ///   more than ``maximumEpochs``; `locked` when a key or the secret was wiped.
    public static func seal(_ keys: [UInt32: SecureBytes], firstEpoch: UInt32, vaultID: UUID, vaultKey: SecureBytes,
                            secret: SyncSecret) throws -> Data {
        guard let newest = keys.keys.max(), keys.count <= maximumEpochs, keys[0] == nil, firstEpoch <= 1,
              keys.values.allSatisfy({ $0.count == SyncKeys.epochKeyLength }) else {
            throw MedVaultError(.invalidArgument, reason: "epoch keys are 32 bytes, for epochs from 1")
        }
        let header = header(vaultID: vaultID, newest: newest, firstEpoch: firstEpoch)
        let plaintext = SecureBytes(count: keys.count * entryLength) { _ in }
        defer { plaintext.wipe() }
        try plaintext.withFreshMutableBytes { output in
            var offset = 0
            for (epoch, key) in keys.sorted(by: { $0.key < $1.key }) {
                for shift in stride(from: 24, through: 0, by: -8) {
                    output[offset] = UInt8((epoch >> UInt32(shift)) & 0xFF)
                    offset += 1
                }
                try key.withUnsafeBytes { source in
                    UnsafeMutableRawBufferPointer(rebasing: output[offset..<(offset + source.count)]).copyMemory(from: source)
                }
                offset += SyncKeys.epochKeyLength
            }
        }
        let nonce = SecureChaChaPoly.randomNonce()
        var ciphertext = [UInt8](repeating: 0, count: plaintext.count)
        let tag = try withKey(vaultID: vaultID, vaultKey: vaultKey, secret: secret) { key in
            try plaintext.withUnsafeBytes { input in
                ciphertext.withUnsafeMutableBytes { output in
                    SecureChaChaPoly.seal(input, key: key, nonce: nonce, associatedData: header, into: output)
                }
            }
        }
        // Unreachable: a 32-byte key, a 12-byte nonce, an output as long as the input.
        guard let tag else { throw MedVaultError(.storage, reason: "sealing the epoch keys failed") }
        return Data(header + nonce + ciphertext + tag)
    }

    /// Opens what ``seal(_:firstEpoch:vaultID:vaultKey:secret:)`` made.
    ///
    /// - Returns: Epoch → key, in secure memory.
    /// - Throws: `corrupted` for bytes that are not sealed epoch keys of `vaultID`, or that
    ///   do not open (changed, or sealed under another vault key or secret: a revoked device
    ///   holds an earlier secret); `schemaTooNew` for a later format; `locked`.
    public static func open(_ bytes: Data, vaultID: UUID, vaultKey: SecureBytes,
                            secret: SyncSecret) throws -> Opened {
        let bytes = Array(bytes)
        let overhead = headerLength + SecureChaChaPoly.nonceLength + SecureChaChaPoly.tagLength
        guard bytes.count >= overhead + entryLength, Array(bytes.prefix(magic.count)) == magic else {
            throw MedVaultError(.corrupted, reason: "not sealed sync epoch keys")
        }
        var reader = ByteReader(Array(bytes[magic.count..<headerLength]))
        guard try reader.uint16() == formatVersion else {
            throw MedVaultError(.schemaTooNew, reason: "the sealed epoch keys' format is newer than this version of MedVault")
        }
        guard try reader.uuid() == vaultID else {
            throw MedVaultError(.corrupted, reason: "the sealed epoch keys belong to another vault")
        }
        let newest = try reader.uint32()
        let firstEpoch = try reader.uint32()
        guard firstEpoch <= 1 else { throw MedVaultError(.corrupted, reason: "the sealed epoch keys name a first epoch past 1") }
        let length = bytes.count - overhead
        guard length % entryLength == 0, length / entryLength <= maximumEpochs else {
            throw MedVaultError(.corrupted, reason: "the sealed epoch keys have a wrong length")
        }
        let nonce = Array(bytes[headerLength..<(headerLength + SecureChaChaPoly.nonceLength)])
        let ciphertext = Array(bytes[(headerLength + SecureChaChaPoly.nonceLength)..<(bytes.count - SecureChaChaPoly.tagLength)])
        let tag = Array(bytes.suffix(SecureChaChaPoly.tagLength))
        let plaintext = SecureBytes(count: ciphertext.count) { _ in }
        defer { plaintext.wipe() }
        let opened = try withKey(vaultID: vaultID, vaultKey: vaultKey, secret: secret) { key in
            plaintext.withFreshMutableBytes { output in
                ciphertext.withUnsafeBytes { input in
                    SecureChaChaPoly.open(input, tag: tag, key: key, nonce: nonce,
                                          associatedData: Array(bytes.prefix(headerLength)), into: output)
                }
            }
        }
        guard opened else {
            throw MedVaultError(.corrupted, reason: "the sealed epoch keys do not open with this vault key and sync secret")
        }
        return try plaintext.withUnsafeBytes { input in
            var keys: [UInt32: SecureBytes] = [:]
            var offset = 0
            while offset < input.count {
                let epoch = input[offset..<(offset + 4)].reduce(UInt32(0)) { ($0 << 8) | UInt32($1) }
                offset += 4
                guard epoch > 0, epoch <= newest, keys[epoch] == nil else {
                    throw MedVaultError(.corrupted, reason: "the sealed epoch keys list an epoch twice or out of range")
                }
                keys[epoch] = SecureBytes(copying: UnsafeRawBufferPointer(rebasing: input[offset..<(offset + SyncKeys.epochKeyLength)]))
                offset += SyncKeys.epochKeyLength
            }
            guard keys[newest] != nil else {
                throw MedVaultError(.corrupted, reason: "the sealed epoch keys lack their newest epoch")
            }
            return Opened(keys: keys, firstEpoch: firstEpoch)
        }
    }

    private static func header(vaultID: UUID, newest: UInt32, firstEpoch: UInt32) -> [UInt8] {
        var writer = ByteWriter()
        writer.append(raw: magic)
        writer.append(formatVersion)
        writer.append(vaultID)
        writer.append(newest)
        writer.append(firstEpoch)
        return writer.bytes
    }

    private static func withKey<Result>(vaultID: UUID, vaultKey: SecureBytes, secret: SyncSecret,
                                        _ body: (UnsafeRawBufferPointer) throws -> Result) throws -> Result {
        guard vaultKey.count == SecureHKDF.outputLength else {
            throw MedVaultError(.invalidArgument, reason: "a vault key is 32 bytes")
        }
        let material = SecureBytes(count: vaultKey.count + secret.bytes.count) { _ in }
        defer { material.wipe() }
        try material.withFreshMutableBytes { output in
            try vaultKey.withUnsafeBytes { key in
                UnsafeMutableRawBufferPointer(rebasing: output[0..<key.count]).copyMemory(from: key)
            }
            try secret.bytes.withUnsafeBytes { secretBytes in
                UnsafeMutableRawBufferPointer(rebasing: output[vaultKey.count...]).copyMemory(from: secretBytes)
            }
        }
        var salt = ByteWriter()
        salt.append(vaultID)
        let key = try material.withUnsafeBytes { ikm in
            SecureHKDF.deriveSecureKey(inputKeyMaterial: ikm, salt: salt.bytes, info: keyInfo)
        }
        defer { key.wipe() }
        return try key.withUnsafeBytes(body)
    }
}
