import Foundation
import MedVaultCore

/// The key of a vault's audit trail: HKDF-SHA256 of the vault key, with the vault id's 16
/// bytes as salt and its own label as info (`docs/audit.md`).
///
/// Derived from the vault key, not from the database key: someone holding only the
/// database key (enough to edit the database with raw SQL) cannot compute a valid MAC
/// for an edited entry. The key lives in secure pages; ``wipe()`` it when the vault locks,
/// after which ``mac(_:)`` throws `MedVaultError.Code.locked`.
///
/// For example:
///
/// ```swift
/// let key = try AuditKey(vaultKey: vaultKey, vaultID: vaultID)
/// defer { key.wipe() }
/// let tag = try key.mac([previousMAC, entryBytes])
/// ```
public struct AuditKey: Sendable {
    /// Length of a MAC: HMAC-SHA256.
    public static let macLength = SecureHKDF.outputLength

    /// HKDF info string of the audit key, never used for anything else.
    static let label = Array("MedVault audit trail key v1".utf8)

    /// The key as HMAC pad states (the derived key itself is wiped once they are computed).
    private let key: SecureHMACKey

    /// Derives the audit key of a vault.
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
        let derived = try vaultKey.withUnsafeBytes { ikm in
            SecureHKDF.deriveSecureKey(inputKeyMaterial: ikm, salt: salt.bytes, info: Self.label)
        }
        defer { derived.wipe() }
        key = try derived.withUnsafeBytes { SecureHMACKey(key: $0) }
    }

    /// Zeroes the key. ``mac(_:)`` then throws `MedVaultError.Code.locked`.
    public func wipe() {
        key.wipe()
    }

    /// Whether ``wipe()`` was called.
    public var isWiped: Bool { key.isWiped }

    /// HMAC-SHA256 of the concatenated `parts` under the audit key.
    ///
    /// - Returns: 32 bytes.
    /// - Throws: `MedVaultError.Code.locked` after ``wipe()``.
    public func mac(_ parts: [[UInt8]]) throws -> [UInt8] {
        let message = parts.count == 1 ? parts[0] : Array(parts.joined())
        var output = [UInt8](repeating: 0, count: Self.macLength)
        try message.withUnsafeBytes { message in
            try output.withUnsafeMutableBytes { try key.authenticate(message, into: $0) }
        }
        return output
    }

    /// The body of `bytes` when its last 32 bytes are the MAC of `label` and that body
    /// (compared in constant time); `nil` otherwise. How the checkpoint file and the
    /// keyring's audit record are read.
    ///
    /// - Throws: `MedVaultError.Code.locked` after ``wipe()``.
    package func authenticatedBody(_ bytes: [UInt8], label: [UInt8]) throws -> [UInt8]? {
        guard bytes.count >= Self.macLength else { return nil }
        let body = Array(bytes.dropLast(Self.macLength))
        let tag = try mac([label, body])
        var difference: UInt8 = 0
        for (left, right) in zip(tag, bytes.suffix(Self.macLength)) { difference |= left ^ right }
        return difference == 0 ? body : nil
    }

    /// HMAC-SHA256 of `message` under the audit key, written into `output` (32 bytes):
    /// ``mac(_:)`` without allocating, for the audit trail's writer and verifier (one MAC
    /// per entry).
    ///
    /// - Throws: `MedVaultError.Code.locked` after ``wipe()``; `invalidArgument` when
    ///   `output` is not 32 bytes.
    package func mac(_ message: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) throws {
        guard output.count == Self.macLength else {
            throw MedVaultError(.invalidArgument, reason: "an audit MAC is 32 bytes")
        }
        try key.authenticate(message, into: output)
    }
}
