import Foundation
import MedVaultCore

/// The bytes a device signs to prove to the sync server that it holds the vault's
/// device-verification key, and the sizes of the values involved.
///
/// The vault's verification key pair is an Ed25519 key pair (swift-crypto's
/// `Curve25519.Signing`) that only devices holding the vault key can make; the server
/// keeps the 32-byte public key and can check a signature, never make one.
///
/// The signed message is the ASCII label of the purpose, then the server's 32-byte
/// challenge, the vault id's 16 bytes and the device id's 16 bytes:
///
/// ```swift
/// let message = SyncDeviceProof.message(.join, challenge: challenge,
///                                       vaultID: vaultID, deviceID: deviceID)
/// let signature = try privateKey.signature(for: message)
/// ```
///
/// The label keeps a register signature from being replayed as a join and the other way
/// round; the ids bind the signature to one vault and one device.
public enum SyncDeviceProof {
    /// Length of a server challenge.
    public static let challengeLength = 32
    /// Length of an Ed25519 public key.
    public static let verificationKeyLength = 32
    /// Length of an Ed25519 signature.
    public static let signatureLength = 64

    /// What a signature is for.
    public enum Purpose: String, Sendable, Hashable, CaseIterable {
        /// Registering a new vault with its first device.
        case register
        /// A further device joining a registered vault.
        case join

        /// The ASCII label that starts the signed message.
        public var label: String {
            switch self {
            case .register: "MedVault sync register v1"
            case .join: "MedVault sync join v1"
            }
        }
    }

    /// The message a device signs: label ‖ challenge (32) ‖ vault id (16) ‖ device id (16).
    ///
    /// - Parameters:
    ///   - purpose: Register or join.
    ///   - challenge: The server's challenge, as received.
    ///   - vaultID: The vault's id.
    ///   - deviceID: The signing device's id.
    /// - Returns: The bytes to sign or verify.
    public static func message(_ purpose: Purpose, challenge: Data, vaultID: UUID, deviceID: UUID) -> Data {
        var message = Data(purpose.label.utf8)
        message.append(challenge)
        message.append(contentsOf: vaultID.syncWireBytes)
        message.append(contentsOf: deviceID.syncWireBytes)
        return message
    }

    /// Checks that `data` has `length` bytes.
    ///
    /// - Throws: `MedVaultError.Code.validation` naming `field` otherwise.
    static func require(_ data: Data, length: Int, field: String) throws {
        guard data.count == length else {
            throw MedVaultError(.validation, field: field, reason: "must be \(length) bytes")
        }
    }
}

extension UUID {
    /// The UUID's 16 bytes in RFC 4122 order.
    var syncWireBytes: [UInt8] {
        withUnsafeBytes(of: uuid) { Array($0) }
    }
}
