import Foundation
import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultSyncWire

/// Seals this device's changes not yet sealed into the outbox, inside a write
/// transaction, so the outbox, the record clocks and `sealed_through` move together.
///
/// One envelope per record changed since the last seal (several changes of one record
/// travel as its latest state), in the order of each record's first change, so a parent
/// always precedes its children. Its clock is above both its change-log stamp and the
/// clock of the version it replaced (a causally later change never loses to an earlier
/// one, whatever the devices' wall clocks). Its id is derived from the vault, the device
/// and the change's local sequence under a vault key (HMAC), so a re-seal after a crash
/// before the commit yields the same id, and the server cannot link ids to sequences.
/// A complete attachment's content is sealed just before its envelope, one envelope per
/// 64 KiB chunk (``AttachmentChunkRecord``), with ids derived the same way.
package enum PendingChangeSealer {
    /// The most change-log entries one step of a large seal run covers: a step is one
    /// short write transaction (the app writes between steps) and reads this many plan rows.
    package static let stepSize = 1_000
    /// The most attachment chunk envelopes (64 KiB each) one step seals: a step with
    /// attachments ends early, after the attachment that reached this many.
    package static let stepChunks: Int64 = 256

    /// Seals everything after `sealed_through` in the caller's transaction: the rest of
    /// a planned run, then whatever came after it.
    ///
    /// - Returns: How many records were sealed (and attachments whose chunks were sent
    ///   again, see ``sealResends(keys:localDevice:numbers:_:)``); chunk envelopes and
    ///   records too large to send (listed instead, see `SyncUnsentRecord`) are not counted.
    @discardableResult
    static func sealPending(keys: SyncKeys, localDevice: UUID, _ db: DatabaseConnection) throws -> Int {
        var sealed = 0
        while true {
            let step = try sealStep(keys: keys, localDevice: localDevice, limit: nil, db)
            sealed += step.sealed
            if step.finished { return sealed }
        }
    }

    /// One step of sealing, in the caller's transaction.
    ///
    /// A run of more than `limit` change-log entries is first planned (`SyncSealPlan`:
    /// one SQL statement; SQLite groups the entries), then sealed a step at a time: at
    /// most `limit` planned records, ending early after `chunks` attachment chunk envelopes,
    /// each step deleting what it sealed from the plan. A kill between steps loses
    /// nothing and seals nothing twice; the next step goes on. A planned record changed
    /// again meanwhile is sealed in its step with its current state (it cannot wait for
    /// the next run: its children in this run would reach other devices before it), and
    /// again by the next run. A smaller run, or any run when `limit` is `nil`, is sealed
    /// from the change log at once. `sealed_through` moves when a run is sealed whole.
    ///
    /// - Parameter goal: With no run in progress, `sealed_through` at or past `goal` is
    ///   finished: a caller that stops there is not kept sealing what the app writes
    ///   meanwhile.
    /// - Returns: How many records were sealed, and whether the step found nothing left
    ///   to do (`false` when a planned run is unfinished, or has just finished and
    ///   changes made meanwhile may wait).
    package static func sealStep(keys: SyncKeys, localDevice: UUID, limit: Int?, goal: Int64? = nil,
                                 chunks chunkBudget: Int64 = stepChunks,
                                 _ db: DatabaseConnection) throws -> (sealed: Int, finished: Bool) {
        // Adjustments the upgrade seeded are logged first, so they are sealed with the rest.
        try MedicationStockStore.logSeeds(db)
        var numbers = try SyncDeviceSequences.Counter(device: localDevice, db)
        let resent = try sealResends(keys: keys, localDevice: localDevice, numbers: &numbers, db)
        var target = try SyncStateStore.sealingThrough(db)
        if target == 0, let adopted = try SyncSealPlan.highestLastSequence(db) {
            // Plan rows without their run's end (no path writes that; heal rather than stop).
            target = adopted
            try SyncStateStore.setSealingThrough(adopted, db)
        }
        if target == 0 {
            let start = try SyncStateStore.state(db).sealedThrough
            let latest = try SyncRecordStore.latestSequence(db)
            guard latest > start, start < (goal ?? .max) else {
                try numbers.save(db)
                return (resent, true)
            }
            guard let limit, latest - start > Int64(limit) else {
                let records = try pendingRecords(after: start, through: latest, db)
                let sealed = try seal(records, planned: false, chunkBudget: .max, keys: keys,
                                      localDevice: localDevice, numbers: &numbers, db).sealed
                try SyncStateStore.setSealedThrough(latest, db)
                try numbers.save(db)
                return (resent + sealed, true)
            }
            try SyncSealPlan.make(after: start, through: latest, db)
            try SyncStateStore.setSealingThrough(latest, db)
            target = latest
        }
        let items = try SyncSealPlan.next(limit: limit ?? Int(Int32.max), db)
        // An entry the app pruned before sync consumed it is skipped, as a run sealed at
        // once would never have seen it.
        let records = items.compactMap { item in
            item.last.flatMap { last in
                VaultTable.recordTables.contains(last.table)
                    ? PendingRecord(table: last.table, id: last.recordID, firstSequence: item.firstSequence, last: last)
                    : nil
            }
        }
        let (sealed, consumed) = try seal(records, planned: true, chunkBudget: chunkBudget, keys: keys,
                                          localDevice: localDevice, numbers: &numbers, db)
        // Through the last record sealed: all the plan rows read, unless chunks ended the step early.
        let through = consumed < records.count ? records[consumed - 1].firstSequence : items.last?.firstSequence
        if let through { try SyncSealPlan.remove(through: through, db) }
        if try SyncSealPlan.isEmpty(db) {
            try SyncStateStore.setSealedThrough(target, db)
            try SyncStateStore.setSealingThrough(0, db)
        }
        try numbers.save(db)
        return (resent + sealed, false)
    }

    /// The most sealed ciphertext `seal` holds before writing it to the outbox.
    static let bufferedCiphertextBytes = 1 << 20

    /// A record whose clock `seal` has queued and not yet written.
    private struct QueuedRecord: Hashable {
        let table: VaultTable
        let id: UUID
    }

    /// A record changed since the last seal: the sequence of its first change (its
    /// envelope id derives from it) and its last change.
    struct PendingRecord {
        let table: VaultTable
        let id: UUID
        let firstSequence: Int64
        var last: ChangeLogEntry
    }

    /// The records changed in `(start, latest]`, in the order of their first change.
    private static func pendingRecords(after start: Int64, through latest: Int64,
                                       _ db: DatabaseConnection) throws -> [PendingRecord] {
        var order: [PendingRecord] = []
        var index: [String: Int] = [:]
        var after = start
        while after < latest {
            let page = try SyncRecordStore.changeEntries(after: after, limit: 10_000, db)
            guard let last = page.last else { break }
            for entry in page where entry.sequence <= latest && VaultTable.recordTables.contains(entry.table) {
                let key = entry.table.rawValue + "/" + entry.recordID.uuidString
                if let position = index[key] {
                    order[position].last = entry
                } else {
                    index[key] = order.count
                    order.append(PendingRecord(table: entry.table, id: entry.recordID, firstSequence: entry.sequence,
                                               last: entry))
                }
            }
            after = last.sequence
        }
        return order
    }

    /// Seals `order` into the outbox: one envelope per record (its current state, or a
    /// delete), its chunks first for an attachment; a record too large is listed unsent.
    /// `planned` records (a step of a planned run) end early after `chunkBudget`
    /// chunk envelopes.
    ///
    /// - Returns: How many records were sealed or listed, and how many of `order` were
    ///   gone through (all of them unless chunks ended a planned step early).
    private static func seal(_ order: [PendingRecord], planned: Bool, chunkBudget: Int64, keys: SyncKeys,
                             localDevice: UUID,
                             numbers: inout SyncDeviceSequences.Counter,
                             _ db: DatabaseConnection) throws -> (sealed: Int, consumed: Int) {
        guard !order.isEmpty else { return (0, 0) }
        let sealer = EnvelopeSealer(keys: keys)
        let listsUnsent = try SyncStateStore.hasUnsent(db)
        var unsent = 0
        var chunks: Int64 = 0
        var consumed = 0
        // Each table's synced columns, read once (`PRAGMA table_info`) instead of per record.
        var columnsByTable: [VaultTable: [String]] = [:]
        // Outbox rows and clocks are written up to 64 a statement (`MultiRowStatement`),
        // the outbox rows at most 1 MiB of ciphertext at a time. The outbox rows are
        // flushed before an attachment's chunks, so that positions keep the seal order;
        // the clocks before the base clock of a record already queued would be read (no
        // caller passes a record twice, but a stale base clock must never be possible).
        var outbox: [SyncStateStore.SyncEnvelopeRow] = []
        var outboxBytes = 0
        var clocks: [(clock: SyncStateStore.Clock, table: VaultTable, id: UUID)] = []
        var queued = Set<QueuedRecord>()
        func flush(atLeast rows: Int) throws {
            if outbox.count >= rows || outboxBytes >= Self.bufferedCiphertextBytes {
                try SyncStateStore.enqueue(outbox, db)
                outbox.removeAll(keepingCapacity: true)
                outboxBytes = 0
            }
            if clocks.count >= rows {
                try SyncStateStore.setClocks(clocks, db)
                clocks.removeAll(keepingCapacity: true)
                queued.removeAll(keepingCapacity: true)
            }
        }
        func queueClock(_ stamp: Int64, of pending: PendingRecord) {
            clocks.append((.init(timestamp: stamp, deviceID: localDevice), pending.table, pending.id))
            queued.insert(QueuedRecord(table: pending.table, id: pending.id))
        }
        for pending in order {
            if planned, chunks >= chunkBudget { break }
            consumed += 1
            let columns = try columnsByTable[pending.table] ?? SyncRecordStore.columns(of: pending.table, db)
            columnsByTable[pending.table] = columns
            let state = try SyncRecordStore.read(pending.table, id: pending.id, columns: columns, db)
            if queued.contains(QueuedRecord(table: pending.table, id: pending.id)) { try flush(atLeast: 1) }
            let base = try SyncStateStore.clock(pending.table, pending.id, db)
            let stamp = max(pending.last.timestamp.rawValue, (base?.timestamp ?? 0) + 1)
            if pending.table == .attachment, state != nil {
                try flush(atLeast: 1)
                // The content first: a receiver normally has every chunk when the
                // metadata arrives, and completes the attachment in that transaction.
                chunks += try sealChunks(
                    of: pending.id, stamp: stamp, keys: keys, sealer: sealer, localDevice: localDevice,
                    numbers: &numbers, envelopeID: { seq in
                        try AttachmentChunkRecord.envelopeID(keys: keys, device: localDevice,
                                                             sequence: pending.firstSequence, seq: seq)
                    }, db)
            }
            let record = SyncRecord(
                table: pending.table.rawValue, recordID: pending.id,
                version: state?.version ?? pending.last.version ?? 0,
                operation: state == nil ? ChangeOperation.delete.rawValue : pending.last.operation.rawValue,
                timestamp: UInt64(stamp), deviceID: localDevice,
                state: try state?.json(),
                baseTimestamp: base.map { UInt64($0.timestamp) }, baseDeviceID: base?.deviceID,
                deviceSequence: numbers.upcoming)
            let envelope: SyncEnvelope
            do {
                envelope = try sealer.seal(record, id: try envelopeID(keys: keys, device: localDevice,
                                                                      sequence: pending.firstSequence))
            } catch let error as MedVaultError where error.code == .limitExceeded {
                // Too large for one envelope: listed for the app, not sent, and the rest
                // goes on (one record must not stop sync). Its clock still moves, so a
                // remote change made from the version before it is a listed conflict,
                // never a silent fast-forward over it.
                unsent += 1
                try SyncStateStore.noteUnsent(SyncUnsentRecord(table: pending.table, recordID: pending.id,
                                                               code: error.code, reason: error.reason),
                                              sequence: pending.last.sequence, db)
                queueClock(stamp, of: pending)
                continue
            }
            numbers.advance()
            outbox.append(.init(id: envelope.id, recordKey: envelope.recordKey, ciphertext: envelope.ciphertext,
                                epoch: envelope.epoch))
            outboxBytes += envelope.ciphertext.count
            queueClock(stamp, of: pending)
            if listsUnsent { try SyncStateStore.clearUnsent(pending.table, pending.id, db) }
            try flush(atLeast: 64)
        }
        try flush(atLeast: 1)
        return (consumed - unsent, consumed)
    }

    /// Seals the chunks of the attachments this device synced before contents travelled
    /// (metadata only), once: their receivers complete them from these chunks.
    ///
    /// - Returns: How many attachments' chunks were sealed.
    static func sealResends(keys: SyncKeys, localDevice: UUID, numbers: inout SyncDeviceSequences.Counter,
                            _ db: DatabaseConnection) throws -> Int {
        let pending = try SyncAttachmentStore.pendingResends(db)
        guard !pending.isEmpty else { return 0 }
        let sealer = EnvelopeSealer(keys: keys)
        for (id, hlc) in pending {
            try sealChunks(of: id, stamp: hlc, keys: keys, sealer: sealer, localDevice: localDevice,
                           numbers: &numbers, envelopeID: { seq in
                               try AttachmentChunkRecord.derivedUUID(
                                   keys: keys, label: "medvault.envelope.\(localDevice.uuidString).resend.\(seq)", id)
                           }, db)
            try SyncAttachmentStore.markResent(id, db)
        }
        return pending.count
    }

    /// The envelope id of the change at local `sequence` of `device`: the first 16 bytes
    /// of an HMAC under the vault's record-key key, as a version-4 UUID.
    static func envelopeID(keys: SyncKeys, device: UUID, sequence: Int64) throws -> UUID {
        try AttachmentChunkRecord.derivedUUID(keys: keys, label: "medvault.envelope." + device.uuidString,
                                              sequenceSeed(sequence))
    }

    /// A local sequence as the 16 bytes an HMAC-derived id is computed from.
    static func sequenceSeed(_ sequence: Int64) -> UUID {
        var seed = [UInt8](repeating: 0, count: 16)
        withUnsafeBytes(of: sequence.bigEndian) { seed.replaceSubrange(8..<16, with: $0) }
        return seed.withUnsafeBytes { UUID(uuid: $0.load(as: uuid_t.self)) }
    }

    /// Seals the chunks of the complete attachment `id` into the outbox, in order, one
    /// chunk in memory at a time, each under the envelope id `envelopeID(index)`.
    ///
    /// - Returns: How many chunk envelopes were added.
    @discardableResult
    static func sealChunks(of id: UUID, stamp: Int64, keys: SyncKeys, sealer: EnvelopeSealer, localDevice: UUID,
                           numbers: inout SyncDeviceSequences.Counter,
                           envelopeID: (Int64) throws -> UUID, _ db: DatabaseConnection) throws -> Int64 {
        try SyncAttachmentStore.forEachChunk(of: id, db) { seq, data in
            let chunk = AttachmentChunkRecord(attachmentID: id, seq: seq, data: data)
            let record = SyncRecord(
                table: AttachmentChunkRecord.table,
                recordID: try AttachmentChunkRecord.recordID(keys: keys, attachmentID: id, seq: seq),
                version: 1, operation: ChangeOperation.insert.rawValue, timestamp: UInt64(max(stamp, 0)),
                deviceID: localDevice, state: chunk.payload, deviceSequence: numbers.upcoming)
            let envelope = try sealer.seal(record, id: try envelopeID(seq))
            numbers.advance()
            try SyncStateStore.enqueue([.init(id: envelope.id, recordKey: envelope.recordKey,
                                              ciphertext: envelope.ciphertext, epoch: envelope.epoch)], db)
        }
    }
}
