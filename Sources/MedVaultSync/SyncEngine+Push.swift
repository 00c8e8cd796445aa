import Foundation
import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultSyncWire

/// Sealing and pushing: a pass's seal steps, the push loop beside them, acknowledgements.
extension SyncEngine {
    /// Seals this device's pending changes, then pushes them. Sealing goes a bounded step
    /// a write transaction (``PendingChangeSealer/sealStep(keys:localDevice:limit:_:)``): a
    /// first seal of a large vault neither holds its changes in memory nor keeps the app's
    /// writes waiting for its whole length, and a kill between steps loses nothing.
    ///
    /// When the first step leaves more to seal, the other steps run in a task of their
    /// own while `pushOutbox` pushes what is sealed: the device seals while the server
    /// and PostgreSQL store. The task is waited for on every way out, so no step runs
    /// after this call returns or throws: an error of a step is the pass's error; a
    /// failed push lets the steps finish, then throws; a cancelled pass stops them.
    /// (Tried before with the `URLSession` client, whose pushes spun a core: the full
    /// clinic's push took 96.6 s against 89.3 s; docs/benchmarks-method.md.)
    ///
    /// - Returns: How many envelopes were pushed.
    func sealAndPush(_ credentials: SyncCredentials) async throws -> Int {
        // What was written before this call; what the app writes while the steps run is
        // left to the next pass, so that a steady import cannot keep the push waiting.
        let goal = try await vault.database.read { db in try SyncRecordStore.latestSequence(db) }
        guard try await !sealStep(credentials, goal: goal) else {
            return try await pushOutboxAdoptingEpochs(credentials)
        }
        // More steps: sealed in a task of their own while the envelopes sealed so far are pushed.
        let (steps, stepped) = AsyncThrowingStream<Void, any Error>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let task = Task { () -> (any Error)? in
            do {
                while !Task.isCancelled, try await !self.sealStep(credentials, goal: goal) { stepped.yield() }
                stepped.finish()
                return nil
            } catch {
                stepped.finish(throwing: error)
                return error
            }
        }
        let sealing = SealingSteps(steps: steps, task: task)
        do {
            let pushed = try await pushOutboxAdoptingEpochs(credentials, sealing: sealing)
            if let error = await finishSealing(sealing) { throw error }
            try Task.checkCancellation()
            return pushed
        } catch {
            // A failed push lets the steps finish, as when every step was sealed before
            // any push: a pull after a refused push must not seal the rest in one
            // transaction. A cancelled pass stops them.
            if Task.isCancelled { task.cancel() }
            _ = await finishSealing(sealing)
            throw error
        }
    }

    /// The seal steps of a pass running beside its push: each step's end (buffered, newest
    /// only) and the task, which returns the error that stopped it.
    struct SealingSteps {
        let steps: AsyncThrowingStream<Void, any Error>
        let task: Task<(any Error)?, Never>
    }

    /// Waits for the seal steps beside a push to end (stopping them if the waiting task
    /// is cancelled); the error a step threw, if one did.
    func finishSealing(_ sealing: SealingSteps) async -> (any Error)? {
        await withTaskCancellationHandler {
            await sealing.task.value
        } onCancel: {
            sealing.task.cancel()
        }
    }

    /// Internal tuning for tests: the most change-log entries a seal step covers (see
    /// ``PendingChangeSealer/stepSize``); small steps let a test see a push while a run
    /// is still being sealed.
    func setSealStepSize(_ size: Int) {
        sealStepSize = max(1, size)
    }

    /// One sealing step in its own write transaction; whether nothing was left before `goal`.
    func sealStep(_ credentials: SyncCredentials, goal: Int64) async throws -> Bool {
        let device = credentials.deviceID
        let database = vault.database
        let limit = sealStepSize
        return try await vault.withSyncKeyChain { chain in
            try await database.write(duration: .long) { db in
                try PendingChangeSealer.sealStep(keys: chain.current, localDevice: device,
                                                 limit: limit, goal: goal, db).finished
            }
        }
    }

