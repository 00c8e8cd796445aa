import Foundation
import MedVaultCore

/// The code a new device shows (as text or a QR code) for an enrolled device to approve
/// its join: 128 random bits that travel from one screen to the other, never through the
/// sync server (docs/sync.md, "Approving a new device").
///
/// From it both devices derive the pairing's id at the server (which learns the id, not
/// the code), the key that authenticates what each posts there (so the server can neither
/// substitute the new device's key nor forge the approval), and the 6-digit
/// authentication string both screens show before the user approves.
///
/// It is written like the sync secret — 4 groups of 8 Crockford base32 characters with a
/// 32-bit checksum — under a checksum label of its own, so a pairing code typed where the
/// sync secret is asked for (or the other way round) fails as `invalidArgument` on field
/// `pairingCode`.
public struct SyncPairingCode: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    let bytes: SecureBytes

    private static let text = CheckedBase32(
        secretLength: 16, checksumLength: 4, groupCount: 4, groupLength: 8,
        checksumLabel: "MedVault sync pairing code checksum v1", field: "pairingCode")
    private static let idLabel = Array("MedVault sync pairing id v1".utf8)
    private static let macLabel = Array("MedVault sync pairing mac key v1".utf8)
    private static let sasLabel = Array("MedVault sync pairing authentication string v1".utf8)

    /// A new random code.
    public static func generate() -> SyncPairingCode {
        SyncPairingCode(bytes: SecureBytes.random(count: 16))
    }

    private init(bytes: SecureBytes) {
        self.bytes = bytes
    }

    /// Parses a code as a person typed it (or a QR code held it).
    ///
    /// - Throws: `invalidArgument` with field `"pairingCode"`: "invalid character",
    ///   "wrong length" or "checksum mismatch".
    public init(parsing text: String) throws {
        self.bytes = try Self.text.parse(text.utf8)
    }

    /// The code as 4 groups of 8 characters joined by hyphens, to show or put in a QR code.
    public var formatted: String { Self.text.format(bytes) }

    /// The pairing's id at the server: the first 16 bytes of HMAC(code, label), as a UUID.
    ///
    /// - Throws: `locked` after ``wipe()``.
    public func pairingID() throws -> UUID {
        let mac = try hmac(Self.idLabel, [])
        return mac.withUnsafeBytes { UUID(uuid: $0.load(as: uuid_t.self)) }
    }

    /// HMAC-SHA256 of `message` under a key derived from the code: what authenticates the
    /// new device's key and the approval at the server.
    ///
    /// - Throws: `locked` after ``wipe()``.
    public func authenticate(_ message: [UInt8]) throws -> [UInt8] {
        let key = try bytes.withUnsafeBytes { ikm in
            SecureHKDF.deriveSecureKey(inputKeyMaterial: ikm, salt: [], info: Self.macLabel)
        }
        defer { key.wipe() }
        var output = [UInt8](repeating: 0, count: SecureHKDF.outputLength)
        try key.withUnsafeBytes { keyBytes in
            message.withUnsafeBytes { messageBytes in
                output.withUnsafeMutableBytes { SecureHKDF.hmac(key: keyBytes, [messageBytes], into: $0) }
            }
        }
        return output
    }

    /// The 6 digits both screens show for `boxKey`, the new device's key: equal on both
    /// only when the approving device holds this code and that key.
    ///
    /// - Throws: `locked` after ``wipe()``.
    public func authenticationString(boxKey: [UInt8]) throws -> String {
        let mac = try hmac(Self.sasLabel, boxKey)
        let value = mac.prefix(4).reduce(UInt32(0)) { ($0 << 8) | UInt32($1) } % 1_000_000
        let digits = String(value)
        return String(repeating: "0", count: 6 - digits.count) + digits
    }

    /// Overwrites the code; it is unusable afterwards.
    public func wipe() { bytes.wipe() }

    /// Compares the codes in constant time.
    public static func == (lhs: SyncPairingCode, rhs: SyncPairingCode) -> Bool { lhs.bytes == rhs.bytes }

    /// Never shows the code.
    public var description: String { "SyncPairingCode(redacted)" }
    /// Never shows the code.
    public var debugDescription: String { description }

    private func hmac(_ label: [UInt8], _ message: [UInt8]) throws -> [UInt8] {
        var output = [UInt8](repeating: 0, count: SecureHKDF.outputLength)
        try bytes.withUnsafeBytes { keyBytes in
            (label + message).withUnsafeBytes { messageBytes in
                output.withUnsafeMutableBytes { SecureHKDF.hmac(key: keyBytes, [messageBytes], into: $0) }
            }
        }
        return output
    }
}
