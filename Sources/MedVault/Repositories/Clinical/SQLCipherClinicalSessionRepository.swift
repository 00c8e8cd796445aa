import Foundation
import MedVaultCore

/// The SQLCipher `ClinicalSessionRepository`: sessions in the `clinical_session`
/// table, history and agenda read through their indexes.
///
/// A trigger checks, in the same lookup, that a new session's patient exists and is
/// active; others keep a completed session's status, refuse to delete it, and keep a
/// session with its patient, even against raw SQL.
///
/// For example:
///
/// ```swift
/// let sessions = SQLCipherClinicalSessionRepository(pool: pool)
/// try await sessions.create(ClinicalSession(patientID: patient.id, date: .now))
/// let page = try await sessions.history(of: patient.id, after: nil, limit: 20)
/// ```
public struct SQLCipherClinicalSessionRepository: ClinicalSessionRepository {
    /// The database.
    public let pool: VaultDatabase
    /// Where "now" comes from.
    public let clock: RecordClock

    /// Creates a repository over `pool`, whose schema is ``MedVaultSchema/migrator``'s.
    ///
    /// - Parameters:
    ///   - pool: The open database.
    ///   - clock: Where timestamps read "now".
    public init(pool: VaultDatabase, clock: RecordClock = .system) {
        self.pool = pool
        self.clock = clock
    }

    static let selectByID = "SELECT \(ClinicalRows.SessionColumn.selection) FROM clinical_session WHERE id = ?"
    /// The columns indexes and triggers watch, left out of an update that keeps them
    /// (`RecordColumn.assigned`): the date (`clinical_session_history`,
    /// `clinical_session_agenda`, `session_note_document_date`), the status
    /// (`clinical_session_completed_status`, `clinical_session_signed_before_completion`)
    /// and the clinical text (`clinical_session_signed_content`). Each trigger acts only
    /// on a changed value, so leaving an unchanged column out changes no outcome.
    static let watchedColumns: [[ClinicalRows.SessionColumn]] = [
        [.dateMs], [.status], [.chiefComplaint, .notes, .treatmentPlan],
    ]

    // MARK: - Writing

    @discardableResult
    public func create(_ session: ClinicalSession) async throws -> ClinicalSession {
        try await create([session])[0]
    }

    @discardableResult
    public func create(_ sessions: [ClinicalSession]) async throws -> [ClinicalSession] {
        let now = clock.now()
        return try await ClinicalSQL.insertBatch(sessions, into: pool) { try Self.stamped($0, now: now) }
            insert: { db, session in try Self.insert(session, in: db) }
    }

    public func get(_ id: UUID) async throws -> ClinicalSession {
        try await pool.read { db in try Self.fetch(id, db) }
    }

    @discardableResult
    public func update(_ session: ClinicalSession) async throws -> ClinicalSession {
        let validation = Result(catching: { try session.validated() })
        let clock = clock
        return try await pool.write { db in try Self.update(session, validation: validation, clock: clock, in: db) }
    }

    @discardableResult
    public func cancel(_ id: UUID) async throws -> ClinicalSession {
        let clock = clock
        return try await pool.write { db in try Self.cancel(id, clock: clock, in: db) }
    }

    public func delete(_ id: UUID) async throws {
        // Long: the session's attachments and their chunks are deleted with it.
        try await pool.write(duration: .long) { db in try Self.delete(id, in: db) }
    }

    // MARK: - Operations on a connection
    //
    // The SQL of each operation, run by the methods above in a transaction of their
    // own and by `SQLCipherTransactionalClinicalSessionRepository` in a unit of work's.

    /// A new session as stored: validated, version 1, stamped `now`.
    static func stamped(_ input: ClinicalSession, now: Date) throws -> ClinicalSession {
        var value = try input.validated()
        value.createdAt = now
        value.updatedAt = now
        value.version = 1
        return value
    }

    /// The patient's state and the vault's signing setting, in one lookup.
    static let patientIsActive = """
        SELECT deleted_at IS NULL, ifnull((SELECT require_before_completion FROM signing_policy WHERE id = 1), 0) = 1 \
        FROM patient WHERE id = ?
        """

