import Foundation
import MedVaultCore
import MedVaultKeys

/// A vault's tamper-evident audit trail: `vault.audit` (docs/audit.md).
///
/// Every change a repository commits, and every export, backup, restore, import,
/// unlock (and refused unlock), key operation and sync, appends an entry in the same
/// transaction: time, device, actor, action, table and id — never a field value.
/// Entries are hash-chained under a key derived from the vault key, and the chain's
/// head is checkpointed outside the database, so ``verify()`` detects an entry edited,
/// removed, reordered, or cut off the end.
///
/// For example:
///
/// ```swift
/// let history = try await vault.audit.entries(patient: ana.id)
/// switch try await vault.audit.verify() {
/// case .intact(let count): print("\(count) entries verify")
/// case .tampered(let sequence, let problem): print("entry \(sequence): \(problem)")
/// }
/// ```
public final class VaultAuditTrail: Sendable {
    /// How often, at most, a commit's new head is written to the checkpoint file (in
    /// seconds): also at lock, after key operations, a backup, a restore and a verify.
    public static let checkpointInterval: Duration = .seconds(30)

    private let pool: VaultDatabase
    private let layout: VaultLayout
    private let checkpointTask = CheckpointTaskBox()

    init(pool: VaultDatabase, layout: VaultLayout) {
        self.pool = pool
        self.layout = layout
    }

    private var key: AuditKey {
        get throws {
            guard let key = pool.auditKeys.key, !key.isWiped else { throw Vault.lockedError }
            return key
        }
    }

    // MARK: - Queries

    /// Entries of the trail, oldest first.
    ///
    /// - Parameters:
    ///   - patient: Only entries about this patient's records, resolved now by joins: the
    ///     patient, its sessions (and their signatures), diagnoses, attachments, addenda,
    ///     medications, schedules, dose logs, revisions and refills. Exports name the patient.
    ///   - from: Only entries written at or after this instant.
    ///   - to: Only entries written before this instant.
    ///   - actions: Only these actions (`nil`: all).
    ///   - limit: At most this many entries (1…100,000).
    ///   - after: Only entries after this sequence (the last one of the previous page).
    /// - Returns: The entries, by sequence.
    /// - Throws: `invalidArgument` for a limit out of range; `locked`.
    public func entries(patient: UUID? = nil, from: Date? = nil, to: Date? = nil, actions: Set<AuditAction>? = nil,
                        limit: Int = 1_000, after: Int64? = nil) async throws -> [AuditEntry] {
        guard (1...AuditTrailReader.maximumLimit).contains(limit) else {
            throw MedVaultError(.invalidArgument, field: "limit", reason: "the limit must be from 1 to 100000")
        }
        _ = try key
        return try await pool.read { db in
            try AuditTrailReader.entries(patient: patient, from: from, to: to, actions: actions, limit: limit,
                                         after: after, db)
        }
    }

    // MARK: - Verifying

    /// Recomputes every entry's MAC along the chain and compares the head with the
    /// checkpoint kept outside the database.
    ///
    /// An intact trail also moves the checkpoint to the current head.
    ///
    /// - Returns: ``AuditVerification/intact(entryCount:)``, or the first bad position
    ///   and why.
    /// - Throws: `locked`; storage errors.
    public func verify() async throws -> AuditVerification {
        let key = try key
        let reading = try await readCheckpoint(key)
        let record = try await readRecord(key)
        let verdict = try await pool.read(duration: .long) { db in
            try AuditVerifier.verify(db, key: key, checkpoint: reading, record: record).0
        }
        if verdict.isIntact { try? await checkpoint() }
        return verdict
    }

