import CSQLCipher
import Foundation
import MedVaultCore
import MedVaultKeys

/// An encrypted SQLCipher database: one serialized writer and a small pool of
/// readers.
///
/// A short transaction that finds its connection idle runs at once on the calling
/// thread; a long one (``ExpectedDuration``), or one that finds its connection busy,
/// waits in line on the connection's own thread.
///
/// Reads run in a read transaction, so every statement of one ``read(duration:_:)`` closure
/// sees the same snapshot, and they proceed while a write is in progress (WAL).
/// A read connection is opened only when a read finds the writer busy: until then,
/// reads run on the idle writer, read-only (any statement that would write is
/// refused, as on a read connection), so an app that never reads while it writes
/// keeps a single connection. Once a read connection exists, reads never use the
/// writer again.
/// Writes are serialized; each ``write(duration:_:)`` closure is one durable transaction:
/// committed when the closure returns, rolled back when it throws or the task is
/// cancelled.
///
/// Most apps never touch a pool directly: the `Vault` opens one with the data key
/// from the keyring. Use it for your own tables (create them with ``AppMigrations``) or for tools.
///
/// ```swift
/// let pool = try await VaultDatabase.open(at: url, key: key, mode: .createIfMissing,
///                                        migrator: migrator)
/// try await pool.write { db in
///     try db.execute("INSERT INTO note(id, body) VALUES (?, ?)", [id.vaultValue, "…".vaultValue])
/// }
/// let count = try await pool.read { db in
///     try db.fetchOne("SELECT count(*) FROM note") { row in row.int64(at: 0) } ?? 0
/// }
/// await pool.close()
/// ```
public final class VaultDatabase: Sendable {
    /// Whether opening may create the database file.
    public enum OpenMode: Sendable {
        /// Open the file, creating an empty encrypted database if there is none.
        case createIfMissing
        /// Open the file; fail with `MedVaultError.Code.fileNotFound` if there is none.
        case openExisting
    }

    /// The database file.
    public let url: URL
    /// The settings every connection was opened with.
    public let configuration: DatabaseConfiguration
    let keyBox: DatabaseKeyBox
    private let gate = MaintenanceGate()
    private let companions = PoolCompanions()
    private let writer: ConnectionActor
    private let writeQueue = GroupCommitQueue()
    private let checkpoints = CheckpointScheduler()
    /// Internal for tests, which hold it busy to observe what a commit does alone.
    let checkpointer: ConnectionActor
    private let checkpointCount = AtomicCounter()
    private let readers: ReaderSlots
    /// Told, after each commit of the writer, the tables it logged changes to
    /// (observation: `ChangeFeed`).
    let commits = CommitSignal()
    /// The audit key the writer MACs entries with and the signing root, installed by the owning `Vault`.
    let auditKeys = AuditKeyBox()

    static let closedError = MedVaultError(.locked, reason: "the database is closed")
    static let cancelledError = MedVaultError(.cancelled, reason: "the task was cancelled; the transaction was rolled back")

    private init(url: URL, key: SecureBytes, configuration: DatabaseConfiguration) throws {
        self.url = url
        self.configuration = configuration
        let keyBox = try DatabaseKeyBox(copying: key)
        self.keyBox = keyBox
        let path = url.path
        self.writer = ConnectionActor(path: path, keyBox: keyBox, role: .writer,
                                      configuration: configuration, name: "medvault.writer",
                                      checkpoints: checkpoints, commits: commits, auditKeys: auditKeys)
        self.checkpointer = ConnectionActor(path: path, keyBox: keyBox, role: .checkpointer,
                                            configuration: configuration, name: "medvault.ckpt")
        let auditKeys = self.auditKeys
        self.readers = ReaderSlots(maximum: configuration.readerCount) { index in
            // Readers hold the keys too: a signature read is pinned to this vault's key.
            ConnectionActor(path: path, keyBox: keyBox, role: .reader,
                            configuration: configuration, name: "medvault.read\(index)", auditKeys: auditKeys)
        }
        let checkpointer = self.checkpointer
        checkpoints.start(launch: { work in checkpointer.launch(work) }) { [weak self] in
            await self?.checkpointInBackground()
        }
    }