    /// Inserts a stamped session. Not logged here: the batch that calls it logs its
    /// records (`ClinicalSQL.insertBatch`).
    static func insert(_ session: ClinicalSession, in db: DatabaseConnection) throws {
        // A missing or inactive patient is reported before the unique index reports a
        // duplicate id: the in-memory store's order. Checked here, not by an insert
        // trigger: see InsertCheckSchema for why.
        try checkParent(session, in: db)
        try insertRow(session, in: db)
    }

    /// Throws when `session`'s patient is missing or inactive, or the signing rule
    /// refuses it: what ``insert(_:in:)`` checks before its row.
    static func checkParent(_ session: ClinicalSession, in db: DatabaseConnection) throws {
        let state = try db.fetchOne(patientIsActive, [session.patientID.vaultValue]) {
            (active: try $0[0] as Bool, signatureRequired: try $0[1] as Bool)
        }
        guard let state else { throw ClinicalSQL.notFound("patientID") }
        guard state.active else { throw MedVaultError.validation("patientID", "the patient is inactive") }
        try SessionSigningRule.checkCreate(session, signatureRequired: state.signatureRequired)
    }

    /// Inserts a stamped session whose parent was checked (``checkParent(_:in:)``).
    static func insertRow(_ session: ClinicalSession, in db: DatabaseConnection) throws {
        try ClinicalSQL.inserting(parentField: "patientID") {
            try db.execute(ClinicalRows.insertSession, ClinicalRows.insertArguments(session))
        }
        try SessionNoteIndex.index(session, in: db)
    }

    static func fetch(_ id: UUID, _ db: DatabaseConnection) throws -> ClinicalSession {
        guard let session = try db.fetchOne(selectByID, [id.vaultValue], { try ClinicalRows.session($0) }) else {
            throw ClinicalSQL.notFound()
        }
        return session
    }

    /// Saves `session` over the stored one; `validation` is `session` validated (or
    /// its error), computed before the transaction by the async path.
    static func update(
        _ session: ClinicalSession, validation: Result<ClinicalSession, any Error>, clock: RecordClock,
        in db: DatabaseConnection
    ) throws -> ClinicalSession {
        let stored = try fetch(session.id, db)
        guard stored.version == session.version else { throw ClinicalSQL.conflict }
        var value = try validation.get()
        guard value.patientID == stored.patientID else {
            throw MedVaultError(.immutable, field: "patientID",
                                reason: "a session cannot move to another patient")
        }
        if stored.status == .completed, value.status != .completed {
            throw ClinicalSQL.completedStatus
        }
        let signatureRequired = value.status == .completed && stored.status != .completed
            ? try signatureRequired(in: db) : false
        try SessionSigningRule.checkUpdate(from: stored, to: value, signed: try isSigned(value.id, in: db),
                                           signatureRequired: signatureRequired)
        value.createdAt = stored.createdAt
        value.updatedAt = clock.now()
        value.version = stored.version + 1
        typealias C = ClinicalRows.SessionColumn
        let columns = C.assigned(ClinicalRows.updatedSessionColumns, leavingUnchanged: watchedColumns, from: stored,
                                 to: value)
        try db.execute(C.update("clinical_session", set: columns, where: "id"),
                       C.arguments(value, columns) + [value.id.vaultValue])
        if (value.chiefComplaint, value.notes, value.treatmentPlan) != (stored.chiefComplaint, stored.notes, stored.treatmentPlan) {
            try SessionNoteIndex.reindexSession(value.id, in: db)
        }
        try db.changeLog.append(value, value.status == .cancelled && stored.status != .cancelled ? .cancel : .update)
        return value
    }

    static func cancel(_ id: UUID, clock: RecordClock, in db: DatabaseConnection) throws -> ClinicalSession {
        let stored = try fetch(id, db)
        if stored.status == .cancelled { return stored }
        guard stored.status != .completed else { throw ClinicalSQL.completedStatus }
        var value = stored
        value.status = .cancelled
        value.updatedAt = clock.now()
        value.version = stored.version + 1
        try db.execute("UPDATE clinical_session SET status = ?, updated_at = ?, version = ? WHERE id = ?",
                       [.text(value.status.rawValue), value.updatedAt.vaultValue, .integer(value.version),
                        id.vaultValue])
        try db.changeLog.append(value, .cancel)
        return value
    }

