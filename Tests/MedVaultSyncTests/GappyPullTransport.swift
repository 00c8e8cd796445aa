import Foundation
import MedVaultCore
@testable import MedVaultSync
import MedVaultSyncWire

/// A transport over an `InMemorySyncTransport` whose pulls behave as the server's did
/// before its byte-cut fix: a page cut by its byte limit still took later envelopes
/// that fit (a short one after a large one), leaving a gap in its sequences.
actor GappyPullTransport: ForwardingSyncTransport {
    let inner: InMemorySyncTransport
    let maximumPullBytes: Int

    init(_ inner: InMemorySyncTransport, maximumPullBytes: Int) {
        self.inner = inner
        self.maximumPullBytes = maximumPullBytes
    }

    func pull(after: Int64, limit: Int, as credentials: SyncCredentials) async throws -> SyncPullResponse {
        // Everything after `after`, then the old server's loop: skip what does not fit,
        // but keep taking later rows that do.
        var all: [SyncPulledEnvelope] = []
        var signatures: [SyncPushSignature] = []
        var cursor = after
        while true {
            let page = try await inner.pull(after: cursor, limit: 500, as: credentials)
            // Each page's envelopes point into its own signatures: re-pointed into the sum.
            let offset = signatures.count
            signatures += page.signatures ?? []
            all += page.envelopes.map {
                SyncPulledEnvelope(sequence: $0.sequence, deviceID: $0.deviceID, envelope: $0.envelope,
                                   signature: $0.signature.map { $0 + offset })
            }
            cursor = page.lastSequence
            if !page.hasMore || page.envelopes.isEmpty { break }
        }
        var page: [SyncPulledEnvelope] = []
        var bytes = 0
        var hasMore = false
        for pulled in all.prefix(limit + 1) {
            let size = pulled.envelope.ciphertext.count
            if page.count == limit || (!page.isEmpty && bytes + size > maximumPullBytes) {
                hasMore = true
                continue
            }
            bytes += size
            page.append(pulled)
        }
        return SyncPullResponse(envelopes: page, lastSequence: page.last?.sequence ?? after, hasMore: hasMore,
                                signatures: signatures.isEmpty ? nil : signatures)
    }
}