    /// Opens (or creates) an encrypted database.
    ///
    /// - Parameters:
    ///   - url: The database file. Its folder must exist.
    ///   - key: The 32-byte raw data key. The pool keeps its own copy, wiped by ``close()``.
    ///   - mode: Whether a missing file is created.
    ///   - migrator: Brings the schema up to date before the pool is returned.
    ///   - configuration: Connection settings; the defaults suit most apps.
    ///   - keyIsAuthenticated: Pass `true` when the key was authenticated elsewhere
    ///     (the keyring's AEAD proved it is this vault's key); a file that then fails
    ///     to decrypt is reported as damaged (`notADatabase`) rather than `wrongKey`.
    /// - Throws: `MedVaultError` with code `fileNotFound`, `permissionDenied`,
    ///   `notADatabase` (plain SQLite, empty or foreign file, or a length that is not
    ///   whole pages), `wrongKey`, `corrupted` (damaged, or truncated at a page boundary), `schemaTooNew`, `encryptionUnavailable` or `storage`. On every
    ///   failure the file is left exactly as it was.
    public static func open(
        at url: URL,
        key: SecureBytes,
        mode: OpenMode,
        migrator: SchemaMigrator = SchemaMigrator([]),
        configuration: DatabaseConfiguration = DatabaseConfiguration(),
        keyIsAuthenticated: Bool = false
    ) async throws -> VaultDatabase {
        let configuration = try configuration.validated()
        guard key.count == 32 else {
            throw MedVaultError(.invalidArgument, reason: "a database key must be 32 bytes")
        }
        let inspection = try DatabaseFile.inspect(url, mode: mode, pageSize: configuration.cipherPageSize)
        let pool = try VaultDatabase(url: url, key: key, configuration: configuration)
        do {
            // Opening runs on the writer's own thread (a short job runs on its caller's
            // thread only on an open connection: opening may wait for another process's
            // lock, or recover the WAL after a crash). Migrating may rewrite whole
            // tables: that runs on the writer's thread too.
            let isUpToDate = try await pool.writer.withConnection(.short) { db in try migrator.isUpToDate(db) }
            if !isUpToDate {
                try await pool.writer.withConnection(.long) { db in try migrator.migrate(db) }
            }
        } catch let error as MedVaultError {
            await pool.close()
            if inspection.isNew { DatabaseFile.removeNewlyCreated(url) }
            if error.code == .wrongKey && keyIsAuthenticated {
                throw MedVaultError(.notADatabase,
                                    reason: "the database file does not decrypt with the vault's authenticated key and recorded cipher settings: it is damaged, was replaced, or was written with other cipher settings",
                                    sqliteCode: error.sqliteCode)
            }
            if error.code == .corrupted {
                // SQLite checks page 1's declared page count against the file's length.
                throw MedVaultError(.corrupted, reason: "the database file is damaged or truncated",
                                    sqliteCode: error.sqliteCode)
            }
            throw error
        }
        if inspection.isNew {
            do {
                try DatabaseFile.syncFolder(of: url)
            } catch {
                await pool.close()
                DatabaseFile.removeNewlyCreated(url)
                throw error
            }
        }
        return pool
    }

    // MARK: - Transactions

    /// Runs `body` in a read transaction.
    ///
    /// - Parameters:
    ///   - duration: Where the transaction runs: ``ExpectedDuration/short`` (the
    ///     default) on the calling thread when its connection is open, idle and nobody
    ///     waits for it, ``ExpectedDuration/long`` always on the connection's own thread.
    ///   - body: Reads through the connection; returns a `Sendable` value. A short
    ///     read that meets another connection's lock on the calling thread is rolled
    ///     back and run again on the connection's thread, so `body` may run twice: keep
    ///     it free of effects outside the database.
    /// - Returns: What `body` returned.
    /// - Throws: What `body` threw, `cancelled`, or a storage error.
    public func read<Value: Sendable>(
        duration: ExpectedDuration = .short, _ body: @escaping @Sendable (DatabaseConnection) throws -> Value
    ) async throws -> Value {
        try await gate.enter()
        defer { gate.leave() }
        switch readers.acquire() {
        case .writer:
            defer { readers.releaseWriter() }
            return try await run(on: writer, kind: .readOnWriter, duration: duration, body)
        case .reader(let index, let reader):
            defer { readers.release(index) }
            return try await run(on: reader, kind: .read, duration: duration, body)
        }
    }

