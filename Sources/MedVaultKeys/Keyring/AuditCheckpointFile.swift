import Foundation
import MedVaultCore

/// The audit trail's checkpoint: the chain's head `(sequence, mac)` kept outside the
/// database, in a small file beside the keyring (docs/audit.md, "Checkpoint").
///
/// Format (81 bytes): the magic `MVAUDCK1`; a flags byte (bit 0: the vault was just
/// restored from a backup and the next unlock records it); the sequence, 8 bytes
/// big-endian; the head's 32-byte MAC; a 32-byte HMAC-SHA256 under the audit key of the
/// label `MedVault audit checkpoint v1` and the 41 bytes before it. Written atomically
/// (temporary file, fsync, rename, fsync of the folder), mode 0600.
package struct AuditCheckpoint: Sendable, Equatable {
    /// The head's sequence (0: an empty trail).
    package var sequence: Int64
    /// The head's MAC (`mac_0` for an empty trail). In a checkpoint a restore wrote, the
    /// restore's random id, which the restored keyring's audit record awaits (``AuditAnchor``).
    package var mac: [UInt8]
    /// The vault was restored from a backup: the next unlock records a `restore` entry.
    package var isRestored: Bool

    package init(sequence: Int64, mac: [UInt8], isRestored: Bool = false) {
        self.sequence = sequence
        self.mac = mac
        self.isRestored = isRestored
    }

    static let magic = Array("MVAUDCK1".utf8)
    static let label = Array("MedVault audit checkpoint v1".utf8)
    static let byteCount = 8 + 1 + 8 + 32 + 32

    /// What reading the file found.
    package enum Reading: Sendable, Equatable {
        /// There is no checkpoint file.
        case missing
        /// The file authenticates under the key: its checkpoint.
        case valid(AuditCheckpoint)
        /// The file exists but does not authenticate (edited, another vault's, damaged).
        case invalid
    }

    /// Reads the checkpoint at `url`, authenticating it with `key`.
    ///
    /// - Throws: `locked` when the key was wiped.
    package static func read(at url: URL, key: AuditKey) throws -> Reading {
        let bytes: [UInt8]
        do {
            bytes = try AtomicFile.read(url)
        } catch let error as MedVaultError where error.code == .fileNotFound {
            return .missing
        } catch {
            // A link, a folder, a FIFO, an unreadable or oversized file: not a checkpoint
            // this vault wrote. Reported by verify(), never a reason to refuse an unlock.
            return .invalid
        }
        guard bytes.count == byteCount, Array(bytes[0..<8]) == magic, bytes[8] & ~1 == 0,
              try key.authenticatedBody(bytes, label: label) != nil else { return .invalid }
        var sequence: UInt64 = 0
        for byte in bytes[9..<17] { sequence = sequence << 8 | UInt64(byte) }
        return .valid(AuditCheckpoint(sequence: Int64(bitPattern: sequence), mac: Array(bytes[17..<49]),
                                      isRestored: bytes[8] & 1 == 1))
    }

    /// Writes `checkpoint` to `url` atomically, authenticated with `key`.
    ///
    /// - Throws: `locked` when the key was wiped; `invalidArgument` for a MAC that is not
    ///   32 bytes; file errors (the old file is then untouched).
    package static func write(_ checkpoint: AuditCheckpoint, to url: URL, key: AuditKey) throws {
        guard checkpoint.mac.count == AuditKey.macLength else {
            throw MedVaultError(.invalidArgument, reason: "an audit checkpoint's MAC is 32 bytes")
        }
        var writer = ByteWriter()
        writer.append(raw: magic)
        writer.append(UInt8(checkpoint.isRestored ? 1 : 0))
        writer.append(UInt64(bitPattern: checkpoint.sequence))
        writer.append(raw: checkpoint.mac)
        let body = writer.bytes
        let bytes = body + (try key.mac([label, body]))
        try bytes.withUnsafeBytes { try AtomicFile.write($0, to: url) }
    }
}

/// Failed unlock attempts, counted while the vault is locked (no key can write the
/// database then) and moved into the audit trail by the next unlock.
///
/// A 16-byte file beside the keyring: the count and the last failure's Unix
/// milliseconds, 8 bytes big-endian each. Not authenticated (nothing is unlocked when it
/// is written): it can be deleted or edited; it records attempts, it proves nothing.
package enum UnlockFailureFile {
    /// The count and last time recorded at `url` (`(0, 0)` when there is none or it is malformed).
    package static func read(at url: URL) -> (count: Int64, lastMilliseconds: Int64) {
        guard let bytes = try? AtomicFile.read(url), bytes.count == 16 else { return (0, 0) }
        var count: UInt64 = 0
        var last: UInt64 = 0
        for byte in bytes[0..<8] { count = count << 8 | UInt64(byte) }
        for byte in bytes[8..<16] { last = last << 8 | UInt64(byte) }
        return (Int64(bitPattern: count), Int64(bitPattern: last))
    }

    /// Adds one failure at `milliseconds`.
    package static func increment(at url: URL, milliseconds: Int64) throws {
        let current = read(at: url)
        var writer = ByteWriter()
        writer.append(UInt64(bitPattern: max(0, current.count) &+ 1))
        writer.append(UInt64(bitPattern: milliseconds))
        try writer.bytes.withUnsafeBytes { try AtomicFile.write($0, to: url) }
    }

    /// Removes the record (the failures are in the trail now).
    package static func clear(at url: URL) {
        try? AtomicFile.remove(url)
    }
}