    #if BenchmarkSwitches
    /// Benchmarks only: appends `count` synthetic `update` entries of random patient ids
    /// through the writer's batch path, in transactions of 50,000 (a long trail to verify).
    /// Signed with the real audit key: trait `BenchmarkSwitches` only.
    @_spi(Benchmarks) public func _appendSyntheticEntries(_ count: Int) async throws {
        _ = try key
        var remaining = count
        while remaining > 0 {
            let batch = min(remaining, 50_000)
            try await pool.write(duration: .long) { db in try db.changeLog.appendSyntheticAuditEntries(batch) }
            remaining -= batch
        }
    }
    #endif

    // MARK: - Recording (the Vault facade)

    /// Appends an event entry in a transaction of its own.
    func record(_ action: AuditAction, table: VaultTable? = nil, id: UUID? = nil, count: Int = 1) async throws {
        _ = try key
        try await pool.write { db in
            for _ in 0..<count { try db.changeLog.appendAuditEvent(action, table: table, id: id) }
        }
    }

    /// Writes the committed head to the checkpoint file when it is ahead of it, then
    /// moves the keyring's record of the trail to it.
    ///
    /// The file is never written over a checkpoint that does not authenticate, a
    /// restore's checkpoint the keyring does not expect, one whose entry the trail no
    /// longer holds (a tail cut and written on again), nor where there is none while the
    /// trail has entries (a deleted checkpoint stays reported by ``verify()``), unless
    /// `creating` (a new trail: a new vault, a first unlock after the upgrade, a restore).
    /// The keyring's record moves only forward along the same chain, and only when the
    /// keyring lock is free at once (a key operation of another process is never waited
    /// for; the next checkpoint catches up).
    func checkpoint(creating: Bool = false) async throws {
        let key = try key
        let reading = try await readCheckpoint(key)
        let record = try await readRecord(key)
        let anchor: AuditAnchor? = if case .valid(let valid) = record { valid } else { nil }
        let state = try await pool.read { db in try CheckpointState(db, reading: reading, anchor: anchor) }
        let current = try state.head ?? AuditCheckpoint(sequence: 0, mac: AuditChain.genesis(key))
        let writesFile: Bool
        switch reading {
        case .invalid: writesFile = false
        case .missing: writesFile = state.head == nil || creating
        case .valid(let saved) where saved.isRestored: writesFile = AuditVerifier.expectsRestore(saved, record)
        case .valid(let saved): writesFile = current.sequence > saved.sequence && state.holdsSaved
        }
        // The record moves only with a sound checkpoint file: one written now, or one
        // that already holds this head and still matches the trail.
        let fileHoldsHead: Bool
        if case .valid(let saved) = reading, !saved.isRestored {
            fileHoldsHead = saved.sequence >= current.sequence && state.holdsSaved
        } else {
            fileHoldsHead = false
        }
        guard let trail = anchor?.trail, anchor?.pendingRestore == nil, current.sequence > trail.sequence,
              state.holdsRecorded, writesFile || fileHoldsHead else {
            if writesFile { try await writeCheckpoint(current, key: key) }
            return
        }
        if writesFile {
            try await writeCheckpoint(current, key: key)
        } else {
            try await pool.syncDeferredCommits(force: true)
        }
        let moved = AuditAnchor(trail: AuditAnchor.Trail(first: trail.first, sequence: current.sequence, head: current.mac))
        let layout = layout
        try await BlockingWork.run {
            let lock = try VaultFileLock(layout.keyringLock)
            defer { lock.release() }
            guard try lock.tryLock(.exclusive) else { return }
            let keyring = try KeyringFile.read(at: layout.keyring)
            // Another process may have moved it meanwhile: never backwards, never over another record.
            guard try AuditAnchor.read(keyring, key: key) == record else { return }
            try KeyringFile.write(try keyring.replacingAuditRecord(moved.encoded(key: key), vaultKey: nil),
                                  to: layout.keyring)
        }
    }

    // The checkpoint's file I/O (an fsync'd atomic write) runs on a thread of its own,
    // never on one of Swift's cooperative threads.

    private func readCheckpoint(_ key: AuditKey) async throws -> AuditCheckpoint.Reading {
        let url = layout.auditCheckpoint
        return try await BlockingWork.run { try AuditCheckpoint.read(at: url, key: key) }
    }