    /// Runs `body` in a write transaction on the single writer connection.
    ///
    /// The transaction starts with `BEGIN IMMEDIATE` and commits durably
    /// (`synchronous = FULL`) when `body` returns. It is rolled back, and nothing it
    /// wrote remains, when `body` throws or the task is cancelled.
    ///
    /// Group commit: writes that find the writer busy share a transaction. The first of
    /// them to reach the writer runs every write waiting at that moment (up to 64), each
    /// `body` in its own savepoint, then commits once: one `fsync` instead of one per
    /// caller. A `body` that throws, or whose task is cancelled, is rolled back to its
    /// savepoint and fails its own caller only. Every caller returns after the commit
    /// that made its write durable; if that commit fails, every write of the group fails.
    /// A `body` sees the writes of the bodies grouped before it, as it would have had
    /// they committed first.
    ///
    /// - Parameters:
    ///   - duration: Where the transaction runs: ``ExpectedDuration/short`` (the
    ///     default) on the calling thread when the writer is idle and nobody waits for
    ///     it, ``ExpectedDuration/long`` always on the writer's own thread.
    ///   - body: Reads and writes through the connection. It must not begin, commit
    ///     or roll back transactions itself (savepoints of its own are fine).
    /// - Returns: What `body` returned.
    public func write<Value: Sendable>(
        duration: ExpectedDuration = .short, _ body: @escaping @Sendable (DatabaseConnection) throws -> Value
    ) async throws -> Value {
        try await write(duration: duration, durability: .full, body)
    }

    /// ``write(duration:_:)`` with the commit's ``CommitDurability``: `.walOnly` only for
    /// the audit trail's unlock entry (see `CommitDurability`).
    func write<Value: Sendable>(
        duration: ExpectedDuration = .short, durability: CommitDurability,
        _ body: @escaping @Sendable (DatabaseConnection) throws -> Value
    ) async throws -> Value {
        #if BenchmarkSwitches
        let probe = configuration._statementProbe
        let handOff = probe?.handOffStarted()
        #endif
        try await gate.enter()
        defer { gate.leave() }
        readers.acquireWriter()
        defer { readers.releaseWriter() }
        let interrupter = writer.interrupter
        let value = WriteValue<Value>()
        let write = GroupedWrite(ticket: interrupter.makeTicket(), durability: durability) { db in
            #if BenchmarkSwitches
            if let handOff { probe?.recordHandOff(since: handOff) }
            #endif
            value.store(try body(db))
        }
        await withTaskCancellationHandler {
            await writer.performGrouped(write, queue: writeQueue, duration: duration)
        } onCancel: {
            write.cancel()
            interrupter.interrupt(write.ticket)
        }
        guard let result = write.result else {
            throw MedVaultError(.storage, reason: "internal error: a write was never run")
        }
        try result.get()
        return try value.take()
    }

    /// Runs `body` on the writer connection outside any transaction, for statements
    /// that refuse to run inside one (`VACUUM`, `PRAGMA rekey`, checkpoints). It always
    /// runs on the writer's own thread.
    public func writeWithoutTransaction<Value: Sendable>(
        _ body: @escaping @Sendable (DatabaseConnection) throws -> Value
    ) async throws -> Value {
        try await gate.enter()
        defer { gate.leave() }
        readers.acquireWriter()
        defer { readers.releaseWriter() }
        return try await writer.withConnection(.long, body)
    }

    private func run<Value: Sendable>(
        on actor: ConnectionActor, kind: ConnectionActor.TransactionKind, duration: ExpectedDuration,
        _ body: @escaping @Sendable (DatabaseConnection) throws -> Value
    ) async throws -> Value {
        let ticket = actor.interrupter.makeTicket()
        return try await withTaskCancellationHandler {
            try await actor.transaction(ticket: ticket, kind: kind, duration: duration, body)
        } onCancel: {
            actor.interrupter.interrupt(ticket)
        }
    }

