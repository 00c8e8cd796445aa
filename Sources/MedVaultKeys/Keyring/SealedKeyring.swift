import Foundation
import MedVaultCore

/// A keyring as a device publishes it to the sync server: the keyring file sealed under
/// a key derived from the vault's ``SyncSecret``, with a counter that only the devices
/// can raise (docs/keyring-format.md, "Sealed keyring").
///
/// Without the sync secret the bytes are opaque: the server, a thief of its database
/// and a holder of a device token cannot test password guesses against the password
/// slot inside. The counter is authenticated with the keyring, so a server that serves
/// an older sealed keyring under a higher generation of its own is caught: a device
/// takes a keyring only when its counter is past the last one it published or adopted.
///
/// Layout: `MVSEALKR` ‖ version u16 (1) ‖ vault id (16) ‖ counter u64 ‖ nonce (12) ‖
/// ChaCha20-Poly1305 ciphertext of the keyring file ‖ tag (16), all integers
/// big-endian; the associated data is everything before the nonce.
public struct SealedKeyring: Sendable {
    /// The vault the keyring belongs to (also checked inside the keyring).
    public let vaultID: UUID
    /// The publication counter the devices raise at each publication.
    public let counter: UInt64
    /// The keyring sealed inside.
    public let keyring: Keyring

    static let magic = Array("MVSEALKR".utf8)
    /// The largest counter a sealed keyring may carry (2⁴⁰ publications): a larger one is
    /// a secret holder pushing it towards its end, after which no device could publish.
    public static let maximumCounter: UInt64 = 1 << 40
    static let formatVersion: UInt16 = 1
    private static let keyInfo = Array("MedVault sealed keyring v1".utf8)
    /// magic ‖ version ‖ vault id ‖ counter.
    private static let headerLength = 8 + 2 + 16 + 8
    private static let overhead = headerLength + SecureChaChaPoly.nonceLength + SecureChaChaPoly.tagLength

    /// Whether `bytes` begin like a sealed keyring (as opposed to a keyring file published
    /// in the clear by a build before the sync secret).
    public static func isSealed(_ bytes: Data) -> Bool {
        bytes.count >= magic.count && Array(bytes.prefix(magic.count)) == magic
    }

    /// Seals `keyring` under `secret` with `counter`.
    ///
    /// - Throws: `locked` when `secret` was wiped.
    public static func seal(_ keyring: Keyring, counter: UInt64, secret: SyncSecret) throws -> Data {
        let header = header(vaultID: keyring.vaultID, counter: counter)
        let plaintext = keyring.serialized()
        let nonce = SecureChaChaPoly.randomNonce()
        var ciphertext = [UInt8](repeating: 0, count: plaintext.count)
        let tag = try withKey(secret, vaultID: keyring.vaultID) { key in
            plaintext.withUnsafeBytes { input in
                ciphertext.withUnsafeMutableBytes { output in
                    SecureChaChaPoly.seal(input, key: key, nonce: nonce, associatedData: header, into: output)
                }
            }
        }
        // Unreachable: a 32-byte key, a 12-byte nonce, an output as long as the input.
        guard let tag else { throw MedVaultError(.storage, reason: "sealing the keyring failed") }
        return Data(header + nonce + ciphertext + tag)
    }

    /// Opens a sealed keyring.
    ///
    /// - Throws: `corrupted` for bytes that are not a sealed keyring (too short, another
    ///   magic, a counter past ``maximumCounter``, a keyring inside that does not decode
    ///   or names another vault);
    ///   `schemaTooNew` for a later format version; `wrongSyncSecret` when `secret` does
    ///   not open it (not this vault's secret, or the bytes were changed: the two cannot be
    ///   told apart); `locked` when `secret` was wiped.
    public init(opening bytes: Data, secret: SyncSecret) throws {
        let bytes = Array(bytes)
        guard bytes.count > Self.overhead, Array(bytes.prefix(Self.magic.count)) == Self.magic else {
            throw MedVaultError(.corrupted, reason: "not a sealed keyring")
        }
        var reader = ByteReader(Array(bytes[Self.magic.count..<Self.headerLength]))
        let version = try reader.uint16()
        guard version == Self.formatVersion else {
            throw MedVaultError(.schemaTooNew, reason: "the sealed keyring's format is newer than this version of MedVault")
        }
        let vaultID = try reader.uuid()
        let counter = try reader.uint64()
        let header = Array(bytes[0..<Self.headerLength])
        let nonce = Array(bytes[Self.headerLength..<(Self.headerLength + SecureChaChaPoly.nonceLength)])
        let tag = Array(bytes[(bytes.count - SecureChaChaPoly.tagLength)...])
        let ciphertext = bytes[(Self.headerLength + SecureChaChaPoly.nonceLength)..<(bytes.count - SecureChaChaPoly.tagLength)]
        var plaintext = [UInt8](repeating: 0, count: ciphertext.count)
        let opened = try Self.withKey(secret, vaultID: vaultID) { key in
            ciphertext.withUnsafeBytes { input in
                plaintext.withUnsafeMutableBytes { output in
                    SecureChaChaPoly.open(input, tag: tag, key: key, nonce: nonce, associatedData: header, into: output)
                }
            }
        }
        guard opened else {
            throw MedVaultError(.wrongSyncSecret,
                                reason: "the sync secret does not open the server's keyring (another vault's secret, or changed bytes)")
        }
        guard counter <= Self.maximumCounter else {
            throw MedVaultError(.corrupted, reason: "the sealed keyring's counter is past its limit")
        }
        let keyring = try Keyring(serialized: plaintext)
        guard keyring.vaultID == vaultID else {
            throw MedVaultError(.corrupted, reason: "the sealed keyring names another vault than the keyring inside")
        }
        self.vaultID = vaultID
        self.counter = counter
        self.keyring = keyring
    }

    private static func header(vaultID: UUID, counter: UInt64) -> [UInt8] {
        var writer = ByteWriter()
        writer.append(raw: magic)
        writer.append(formatVersion)
        writer.append(vaultID)
        writer.append(counter)
        return writer.bytes
    }

    /// Calls `body` with HKDF-SHA256(IKM = secret, salt = vault id, info = label), held in
    /// secure memory and wiped on return.
    private static func withKey<Result>(_ secret: SyncSecret, vaultID: UUID,
                                        _ body: (UnsafeRawBufferPointer) throws -> Result) throws -> Result {
        let salt = withUnsafeBytes(of: vaultID.uuid) { Array($0) }
        let key = try secret.bytes.withUnsafeBytes { ikm in
            SecureHKDF.deriveSecureKey(inputKeyMaterial: ikm, salt: salt, info: keyInfo)
        }
        defer { key.wipe() }
        return try key.withUnsafeBytes(body)
    }
}
