import Foundation

/// The body of `POST /v1/vaults/{vaultId}/envelopes`: a batch of envelopes to store.
///
/// The server stores the batch in one transaction: all envelopes or none. A retried push
/// (same envelope ids, same bytes) gets the same sequences back and stores nothing twice.
public struct SyncPushRequest: Sendable, Hashable, Codable {
    /// The envelopes, in the order the device made them.
    public let envelopes: [SyncEnvelope]
    /// The pushing device's signature of the batch (``SyncPushSignature``): what lets the
    /// other devices check who made each envelope; `nil` from builds before it.
    public let signature: SyncPushSignature?

    /// Creates a request.
    public init(envelopes: [SyncEnvelope], signature: SyncPushSignature? = nil) {
        self.envelopes = envelopes
        self.signature = signature
    }
}

/// The answer to a push: each envelope's server sequence, in request order.
public struct SyncPushResponse: Sendable, Hashable, Codable {
    /// `sequences[i]` is the sequence of the request's `envelopes[i]`.
    public let sequences: [Int64]

    /// Creates a response.
    public init(sequences: [Int64]) {
        self.sequences = sequences
    }
}