    /// The keyring's record of the trail, read from the file now (another process of this
    /// vault may have moved it).
    private func readRecord(_ key: AuditKey) async throws -> AuditAnchor.Reading {
        let url = layout.keyring
        return try await BlockingWork.run { try AuditAnchor.read(try KeyringFile.read(at: url), key: key) }
    }

    private func writeCheckpoint(_ head: AuditCheckpoint, key: AuditKey) async throws {
        // Never a head the disk may not have: an unlock entry is committed without a
        // sync of its own (see unlocked()), by this process or another one sharing the
        // vault. The head was read before this sync, so its frames are in the log now
        // synced (or, checkpointed since, in the database file, synced by the
        // checkpoint). One fsync of the log and the folder per checkpoint written.
        try await pool.syncDeferredCommits(force: true)
        let url = layout.auditCheckpoint
        try await BlockingWork.run { try AuditCheckpoint.write(head, to: url, key: key) }
    }

    /// At unlock: records a restore the checkpoint announces (when the keyring expects
    /// it), the refused unlocks counted since, and this unlock.
    ///
    /// The checkpoint file is written now only when it must change at once: a new trail
    /// (a new vault, or the first unlock after the upgrade) and a restored one. Otherwise
    /// the unlock's entries are checkpointed with the next periodic checkpoint or at
    /// `lock()`, like any other write: an fsync'd file write at every open cost more than
    /// the rest of opening (docs/audit.md, "Checkpoint").
    ///
    /// - Parameter keyring: The keyring as read under the keyring lock at this unlock.
    /// - Returns: The record the keyring must now hold (the caller writes it with the
    ///   vault key): for a keyring without one (a new vault, the first unlock by this
    ///   version, a joined device) and after a restore; `nil` otherwise.
    func unlocked(keyring: Keyring) async throws -> AuditAnchor? {
        let key = try key
        let checkpointURL = layout.auditCheckpoint
        let failuresURL = layout.unlockFailures
        // Two reads of under 100 bytes, on the calling thread as the keyring's read is: a
        // thread of their own cost more than the reads (docs/benchmarks-method.md, W2).
        let reading = try AuditCheckpoint.read(at: checkpointURL, key: key)
        let failures = UnlockFailureFile.read(at: failuresURL)
        let record = try AuditAnchor.read(keyring, key: key)
        let anchor: AuditAnchor? = if case .valid(let valid) = record { valid } else { nil }
        // A restore's checkpoint is honoured once, and only when the keyring awaits that
        // very restore; one copied from another restore records nothing and stays reported.
        let restoring: Bool
        if case .valid(let saved) = reading, saved.isRestored {
            restoring = AuditVerifier.expectsRestore(saved, record)
        } else {
            restoring = false
        }
        // No record yet (a new vault, the first unlock by this version), a restore, or a
        // restore's record whose first unlock was interrupted after its checkpoint. Never
        // over a record whose trail is no longer there (checked below): it stays reported.
        let anchoring = restoring || record == .none || anchor?.pendingRestore != nil
        // The unlock entry alone is committed to the WAL without a sync of its own (one
        // fsync less per open): it is committed before open returns and survives the
        // process being killed; the next durable commit, checkpoint or lock makes it
        // durable (docs/audit.md, "The unlock entry"). Entries whose loss would be
        // noticed, a restore, counted refusals (their file is cleared below) or a head
        // checkpointed or recorded in the keyring at once (a new trail), commit durably.
        let onlyUnlock: Bool
        switch reading {
        case .valid: onlyUnlock = !restoring && !anchoring && failures.count == 0
        case .invalid: onlyUnlock = !anchoring && failures.count == 0
        case .missing: onlyUnlock = false
        }
        typealias Found = (hadEntries: Bool, first: [UInt8]?, head: (sequence: Int64, mac: [UInt8])?)
        let (hadEntries, first, head) = try await pool.write(durability: onlyUnlock ? .walOnly : .full) { db -> Found in
            try AuditTrailReader.requireTable(db)
            let hadEntries = try AuditTrailReader.head(db) != nil
            if restoring {
                try db.changeLog.appendAuditEvent(.restore, table: nil, id: nil)
                // With the restore entry: a restored vault that was syncing joins again
                // as a new device (a repeat after a crash before the checkpoint finds no
                // token and changes nothing).
                try SyncRestoreReset.afterRestore(db)
            }
            // At most 1,000 entries for refused attempts: the count is not evidence (see UnlockFailureFile).
            for _ in 0..<min(1_000, max(0, failures.count)) {
                try db.changeLog.appendAuditEvent(.unlockFailed, table: nil, id: nil)
            }
            try db.changeLog.appendAuditEvent(.unlock, table: nil, id: nil)
            let first = try db.fetchOne("SELECT mac FROM medvault_audit WHERE seq = 1") { [UInt8]($0.blob(at: 0)) }
            if let trail = anchor?.trail {
                let holds = try AuditVerifier.holds(db, sequence: 1, mac: trail.first)
                    && AuditVerifier.holds(db, sequence: trail.sequence, mac: trail.head)
                guard holds else { return (hadEntries, nil, nil) }
            }
            return (hadEntries, first, try AuditTrailReader.head(db))
        }
        if failures.count > 0 { _ = try? await BlockingWork.run { UnlockFailureFile.clear(at: failuresURL) } }
        let creating: Bool
        switch reading {
        case .missing: creating = !hadEntries
        case .valid: creating = restoring
        case .invalid: creating = false
        }
        if creating { try await checkpoint(creating: true) }
        startPeriodicCheckpoints()
        guard anchoring, let first, let head else { return nil }
        return AuditAnchor(trail: AuditAnchor.Trail(first: first, sequence: head.sequence, head: head.mac))
    }

