import Foundation

/// One envelope as a pull returns it: where the server filed it and who pushed it.
public struct SyncPulledEnvelope: Sendable, Hashable, Codable {
    /// The envelope's sequence in its vault: dense, growing, assigned at first push.
    public let sequence: Int64
    /// The device that pushed it first.
    public let deviceID: UUID
    /// The envelope, byte for byte as pushed.
    public let envelope: SyncEnvelope
    /// The signed push it was first stored by: an index into the page's
    /// ``SyncPullResponse/signatures``; `nil` for a push without a signature.
    public let signature: Int?

    /// Creates a pulled envelope.
    public init(sequence: Int64, deviceID: UUID, envelope: SyncEnvelope, signature: Int? = nil) {
        self.sequence = sequence
        self.deviceID = deviceID
        self.envelope = envelope
        self.signature = signature
    }

    private enum CodingKeys: String, CodingKey {
        case sequence, deviceID = "deviceId", envelope, signature
    }
}

/// The answer to `GET /v1/vaults/{vaultId}/envelopes?after=N&limit=M`: one page.
///
/// A device stores ``lastSequence`` once it has applied the page and asks again with
/// `after=lastSequence` while ``hasMore`` is true.
public struct SyncPullResponse: Sendable, Hashable, Codable {
    /// The envelopes with sequences greater than `after`, in sequence order.
    public let envelopes: [SyncPulledEnvelope]
    /// The sequence to pass as `after` next: the page's last, or `after` when empty.
    public let lastSequence: Int64
    /// Whether envelopes past ``lastSequence`` existed when the page was read.
    public let hasMore: Bool
    /// The signed pushes the page's envelopes came by (``SyncPulledEnvelope/signature``
    /// indexes it); `nil` or empty when none was signed.
    public let signatures: [SyncPushSignature]?

    /// Creates a page.
    public init(envelopes: [SyncPulledEnvelope], lastSequence: Int64, hasMore: Bool,
                signatures: [SyncPushSignature]? = nil) {
        self.envelopes = envelopes
        self.lastSequence = lastSequence
        self.hasMore = hasMore
        self.signatures = signatures
    }
}
