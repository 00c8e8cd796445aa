import Foundation
import MedVault
import MedVaultCore

/// What one ``SyncEngine/sync()`` did.
public struct SyncResult: Sendable, Hashable {
    /// Envelopes the server acknowledged (this device's changes, one per record changed
    /// since the last sync).
    public var uploaded = 0
    /// Envelopes of other devices applied (including those that changed nothing here).
    public var downloaded = 0
    /// Conflicts newly listed by this sync (see ``SyncEngine/conflicts()``).
    public var conflicts = 0
    /// Envelopes refused: they could not be opened (changed bytes, another vault's) or
    /// applied. The rest of their batch was applied; a refused envelope is not retried.
    /// The vault keeps them too, until dismissed: see ``SyncEngine/refusedEnvelopes()``.
    public var errors: [SyncEnvelopeError] = []
    /// What the sync did with the keyring's shared slots (password, recovery key).
    public var keyring: SyncKeyringOutcome = .unchanged
    /// How many of this device's records are listed as too large to send, after this
    /// sync (see ``SyncEngine/unsentRecords()``); 0 in the normal case.
    public var unsentRecords = 0
    /// Envelopes of other devices not received, after this sync: numbers skipped in a
    /// device's sequence (see ``SyncEngine/missingEnvelopes()``); empty in the normal case.
    public var missingEnvelopes: [SyncMissingEnvelopes] = []

    /// An empty result.
    public init() {}
}

/// An envelope a sync refused, and why. It never carries the envelope's content.
public struct SyncEnvelopeError: Sendable, Hashable, CustomStringConvertible {
    /// The envelope's server sequence.
    public let sequence: Int64
    /// The envelope's id.
    public let envelopeID: UUID
    /// Why: `corrupted` (it does not open: changed, forged, or another vault's),
    /// `invalidArgument` (a record this build cannot store).
    public let code: MedVaultError.Code
    /// A fixed explanation, never a field value.
    public let reason: String

    /// Creates an error value.
    public init(sequence: Int64, envelopeID: UUID, code: MedVaultError.Code, reason: String) {
        self.sequence = sequence
        self.envelopeID = envelopeID
        self.code = code
        self.reason = reason
    }

    /// The sequence, code and reason.
    public var description: String { "envelope \(sequence) refused (\(code.rawValue)): \(reason)" }
}

/// What one sync did with the keyring the server holds (see docs/sync.md, "Keyring").
public enum SyncKeyringOutcome: Sendable, Hashable {
    /// The server's shared slots were this device's already.
    case unchanged
    /// This device's password or recovery-key change was published (or its keyring
    /// published again over an older one the server held).
    case published
    /// Another device's password or recovery-key change was adopted here.
    case adopted
    /// The server's keyring was left alone and records synced anyway: `corrupted` (it
    /// does not parse or authenticate and this device has no confirmed secret to seal
    /// over it, or its counter jumps too far), `schemaTooNew` (a newer format),
    /// `conflict` (other cipher settings; this device's password changed while the sync
    /// read it; or another device published while this one did: the next sync decides
    /// again), `invalidArgument` (its slots cannot be merged, or ask more Argon2 work than
    /// this device accepts), `badResponse` (a generation or counter that cannot grow).
    /// Tried again at the next sync.
    case notAdopted(MedVaultError.Code)
    /// The server's keyring is sealed under the vault's sync secret and this device has
    /// none yet (it synced before the secret existed, and another device created it):
    /// give it the secret with ``SyncEngine/adoptSyncSecret(_:)``. Records still sync.
    case syncSecretNeeded
}

/// A record of this device that sync does not send, and why. It never carries the
/// record's content.
///
/// Today one reason exists: `limitExceeded`, the record's sealed state is larger than
/// one envelope (1 MiB): long texts are limited to 200,000 characters, and a character
/// can take several bytes. The record stays here; the other devices keep the version they
/// had. A change another device makes to it meanwhile is a listed conflict here (never a
/// silent overwrite). A later change that makes it fit is sent, and takes it off the
/// list. Records that refer to it are sent and refused as orphans elsewhere: see
/// docs/sync.md, "Not built yet".
public struct SyncUnsentRecord: Sendable, Hashable, CustomStringConvertible {
    /// The record's table.
    public let table: VaultTable
    /// The record's id.
    public let recordID: UUID
    /// Why: `limitExceeded`.
    public let code: MedVaultError.Code
    /// A fixed explanation, never a field value.
    public let reason: String

    /// Creates a value.
    public init(table: VaultTable, recordID: UUID, code: MedVaultError.Code, reason: String) {
        self.table = table
        self.recordID = recordID
        self.code = code
        self.reason = reason
    }

    /// The table, code and reason.
    public var description: String { "\(table.rawValue) record not sent (\(code.rawValue)): \(reason)" }
}