    /// Pushes the outbox; when the server refuses it because another device started a new
    /// epoch meanwhile (`conflict`), adopts the epoch, re-seals and pushes again.
    func pushOutboxAdoptingEpochs(_ credentials: SyncCredentials, sealing: SealingSteps? = nil)
        async throws -> Int {
        do {
            return try await pushOutbox(credentials, sealing: sealing)
        } catch let error as MedVaultError where error.code == .conflict {
            // Re-sealing must not run beside a seal step: the steps finish first.
            if let sealing, let stepError = await finishSealing(sealing) { throw stepError }
            // A new epoch elsewhere, or envelopes sealed in the epoch before by a pass that
            // read its keys just before another adopted the next: adopt, re-seal, once more.
            let held = try await vault.database.read { db in try SyncEpochRecord.currentEpoch(db) }
            let server = try await transport.keyring(as: credentials).epoch ?? 0
            if server > held {
                guard try await adoptEpochs(credentials, through: server) else { throw error }
            }
            guard try await resealOutbox() || server > held else { throw error }
            return try await pushOutbox(credentials)
        }
    }

    /// Pushes the outbox in batches; with `sealing`, goes on until its steps are done and
    /// everything they sealed is pushed.
    func pushOutbox(_ credentials: SyncCredentials, sealing: SealingSteps? = nil) async throws -> Int {
        var uploaded = 0
        // The next batch is read and signed while the one before is on its way. It starts
        // after the last position of the batch before: positions only grow (the outbox's
        // `AUTOINCREMENT`, migration "sync outbox without an id index"; before it, rows
        // sealed into an emptied outbox took low positions again), so batches go in seal
        // order whatever else runs meanwhile.
        //
        // A batch's acknowledgement (its rows out of the outbox, the cursor past them) is
        // committed while the next batch is on its way, in push order. It runs in a task
        // of its own, so that cancelling the sync does not roll it back, and it is waited
        // for on every way out of this function, an error's included: a caller that
        // re-seals the outbox for a new epoch must never re-seal envelopes the server
        // holds. If the acknowledgement itself fails, its error is the one thrown (the
        // push after it may have been stored too: the next pass resends both under the
        // same ids, which the server recognises).
        var acknowledging: Task<Void, any Error>?
        do {
            var next = try await outboxBatch(after: nil, credentials)
            var steps = sealing?.steps.makeAsyncIterator()
            while true {
                guard let batch = next else {
                    // Caught up with the sealing: wait for its next step (or its end), then
                    // read from the start once every push is acknowledged (what is left is
                    // then exactly what was not pushed).
                    guard steps != nil else { break }
                    let more = try await steps?.next() != nil
                    if !more { steps = nil }
                    try await acknowledging?.value
                    acknowledging = nil
                    next = try await outboxBatch(after: nil, credentials)
                    continue
                }
                async let following = outboxBatch(after: batch.rows.last?.position, credentials)
                let response = try await transport.push(batch.request, as: credentials)
                try await acknowledging?.value
                guard response.sequences.count == batch.rows.count else {
                    throw MedVaultError(.badResponse, reason: "the sync server acknowledged another number of envelopes")
                }
                let epoch = batch.request.envelopes[0].epoch
                acknowledging = Task { try await self.acknowledge(batch.rows, sequences: response.sequences, epoch: epoch) }
                uploaded += batch.rows.count
                next = try await following
            }
        } catch {
            try await acknowledging?.value
            throw error
        }
        try await acknowledging?.value
        return uploaded
    }

    /// Takes a pushed batch out of the outbox and moves the pull cursor over it where the
    /// server numbered it right after it (``passOwnEnvelopes(_:epoch:_:)``).
    func acknowledge(_ rows: [SyncStateStore.OutboxEnvelope], sequences: [Int64], epoch: UInt32)
        async throws {
        try await vault.database.write { db in
            try SyncStateStore.removeFromOutbox(rows, db)
            try Self.passOwnEnvelopes(sequences, epoch: epoch, db)
        }
    }

