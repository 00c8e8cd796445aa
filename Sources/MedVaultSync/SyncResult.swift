import Foundation
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