    /// Makes every ``CommitDurability/walOnly`` commit of this pool durable (one `fsync`
    /// of the log, none when there is none to make durable).
    ///
    /// - Throws: `locked` once closed; `storage` or `diskFull` when the log cannot be synced.
    /// With `force`, the log is synced even when this pool made no such commit (another
    /// process's may be in it).
    func syncDeferredCommits(force: Bool = false) async throws {
        try await gate.enter()
        defer { gate.leave() }
        readers.acquireWriter()
        defer { readers.releaseWriter() }
        try await writer.syncDeferredCommits(force: force)
    }

    /// Copies the WAL into the database file on the checkpoint connection, off every
    /// caller's path (see ``CheckpointScheduler``), and returns how many of its frames
    /// are now in the database file. Skipped (`nil`) once the pool is closed.
    private func checkpointInBackground() async -> Int32? {
        do { try await gate.enter() } catch { return nil }
        defer { gate.leave() }
        let backfilled = try? await checkpointer.withConnection(.long) { db in
            // Columns: busy, frames in the log, frames copied (-1 outside WAL mode).
            try db.fetchOne("PRAGMA wal_checkpoint(PASSIVE)") { $0.int64(at: 2) }
        }
        checkpointCount.increment()
        guard let backfilled, backfilled >= 0 else { return nil }
        return Int32(clamping: backfilled)
    }

    /// Copies every page of the write-ahead log into the database file and empties the
    /// log, waiting for any checkpoint of this pool already running (they share the
    /// checkpoint connection) and for a write in progress to commit.
    ///
    /// MedVault checkpoints in the background as the log grows; call this when the
    /// database file alone must hold everything, e.g. before measuring its size or
    /// copying it with other tools while the vault is open.
    ///
    /// - Throws: `storage` when a read transaction (here or in another process) still
    ///   uses the log, or another process is checkpointing; `locked` once closed.
    public func checkpoint() async throws {
        try await gate.enter()
        defer { gate.leave() }
        let busy = try await checkpointer.withConnection(.long) { db in
            try db.fetchOne("PRAGMA wal_checkpoint(TRUNCATE)") { $0.int64(at: 0) }
        }
        guard busy == 0 else {
            throw MedVaultError(.storage, reason: "the checkpoint could not finish: a reader or another process still uses the write-ahead log")
        }
    }

    /// How many background checkpoints ran (for tests).
    var backgroundCheckpointCount: Int { checkpointCount.value }

    /// How many times the writer's commits found the WAL restarted from its start (for tests).
    var walRestartCount: Int { checkpoints.restartCount }

    /// Runs `body` as an admitted call, like a read: a key change or ``close()`` waits
    /// until it returns. For work on a connection of its own (a backup's snapshot), which
    /// must not see the file replaced under it.
    func admitted<Value: Sendable>(_ body: () async throws -> Value) async throws -> Value {
        try await gate.enter()
        defer { gate.leave() }
        return try await body()
    }

    /// How many callers wait in line for the writer (for tests).
    var writerQueueLength: Int { writer.queuedCount }

    /// How many write transactions the writer committed (for tests).
    var writerCommitCount: Int { writeQueue.commitCount }

    /// Whether a ``CommitDurability/walOnly`` commit still waits for its sync (for tests).
    var hasDeferredCommits: Bool {
        get async throws { try await writer.perform(.long) { connection in connection.hasDeferredSync } }
    }

    /// How many read connections the pool has opened (for tests).
    var openedReaderCount: Int { readers.all().count }

    // MARK: - Closing

    /// Checkpoints the WAL into the database file, closes every connection and wipes
    /// the pool's copy of the key. Later calls fail with `MedVaultError.Code.locked`.
    /// Keeps `object` alive as long as the pool's connections may be: until ``close()``
    /// returns, or the pool is freed. The vault keeps its presence lock here, so another
    /// process can never rotate the key while a repository value still holds this pool.
    func retainUntilClosed(_ object: any Sendable & AnyObject) {
        companions.add(object)
    }

    public func close() async {
        // Reads and writes already admitted finish first: none may open a connection
        // (with the key) after the connections below were closed.
        checkpoints.stop()
        await gate.closeAndDrain()
        for reader in readers.all() {
            await reader.close()
        }
        await checkpointer.close()
        _ = try? await writer.withConnection(.long) { db in
            try db.executeScript("PRAGMA wal_checkpoint(TRUNCATE);")
        }
        await writer.close()
        keyBox.wipe()
        companions.removeAll()
    }

