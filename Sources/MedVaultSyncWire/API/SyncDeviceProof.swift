import CSodium
import Foundation

/// The bytes a device signs to prove to the sync server that it holds the vault's
/// device-verification key, and the sizes of the values involved.
///
/// The vault's verification key pair is an Ed25519 key pair (RFC 8032) that only devices
/// holding the vault key can make; the server keeps the 32-byte public key and can check
/// a signature, never make one.
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
///
/// A device of this version binds its proof to the server it means to reach too
/// (``message(_:challenge:vaultID:deviceID:origin:)``, labels ending in `v2`): a hostile
/// server that relays the challenge of another server, and the device's answer to it,
/// gets a proof the other server refuses when it is configured with its own origin.
public enum SyncDeviceProof {
    /// Length of a server challenge.
    public static let challengeLength = 32
    /// Length of an Ed25519 public key.
    public static let verificationKeyLength = 32
    /// Length of an Ed25519 signature.
    public static let signatureLength = 64

    /// Whether `signature` is `verificationKey`'s Ed25519 signature of `message`, by the
    /// check every device makes (libsodium's strict one: a small-order key or point, or a
    /// non-canonical `S`, is refused). The sync server checks proofs and certificates with
    /// it, so a proof the server accepts is one every device would.
    ///
    /// It calls libsodium's `crypto_sign_verify_detached`, the function MedVault's own
    /// session signatures are checked with, so this module needs no MedVault code.
    public static func isValidSignature(_ signature: Data, of message: Data, by verificationKey: Data) -> Bool {
        guard sodiumReady, signature.count == signatureLength, verificationKey.count == verificationKeyLength else {
            return false
        }
        let message = [UInt8](message)
        // An empty array still passes a valid (non-null) pointer to C.
        return crypto_sign_verify_detached([UInt8](signature), message, UInt64(message.count),
                                           [UInt8](verificationKey)) == 0
    }

    /// `sodium_init`, run once before the first check, as libsodium asks (negative only
    /// when the system gives no randomness; a check is then refused, never guessed).
    private static let sodiumReady: Bool = sodium_init() >= 0

    /// What a signature is for.
    public enum Purpose: String, Sendable, Hashable, CaseIterable {
        /// Registering a new vault with its first device.
        case register
        /// A further device joining a registered vault.
        case join
        /// An enrolled device renewing its token (`POST …/devices/{deviceId}/token`),
        /// with the token it holds: a stolen token alone cannot be renewed.
        case renew

        /// The ASCII label that starts the signed message.
        public var label: String {
            switch self {
            case .register: "MedVault sync register v1"
            case .join: "MedVault sync join v1"
            case .renew: "MedVault sync renew v1"
            }
        }

        /// The ASCII label of a message bound to the server's origin.
        public var originBoundLabel: String {
            switch self {
            case .register: "MedVault sync register v2"
            case .join: "MedVault sync join v2"
            case .renew: "MedVault sync renew v2"
            }
        }
    }

    /// The longest origin a proof may name, in bytes.
    public static let maximumOriginLength = 255

    /// The message a device signs: label ‖ challenge (32) ‖ vault id (16) ‖ device id (16).
    ///
    /// - Parameters:
    ///   - purpose: Register, join or renew.
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

    /// The message a device signs when it binds its proof to the server's origin:
    /// v2 label ‖ challenge (32) ‖ vault id (16) ‖ device id (16) ‖ origin length (u16,
    /// big-endian) ‖ origin (ASCII, as ``origin(of:)`` writes it).
    ///
    /// - Parameters:
    ///   - purpose: Register, join or renew.
    ///   - challenge: The server's challenge, as received.
    ///   - vaultID: The vault's id.
    ///   - deviceID: The signing device's id.
    ///   - origin: The origin of the server the device means to reach.
    /// - Returns: The bytes to sign or verify.
    public static func message(_ purpose: Purpose, challenge: Data, vaultID: UUID, deviceID: UUID,
                               origin: String) -> Data {
        var message = Data(purpose.originBoundLabel.utf8)
        message.append(challenge)
        message.append(contentsOf: vaultID.syncWireBytes)
        message.append(contentsOf: deviceID.syncWireBytes)
        let bytes = Array(origin.utf8)
        message.append(contentsOf: [UInt8(truncatingIfNeeded: bytes.count >> 8), UInt8(truncatingIfNeeded: bytes.count)])
        message.append(contentsOf: bytes)
        return message
    }

    /// The message bound to `origin` when there is one
    /// (``message(_:challenge:vaultID:deviceID:origin:)``), the unbound one of earlier
    /// builds otherwise (``message(_:challenge:vaultID:deviceID:)``): what a request that
    /// names `origin`, or none, was signed over.
    public static func message(_ purpose: Purpose, challenge: Data, vaultID: UUID, deviceID: UUID,
                               boundTo origin: String?) -> Data {
        guard let origin else { return message(purpose, challenge: challenge, vaultID: vaultID, deviceID: deviceID) }
        return message(purpose, challenge: challenge, vaultID: vaultID, deviceID: deviceID, origin: origin)
    }

    /// The origin of `url` as a proof names it: the scheme and host in lower case, and
    /// the port when it is not the scheme's default (`https://sync.example.org`,
    /// `http://127.0.0.1:8080`); `nil` for a URL that is not http or https with a host.
    public static func origin(of url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = url.host?.lowercased(), !host.isEmpty else { return nil }
        let defaultPort = scheme == "https" ? 443 : 80
        guard let port = url.port, port != defaultPort else { return "\(scheme)://\(host)" }
        return "\(scheme)://\(host):\(port)"
    }

    /// Checks an origin a request names: 1…255 visible ASCII characters.
    ///
    /// - Throws: ``SyncWireError`` on field `origin` otherwise.
    static func requireOrigin(_ origin: String?) throws {
        guard let origin else { return }
        let bytes = Array(origin.utf8)
        guard (1...maximumOriginLength).contains(bytes.count), bytes.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw SyncWireError(field: "origin", reason: "must be 1 to 255 visible ASCII characters")
        }
    }

    /// Checks that `data` has `length` bytes.
    ///
    /// - Throws: ``SyncWireError`` naming `field` otherwise.
    static func require(_ data: Data, length: Int, field: String) throws {
        guard data.count == length else {
            throw SyncWireError(field: field, reason: "must be \(length) bytes")
        }
    }
}

extension UUID {
    /// The UUID's 16 bytes in RFC 4122 order.
    var syncWireBytes: [UInt8] {
        withUnsafeBytes(of: uuid) { Array($0) }
    }
}