    static func delete(_ id: UUID, in db: DatabaseConnection) throws {
        guard let (status, version) = try db.fetchOne("SELECT status, version FROM clinical_session WHERE id = ?",
                                                      [id.vaultValue], { (try $0[0] as String, $0.int64(at: 1)) })
        else { throw ClinicalSQL.notFound() }
        guard status != SessionStatus.completed.rawValue else { throw ClinicalSQL.completedStatus }
        guard try !isSigned(id, in: db) else { throw SessionSigningRule.signedSessionKept }
        let hasDiagnoses = try db.fetchOne("SELECT 1 FROM diagnosis WHERE session_id = ? LIMIT 1",
                                           [id.vaultValue], { _ in true }) ?? false
        guard !hasDiagnoses else {
            throw MedVaultError(.immutable, field: "diagnoses",
                                reason: "a session with diagnoses cannot be deleted")
        }
        // Attachments and their chunks go with it (ON DELETE CASCADE): each complete
        // one is a record deleted by this operation, logged with the session.
        var deleted = try db.fetchAll("SELECT id, version FROM attachment WHERE session_id = ? AND is_complete = 1",
                                      [id.vaultValue]) { row in
            ChangeRecord(table: .attachment, id: try UUID(row: row, column: 0), operation: .delete,
                         version: row.int64(at: 1))
        }
        try db.execute("DELETE FROM clinical_session WHERE id = ?", [id.vaultValue])
        deleted.append(ChangeRecord(table: .clinicalSession, id: id, operation: .delete, version: version))
        try db.changeLog.append(deleted)
    }

    // MARK: - Reading

    public func history(of patientID: UUID, after cursor: SessionHistoryCursor?, limit: Int) async throws
        -> SessionHistoryPage
    {
        try ClinicalSQL.checkLimit(limit)
        return try await pool.read { db in try Self.history(of: patientID, after: cursor, limit: limit, in: db) }
    }

    static func history(of patientID: UUID, after cursor: SessionHistoryCursor?, limit: Int,
                        in db: DatabaseConnection) throws -> SessionHistoryPage {
        try ClinicalSQL.checkLimit(limit)
        return try SessionHistoryReader.page(of: patientID, after: cursor, limit: limit, in: db)
    }

    public func count() async throws -> Int {
        try await pool.read { db in try Self.count(in: db) }
    }

    static func count(in db: DatabaseConnection) throws -> Int {
        try db.fetchOne("SELECT count(*) FROM clinical_session") { try $0[0] as Int } ?? 0
    }

    /// Sessions whose clinical text matches `query`, newest first, through the
    /// `session_note_search` full-text index (`SessionNoteIndex`).
    public func searchNotes(_ query: String, patientID: UUID?, after cursor: SessionHistoryCursor?, limit: Int)
        async throws -> SessionSearchPage
    {
        try ClinicalSQL.checkLimit(limit)
        return try await pool.read { db in
            try SessionNoteIndex.search(query, patientID: patientID, after: cursor, limit: limit, in: db)
        }
    }

    public func agenda(from start: Date, to end: Date) async throws -> [ClinicalSession] {
        try Self.checkRange(start, end)
        return try await pool.read { db in try Self.agenda(from: start, to: end, in: db) }
    }

    static func checkRange(_ start: Date, _ end: Date) throws {
        guard start.millisecondsSince1970 <= end.millisecondsSince1970 else {
            throw MedVaultError(.invalidArgument, reason: "the range ends before it starts")
        }
    }

    static func agenda(from start: Date, to end: Date, in db: DatabaseConnection) throws -> [ClinicalSession] {
        try checkRange(start, end)
        return try db.fetchAll("""
            SELECT \(ClinicalRows.SessionColumn.selection) FROM clinical_session \
            WHERE date_ms >= ? AND date_ms < ? ORDER BY date_ms, id
            """, [.integer(start.millisecondsSince1970), .integer(end.millisecondsSince1970)]) {
            try ClinicalRows.session($0)
        }
    }
}