    // MARK: - Key change

    /// Re-encrypts the database under `newKey` while the pool stays usable: new reads
    /// and writes wait, those in flight finish, every connection closes, the database
    /// is exported to a copy under the new key, the copy is verified with a fresh
    /// connection and `PRAGMA integrity_check`, and renamed over the original. Then
    /// connections reopen with the new key.
    ///
    /// At every instant the file is entirely under the old key or entirely under the
    /// new one. The caller records the new key durably (the keyring's pending key)
    /// *before* calling this, so that a crash at any point leaves a key that opens it.
    ///
    /// - Parameters:
    ///   - newKey: The new 32-byte raw key.
    ///   - progress: Called with the fraction copied, 0…1, on the export's thread;
    ///     return `false` to stop (the database keeps its old key; `cancelled` is thrown).
    ///   - verifying: Called once the copy is written, before it is checked.
    /// - Throws: `cancelled`, `corrupted` (the copy failed verification; the original is
    ///   untouched), storage errors — all before the swap, the old key still in force —
    ///   or ``KeyChangeNotDurable`` after it: the file is under the new key, but the
    ///   swap may not survive a power cut, so the caller must keep both keys.
    ///
    /// Package access: a key change is safe only inside the vault's rotation protocol
    /// (pending key recorded first, the vault held alone).
    package func changeKey(
        to newKey: SecureBytes, progress: @escaping @Sendable (Double) -> Bool = { _ in true },
        verifying: @escaping @Sendable () -> Void = {}
    ) async throws {
        guard newKey.count == 32 else {
            throw MedVaultError(.invalidArgument, reason: "a database key must be 32 bytes")
        }
        await gate.pauseAndDrain()
        defer { gate.resume() }
        for reader in readers.all() { await reader.suspend() }
        await checkpointer.suspend()
        let url = self.url
        let configuration = self.configuration
        let keyBox = self.keyBox
        try await writer.maintenance {
            // Copied first: once the file is replaced, nothing may fail before the box is.
            let replacement = try newKey.copy()
            let copy = DatabaseKeyChange.copyURL(for: url)
            try DatabaseKeyChange.exportCopy(of: url, oldKey: keyBox.key, to: copy, newKey: newKey,
                                             configuration: configuration, progress: progress)
            do {
                verifying()
                try DatabaseKeyChange.verify(copy, key: newKey, configuration: configuration)
            } catch {
                DatabaseKeyChange.unlinkAll(copy)
                throw error
            }
            let durable = try DatabaseKeyChange.replace(url, with: copy)
            keyBox.replace(with: replacement)
            if !durable { throw KeyChangeNotDurable() }
        }
    }
}

/// The value a write's body returned, kept until its group has committed.
private final class WriteValue<Value: Sendable>: @unchecked Sendable {
    // Safety of @unchecked Sendable: `value` is written by the body (on the thread
    // running the group) strictly before the group settles the write under its lock,
    // and read by the caller strictly after it saw that settlement under the same lock.
    private var value: Value?

    func store(_ value: Value) { self.value = value }

    func take() throws -> Value {
        guard let value else { throw MedVaultError(.storage, reason: "internal error: a write returned no value") }
        return value
    }
}

/// A counter read and incremented from any thread.
private final class AtomicCounter: @unchecked Sendable {
    // Safety of @unchecked Sendable: `count` is read and written only while holding `lock`.
    private let lock = NSLock()
    private var count = 0

    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}

/// Objects a pool keeps alive until it closes (see ``VaultDatabase/retainUntilClosed(_:)``).
private final class PoolCompanions: @unchecked Sendable {
    // Safety of @unchecked Sendable: `objects` is read and written only under `lock`, and
    // holds Sendable objects.
    private let lock = NSLock()
    private var objects: [any Sendable & AnyObject] = []

    func add(_ object: any Sendable & AnyObject) { lock.withLock { objects.append(object) } }
    func removeAll() { lock.withLock { objects.removeAll() } }
}

/// Thrown by ``VaultDatabase/changeKey(to:progress:verifying:)`` when the database was
/// replaced by its re-encrypted copy but the folder could not be synced: the file is
/// under the new key, and a power cut could still bring back the old file.
struct KeyChangeNotDurable: Error {}
