import Foundation
import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultSyncWire

extension SyncEngine {
    /// A run of pulled envelopes, opened with the sync keys, to apply in one transaction.
    struct PulledGroup: Sendable {
        /// The envelopes that opened, in sequence order.
        let items: [RemoteChangeApplier.PageItem]
        /// The envelopes that did not open with this vault's keys.
        let refused: [SyncEnvelopeError]
        /// The server sequence the pull cursor moves to once the group is applied.
        let lastSequence: Int64
        /// Whether the server holds envelopes after ``lastSequence``.
        let hasMore: Bool
        /// The epoch of the envelope the group stopped before, when this device holds no
        /// key of it yet (the group is then empty).
        var needsEpoch: UInt32?
        /// The highest epoch of the group's envelopes and the epochs before it: a later
        /// envelope of a lower epoch is refused.
        var highestEpoch: UInt32 = 0
    }

    /// Pulls and applies every envelope after the vault's pull cursor.
    ///
    /// While one group applies (on the database's writer thread), the next one is pulled
    /// and opened, so a clone's network reads, decryption and database writes overlap. In
    /// memory meanwhile: the applying group and the next one's ciphertext and opened
    /// records, each group within ``envelopesPerApply`` and ``maximumBytesPerApply``.
    ///
    /// A group applies only if the cursor is still where it was read; when another
    /// process or engine applied it first, the group pulled ahead is dropped (cancelled if
    /// still running) and pulling goes on from the cursor that process left. A failure
    /// while applying cancels the pull ahead; a failure of the pull ahead surfaces after
    /// the group before it is committed.
    func pull(_ credentials: SyncCredentials, into result: inout SyncResult) async throws {
        let now = vault.options.clock.now()
        var (after, floor) = try await vault.database.read { db in
            (try SyncStateStore.state(db).pulledThrough, try SyncEpochRecord.pulledEpoch(db))
        }
        var pending = try await pullGroup(after: after, floor: floor, credentials)
        while let group = pending {
            if let epoch = group.needsEpoch {
                // Adopt the new epoch; an envelope claiming one the server has not reached
                // is then opened (and refused) like any that does not open.
                let adopted = try await adoptEpochs(credentials, through: epoch)
                pending = try await pullGroup(after: after, floor: floor, credentials, allowingUnknownEpochs: !adopted)
                continue
            }
            let outcome: ApplyOutcome?
            let following: PulledGroup?
            do {
                async let ahead = group.hasMore
                    ? pullGroup(after: group.lastSequence, floor: group.highestEpoch, credentials) : nil
                outcome = try await apply(group, pulledAfter: after, credentials, now: now)
                // Not awaited when the group was applied by someone else: leaving this
                // scope cancels the pull ahead and waits for it.
                following = outcome == nil ? nil : try await ahead
            }
            guard let outcome else {
                (after, floor) = try await vault.database.read { db in
                    (try SyncStateStore.state(db).pulledThrough, try SyncEpochRecord.pulledEpoch(db))
                }
                pending = try await pullGroup(after: after, floor: floor, credentials)
                continue
            }
            floor = group.highestEpoch
            result.downloaded += outcome.applied
            setStatus(.syncing(downloaded: result.downloaded))
            result.conflicts += outcome.conflicts
            result.errors += outcome.errors
            after = group.lastSequence
            pending = following
        }
    }

    /// What applying a group did.
    struct ApplyOutcome: Sendable {
        let applied: Int
        let conflicts: Int
        let errors: [SyncEnvelopeError]
    }