    /// Checkpoints every ``checkpointInterval`` while the vault is open.
    private func startPeriodicCheckpoints() {
        let task = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: Self.checkpointInterval)
                guard let self, !Task.isCancelled else { return }
                try? await self.checkpoint()
            }
        }
        checkpointTask.replace(with: task)
    }

    /// At lock: stops the periodic checkpoints and writes a last one (the pool still open).
    func closing() async {
        checkpointTask.replace(with: nil)
        try? await checkpoint()
    }
}

/// What a checkpoint needs to know of the trail, read in one transaction: its head,
/// and whether it still holds the entries the checkpoint file and the keyring name.
private struct CheckpointState {
    var head: AuditCheckpoint?
    var holdsSaved = true
    var holdsRecorded = true

    init(_ db: DatabaseConnection, reading: AuditCheckpoint.Reading, anchor: AuditAnchor?) throws {
        head = try AuditTrailReader.head(db).map { AuditCheckpoint(sequence: $0.sequence, mac: $0.mac) }
        if case .valid(let saved) = reading, !saved.isRestored, saved.sequence > 0 {
            holdsSaved = try AuditVerifier.holds(db, sequence: saved.sequence, mac: saved.mac)
        }
        if let trail = anchor?.trail, trail.sequence > 0 {
            holdsRecorded = try AuditVerifier.holds(db, sequence: trail.sequence, mac: trail.head)
                && AuditVerifier.holds(db, sequence: 1, mac: trail.first)
        }
    }
}

/// The periodic checkpoint task of a trail.
private final class CheckpointTaskBox: @unchecked Sendable {
    // Safety of @unchecked Sendable: `task` is read and replaced only under `lock`.
    private let lock = NSLock()
    private var task: Task<Void, Never>?

    func replace(with new: Task<Void, Never>?) {
        let old = lock.withLock {
            let old = task
            task = new
            return old
        }
        old?.cancel()
    }

    deinit { task?.cancel() }
}
