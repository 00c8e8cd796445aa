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
enum PendingChangeSealer {
    /// Seals everything after `sealed_through`.
    ///
    /// - Returns: How many envelopes were added to the outbox.
    @discardableResult
    static func sealPending(keys: SyncKeys, localDevice: UUID, _ db: DatabaseConnection) throws -> Int {
        // Adjustments the upgrade seeded are logged first, so they are sealed with the rest.
        try MedicationStockStore.logSeeds(db)
        let start = try SyncStateStore.state(db).sealedThrough
        let latest = try SyncRecordStore.latestSequence(db)
        guard latest > start else { return 0 }
        var entries: [ChangeLogEntry] = []
        var after = start
        while after < latest {
            let page = try SyncRecordStore.changeEntries(after: after, limit: 10_000, db)
            guard let last = page.last else { break }
            entries += page
            after = last.sequence
        }
        struct Pending {
            let table: VaultTable
            let id: UUID
            let firstSequence: Int64
            var last: ChangeLogEntry
        }
        var order: [Pending] = []
        var index: [String: Int] = [:]
        for entry in entries where VaultTable.recordTables.contains(entry.table) {
            let key = entry.table.rawValue + "/" + entry.recordID.uuidString
            if let position = index[key] {
                order[position].last = entry
            } else {
                index[key] = order.count
                order.append(Pending(table: entry.table, id: entry.recordID, firstSequence: entry.sequence, last: entry))
            }
        }
        let sealer = EnvelopeSealer(keys: keys)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        for pending in order {
            let state = try SyncRecordStore.read(pending.table, id: pending.id, db)
            let base = try SyncStateStore.clock(pending.table, pending.id, db)
            let stamp = max(pending.last.timestamp.rawValue, (base?.timestamp ?? 0) + 1)
            let record = SyncRecord(
                table: pending.table.rawValue, recordID: pending.id,
                version: state?.version ?? pending.last.version ?? 0,
                operation: state == nil ? ChangeOperation.delete.rawValue : pending.last.operation.rawValue,
                timestamp: UInt64(stamp), deviceID: localDevice,
                state: try state.map { try encoder.encode($0) },
                baseTimestamp: base.map { UInt64($0.timestamp) }, baseDeviceID: base?.deviceID)
            let envelope = try sealer.seal(record, id: try envelopeID(keys: keys, device: localDevice,
                                                                       sequence: pending.firstSequence))
            try SyncStateStore.enqueue(.init(id: envelope.id, recordKey: envelope.recordKey,
                                             ciphertext: envelope.ciphertext), db)
            try SyncStateStore.setClock(.init(timestamp: stamp, deviceID: localDevice), pending.table, pending.id, db)
        }
        try SyncStateStore.setSealedThrough(latest, db)
        return order.count
    }

    /// The envelope id of the change at local `sequence` of `device`: the first 16 bytes
    /// of an HMAC under the vault's record-key key, as a version-4 UUID.
    static func envelopeID(keys: SyncKeys, device: UUID, sequence: Int64) throws -> UUID {
        var seed = [UInt8](repeating: 0, count: 16)
        withUnsafeBytes(of: sequence.bigEndian) { seed.replaceSubrange(8..<16, with: $0) }
        let seedID = seed.withUnsafeBytes { UUID(uuid: $0.load(as: uuid_t.self)) }
        var bytes = Array(try keys.recordKey(table: "medvault.envelope." + device.uuidString, recordID: seedID).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return bytes.withUnsafeBytes { UUID(uuid: $0.load(as: uuid_t.self)) }
    }
}
