import Foundation
import MedVaultCore

/// The audit trail's record in the keyring (keyring format version 2): what this
/// device's trail must still hold, so that a trail emptied with its checkpoint file, an
/// older checkpoint put back with the trail cut to match, or a restore's checkpoint
/// copied from another restore are each reported (docs/audit.md, "The keyring's record").
///
/// Format (137 bytes, after the keyring's header MAC): a flags byte (bit 0: the trail is
/// anchored, bit 1: a restore awaits its first unlock); the MAC of the trail's first
/// entry (32 bytes); a recorded head, its sequence (8 bytes big-endian) and MAC (32); the
/// pending restore's id (32); a 32-byte HMAC-SHA256 under the audit key of the label
/// `MedVault keyring audit record v1` and the 105 bytes before it. Unused fields are zero.
///
/// The record has its own tag, under the audit key, rather than the keyring's header MAC:
/// moving it forward then needs the audit key only, which the trail holds until its last
/// checkpoint at `lock()`, after the vault key is wiped.
package struct AuditAnchor: Sendable, Equatable {
    /// The trail as recorded: its first entry and a head it has reached.
    package struct Trail: Sendable, Equatable {
        /// The MAC of entry 1.
        package var first: [UInt8]
        /// A head the trail reached: every later trail holds this entry with this MAC.
        package var sequence: Int64
        /// The MAC of the entry at ``sequence``.
        package var head: [UInt8]

        package init(first: [UInt8], sequence: Int64, head: [UInt8]) {
            self.first = first
            self.sequence = sequence
            self.head = head
        }
    }

    /// The recorded trail; `nil` before the first unlock of a new or restored vault.
    package var trail: Trail?
    /// The id of a restore whose checkpoint the next unlock honours (the checkpoint
    /// carries it in its MAC field); `nil` when no restore is pending.
    package var pendingRestore: [UInt8]?

    package init(trail: Trail?, pendingRestore: [UInt8]? = nil) {
        self.trail = trail
        self.pendingRestore = pendingRestore
    }

    /// The record's size in the keyring.
    package static let byteCount = 1 + 32 + 8 + 32 + 32 + 32
    static let label = Array("MedVault keyring audit record v1".utf8)

    /// What a keyring's record says.
    package enum Reading: Sendable, Equatable {
        /// A version-1 keyring: no record yet (a vault from before version 2, a joined device).
        case none
        /// The record authenticates under the audit key.
        case valid(AuditAnchor)
        /// The record does not authenticate: damaged, edited, or another vault's.
        case invalid
    }

    /// The record of `keyring`, authenticated with `key`.
    ///
    /// - Throws: `locked` when the key was wiped.
    package static func read(_ keyring: Keyring, key: AuditKey) throws -> Reading {
        guard let bytes = keyring.auditRecord else { return .none }
        guard bytes.count == byteCount, bytes[0] & ~3 == 0,
              try key.authenticatedBody(bytes, label: label) != nil else { return .invalid }
        var sequence: UInt64 = 0
        for byte in bytes[33..<41] { sequence = sequence << 8 | UInt64(byte) }
        let trail = bytes[0] & 1 == 1
            ? Trail(first: Array(bytes[1..<33]), sequence: Int64(bitPattern: sequence), head: Array(bytes[41..<73]))
            : nil
        return .valid(AuditAnchor(trail: trail, pendingRestore: bytes[0] & 2 == 2 ? Array(bytes[73..<105]) : nil))
    }

    /// The record's bytes, authenticated with `key`.
    ///
    /// - Throws: `locked` when the key was wiped; `invalidArgument` for a MAC or an id
    ///   that is not 32 bytes.
    package func encoded(key: AuditKey) throws -> [UInt8] {
        let zeros = [UInt8](repeating: 0, count: 32)
        for value in [trail?.first, trail?.head, pendingRestore] where value.map({ $0.count != 32 }) ?? false {
            throw MedVaultError(.invalidArgument, reason: "an audit record's MACs and restore id are 32 bytes")
        }
        var writer = ByteWriter()
        writer.append(UInt8((trail == nil ? 0 : 1) | (pendingRestore == nil ? 0 : 2)))
        writer.append(raw: trail?.first ?? zeros)
        writer.append(UInt64(bitPattern: trail?.sequence ?? 0))
        writer.append(raw: trail?.head ?? zeros)
        writer.append(raw: pendingRestore ?? zeros)
        let body = writer.bytes
        return body + (try key.mac([Self.label, body]))
    }
}