    /// Pulls the server pages after `after` that one transaction applies (several pages
    /// of ``batchSize``, within ``envelopesPerApply`` and ``maximumBytesPerApply``: a
    /// clone's pages of 500 would otherwise each re-encrypt the same index pages at
    /// commit) and opens them; `nil` when there is nothing after `after`.
    nonisolated func pullGroup(after: Int64, floor: UInt32, _ credentials: SyncCredentials,
                               allowingUnknownEpochs: Bool = false) async throws -> PulledGroup? {
        var pulled = try Self.checkedPage(try await transport.pull(after: after, limit: batchSize, as: credentials),
                                          after: after)
        if pulled.envelopes.isEmpty { return nil }
        var bytes = pulled.envelopes.reduce(0) { $0 + $1.envelope.ciphertext.count }
        while pulled.hasMore, pulled.envelopes.count + batchSize <= envelopesPerApply, bytes < Self.maximumBytesPerApply {
            try Self.checkCancellation()
            let next = try Self.checkedPage(try await transport.pull(after: pulled.lastSequence, limit: batchSize,
                                                                     as: credentials), after: pulled.lastSequence)
            if next.envelopes.isEmpty { break }
            bytes += next.envelopes.reduce(0) { $0 + $1.envelope.ciphertext.count }
            pulled = Self.merged(pulled, next)
        }
        try Self.checkCancellation()
        let page = pulled
        let vaultID = vault.vaultID
        // The closure is spelled async on purpose: the synchronous overload records a
        // `sync` audit entry, a write that would wait for the group being applied.
        return try await vault.withSyncKeyChain { @Sendable (chain: SyncKeyChain) async throws -> PulledGroup in
            var opened: [RemoteChangeApplier.PageItem] = []
            var refused: [SyncEnvelopeError] = []
            opened.reserveCapacity(page.envelopes.count)
            let opener = EnvelopeOpener(chain: chain)
            // An envelope of an epoch newer than this device holds (a device started one
            // during this pass): the group ends before it, so the engine fetches the new
            // epoch's keys and pulls it again, instead of refusing it for good.
            var page = page
            if let newer = page.envelopes.firstIndex(where: { $0.envelope.epoch > chain.epoch }), !allowingUnknownEpochs {
                guard newer > 0 else {
                    return PulledGroup(items: [], refused: [], lastSequence: after, hasMore: true,
                                       needsEpoch: page.envelopes[newer].envelope.epoch)
                }
                page = SyncPullResponse(envelopes: Array(page.envelopes.prefix(newer)),
                                        lastSequence: page.envelopes[newer - 1].sequence, hasMore: true,
                                        signatures: page.signatures)
            }
            var verifier = PushSignatures.Verifier(chain: chain, vaultID: vaultID)
            var highest = floor
            for (index, pulled) in page.envelopes.enumerated() {
                if index % 256 == 255 { try Self.checkCancellation() }
                do {
                    // Epochs never go down along the server's sequence (it refuses new
                    // envelopes of an epoch the vault left): a lower one is an old key's
                    // holder, a revoked device say, slipping something in.
                    guard pulled.envelope.epoch >= highest else { throw Self.epochLeft }
                    // A signed push names its device; its signer must be the sealed author.
                    let signer = try verifier.signer(of: pulled, signatures: page.signatures)
                    opened.append(.init(sequence: pulled.sequence, envelopeID: pulled.envelope.id,
                                        record: try opener.open(pulled.envelope), pusher: signer ?? pulled.deviceID))
                    // Only an envelope that verified and opened raises the floor (never past
                    // an epoch this device holds): a forged epoch cannot shut out the rest.
                    highest = min(max(highest, pulled.envelope.epoch), chain.epoch)
                } catch let error as MedVaultError {
                    let reason = [Self.epochLeft, PushSignatures.Verifier.unsigned].contains(error)
                        ? error.reason : "the envelope does not open with this vault's keys"
                    refused.append(SyncEnvelopeError(sequence: pulled.sequence, envelopeID: pulled.envelope.id,
                                                     code: error.code, reason: reason))
                }
            }
            return PulledGroup(items: opened, refused: refused, lastSequence: page.lastSequence, hasMore: page.hasMore,
                               highestEpoch: highest)
        }
    }