    /// The oldest outbox envelopes after `position` that fit one push (as many as fit
    /// the server's body limit: attachment chunks are ~117 KiB each in a push's JSON),
    /// and their signed push; `nil` when none is left.
    func outboxBatch(after position: Int64?, _ credentials: SyncCredentials) async throws
        -> (rows: [SyncStateStore.OutboxEnvelope], request: SyncPushRequest)? {
        let limit = batchSize
        let maximumBytes = maximumPushBytes
        let rows = try await vault.database.read { db in
            try SyncStateStore.outbox(after: position ?? 0, limit: limit, maximumBodyBytes: maximumBytes, db)
        }
        guard !rows.isEmpty else { return nil }
        let envelopes = rows.map(\.envelope)
        return (rows, SyncPushRequest(envelopes: envelopes, signature: try await pushSignature(envelopes, credentials)))
    }

    /// Moves the pull cursor over the envelopes a push just stored when the server
    /// numbered them right after it, so that no other device's envelope lies between:
    /// pulling them back would apply nothing (a device skips its own records), and after
    /// a first push would download the whole vault again. Anything else (a retry's old
    /// numbers, another device's envelopes in between) leaves the cursor to the pull.
    ///
    /// A server that numbers a push over another device's envelopes hides those from
    /// this device, which it can do anyway by leaving them out of pulls; the other
    /// device's sequence numbers then show the gap (``missingEnvelopes()``).
    static func passOwnEnvelopes(_ sequences: [Int64], epoch: UInt32, _ db: DatabaseConnection) throws {
        let cursor = try SyncStateStore.state(db).pulledThrough
        var last = cursor
        for sequence in sequences {
            // Overflow-safe: the numbers are the server's.
            let (next, overflow) = last.addingReportingOverflow(1)
            guard !overflow, sequence == next else { return }
            last = next
        }
        guard last > cursor else { return }
        try SyncStateStore.setPulledThrough(last, db)
        try SyncEpochRecord.raisePulledEpoch(to: epoch, db)
    }

    /// This device's signature of `envelopes` (``PushSignatures``); `nil` for envelopes of
    /// epoch 0 when it has no certified key (a transport or server without epochs).
    ///
    /// - Throws: `conflict` for envelopes of several epochs (the next pass re-seals them
    ///   into one); `unauthorized` when this device has no certified key of their epoch 1
    ///   or later (an unsigned push would be refused by every device).
    func pushSignature(_ envelopes: [SyncEnvelope], _ credentials: SyncCredentials) async throws
        -> SyncPushSignature? {
        guard let epoch = envelopes.first?.epoch else { return nil }
        guard envelopes.allSatisfy({ $0.epoch == epoch }) else {
            throw MedVaultError(.conflict, reason: "the outbox holds envelopes of two sync epochs; sync again")
        }
        let (deviceKey, certified) = try await vault.database.read { db in
            (try SyncEpochRecord.deviceKey(db), try SyncEpochRecord.certifiedEpoch(db))
        }
        guard let deviceKey, let certified, certified >= epoch else {
            guard epoch > 0 else { return nil }
            throw MedVaultError(.unauthorized, reason: "this device's key is not certified for the vault's sync epoch")
        }
        let vaultID = vault.vaultID
        return try await vault.withSyncKeyChain { chain -> SyncPushSignature? in
            guard chain.holds(epoch: epoch) else { return nil }
            let certificate = try Self.certificate(of: deviceKey, deviceID: credentials.deviceID, vaultID: vaultID,
                                                   keys: try chain.keys(epoch: epoch))
            return try PushSignatures.sign(envelopes, vaultID: vaultID, deviceKey: deviceKey, certificate: certificate)
        }
    }
}