    /// `page` cut to its leading run of consecutive sequences (see ``consecutive(_:)``),
    /// once it is known to continue exactly where the cursor is.
    ///
    /// A vault's sequences are dense from 1 (the server numbers pushes under a lock on the
    /// vault), so a page after `after` starts at `after + 1`.
    ///
    /// - Throws: `badResponse` when a page with envelopes starts anywhere else, or names
    ///   another last sequence than its last envelope's: applying it would move the
    ///   cursor back (pulling the same pages forever) or past envelopes never sent (this
    ///   device would never ask for them again).
    nonisolated static func checkedPage(_ page: SyncPullResponse, after: Int64) throws -> SyncPullResponse {
        if let first = page.envelopes.first, let last = page.envelopes.last {
            guard after < .max, first.sequence == after + 1, page.lastSequence == last.sequence else {
                throw MedVaultError(.badResponse, reason: "the sync server answered a pull page out of order")
            }
        }
        return consecutive(page)
    }

    static let epochLeft = MedVaultError(.corrupted, reason: "the envelope is sealed in an epoch the vault has left")

    /// Throws `MedVaultError.Code.cancelled` when the task is cancelled: a group pulled
    /// ahead and no longer wanted stops between pages and every 256 envelopes opened.
    nonisolated static func checkCancellation() throws {
        if Task.isCancelled { throw MedVaultError(.cancelled, reason: "the sync pass was cancelled") }
    }

    /// Applies `group` in one transaction if the pull cursor is still `pulledAfter`;
    /// `nil`, writing nothing, when another process or engine applied it first.
    private func apply(_ group: PulledGroup, pulledAfter: Int64, _ credentials: SyncCredentials,
                       now: Date) async throws -> ApplyOutcome? {
        let database = vault.database
        // This group's own "now": a long clone must not judge late groups by its start.
        let horizon = Self.clockHorizon(now: vault.options.clock.now(), skew: maximumClockSkew)
        return try await vault.withSyncKeyChain { chain in
            try await database.write(duration: .long) { db -> ApplyOutcome? in
                // Another process syncing this vault applied this page first: skip
                // it, and go on from the cursor it left (never move it back).
                guard try SyncStateStore.state(db).pulledThrough == pulledAfter else { return nil }
                try PendingChangeSealer.sealPending(keys: chain.current, localDevice: credentials.deviceID, db)
                // Replays (a number of its device received already) are refused before
                // anything applies; the numbers of the rest are recorded with the cursor.
                let (admitted, replays) = try SyncDeviceSequences.admit(group.items, localDevice: credentials.deviceID, db)
                let (outcome, refusedByApply) = try RemoteChangeApplier.applyPage(
                    admitted, localDevice: credentials.deviceID, now: now, clockHorizon: horizon, db)
                // What applying wrote is in the log as this device's entries: mark
                // it sealed so it is never echoed back.
                try SyncStateStore.setSealedThrough(try SyncRecordStore.latestSequence(db), db)
                try SyncStateStore.setPulledThrough(group.lastSequence, db)
                try SyncEpochRecord.raisePulledEpoch(to: group.highestEpoch, db)
                // Kept with the cursor move: a later step of this sync may throw
                // before its result, and these envelopes, reach the app.
                let refused = (group.refused + replays + refusedByApply).sorted { $0.sequence < $1.sequence }
                try SyncStateStore.recordRefused(refused, at: now, db)
                return ApplyOutcome(applied: outcome.applied, conflicts: outcome.conflicts, errors: refused)
            }
        }
    }

    /// The highest hybrid-clock stamp a remote change may win a conflict with: `now` plus
    /// `skew`, at the end of that millisecond.
    nonisolated static func clockHorizon(now: Date, skew: Duration) -> Int64 {
        let (skewSeconds, overSeconds) = max(skew.components.seconds, 0).multipliedReportingOverflow(by: 1_000)
        let skewMilliseconds = overSeconds ? Int64.max : skewSeconds &+ skew.components.attoseconds / 1_000_000_000_000_000
        let nowMilliseconds = (now.timeIntervalSince1970 * 1_000).rounded(.down)
        guard nowMilliseconds.isFinite, nowMilliseconds < 9.0e15, nowMilliseconds > -9.0e15 else { return .max }
        let (milliseconds, overAdd) = Int64(nowMilliseconds).addingReportingOverflow(skewMilliseconds)
        let (shifted, overShift) = milliseconds.multipliedReportingOverflow(by: 1 << 16)
        return overAdd || overShift || milliseconds < 0 ? .max : shifted | 0xFFFF
    }
}
