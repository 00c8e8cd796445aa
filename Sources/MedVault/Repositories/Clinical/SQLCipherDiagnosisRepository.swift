import Foundation
import MedVaultCore

/// The SQLCipher `DiagnosisRepository`: diagnoses in the `diagnosis` table.
///
/// Triggers make the ICD-11 snapshot, the session and the diagnosis date immutable and
/// refuse deletion, even against raw SQL: amendments only ever touch the type, severity
/// and clinical notes.
///
/// For example:
///
/// ```swift
/// let diagnoses = SQLCipherDiagnosisRepository(pool: pool)
/// try await diagnoses.create(Diagnosis(sessionID: session.id, snapshot: snapshot, diagnosedAt: .now))
/// let all = try await diagnoses.list(patientID: patient.id)
/// ```
public struct SQLCipherDiagnosisRepository: DiagnosisRepository {
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

    static let selectByID = "SELECT \(ClinicalRows.DiagnosisColumn.selection) FROM diagnosis WHERE id = ?"
    static let update = """
        UPDATE diagnosis SET \(ClinicalRows.DiagnosisColumn.assignments(ClinicalRows.updatedDiagnosisColumns)) \
        WHERE id = ?
        """
    static let selectOfSession = """
        SELECT \(ClinicalRows.DiagnosisColumn.selection) FROM diagnosis WHERE session_id = ? ORDER BY diagnosed_at, id
        """

    static let selectOfPatient = """
        SELECT \(ClinicalRows.DiagnosisColumn.selection(alias: "d")) FROM clinical_session s \
        JOIN diagnosis d ON d.session_id = s.id WHERE s.patient_id = ? \
        ORDER BY d.diagnosed_at DESC, d.id DESC
        """

    // MARK: - Writing

    @discardableResult
    public func create(_ diagnosis: Diagnosis) async throws -> Diagnosis {
        try await create([diagnosis])[0]
    }

    @discardableResult
    public func create(_ diagnoses: [Diagnosis]) async throws -> [Diagnosis] {
        let now = clock.now()
        return try await ClinicalSQL.insertBatch(diagnoses, into: pool) { try Self.stamped($0, now: now) }
            insert: { db, diagnosis in try Self.insert(diagnosis, in: db) }
    }

    public func get(_ id: UUID) async throws -> Diagnosis {
        try await pool.read { db in try Self.fetch(id, db) }
    }

    @discardableResult
    public func update(_ diagnosis: Diagnosis) async throws -> Diagnosis {
        let validation = Result(catching: { try diagnosis.validated() })
        let clock = clock
        return try await pool.write { db in try Self.update(diagnosis, validation: validation, clock: clock, in: db) }
    }

    // MARK: - Operations on a connection
    //
    // The SQL of each operation, run by the methods above in a transaction of their
    // own and by `SQLCipherTransactionalDiagnosisRepository` in a unit of work's.

    /// A new diagnosis as stored: validated, version 1, stamped `now`.
    static func stamped(_ input: Diagnosis, now: Date) throws -> Diagnosis {
        var value = try input.validated()
        value.createdAt = now
        value.updatedAt = now
        value.version = 1
        return value
    }

    /// One lookup for both checks of a new diagnosis: the session exists (a row), and
    /// whether it is signed (its value).
    static let sessionExists = """
        SELECT EXISTS (SELECT 1 FROM session_signature WHERE session_id = ?1) FROM clinical_session WHERE id = ?1
        """

    /// Inserts a stamped diagnosis. Not logged here: the batch that calls it logs its
    /// records (`ClinicalSQL.insertBatch`).
    static func insert(_ diagnosis: Diagnosis, in db: DatabaseConnection) throws {
        // A missing session is reported before the unique index reports a duplicate
        // id: the in-memory store's order. Checked here, not by an insert trigger: see
        // InsertCheckSchema for why.
        try checkParent(diagnosis, in: db)
        try insertRow(diagnosis, in: db)
    }

    /// Throws when `diagnosis`'s session is missing or signed: what
    /// ``insert(_:in:)`` checks before its row.
    static func checkParent(_ diagnosis: Diagnosis, in db: DatabaseConnection) throws {
        guard let signed = try db.fetchOne(sessionExists, [diagnosis.sessionID.vaultValue], { try $0[0] as Bool }) else {
            throw ClinicalSQL.notFound("sessionID")
        }
        try SessionSigningRule.checkDiagnosisCreate(sessionSigned: signed)
    }

    /// Inserts a stamped diagnosis whose session was checked (``checkParent(_:in:)``).
    static func insertRow(_ diagnosis: Diagnosis, in db: DatabaseConnection) throws {
        try ClinicalSQL.inserting(parentField: "sessionID") {
            try ClinicalRows.insert(diagnosis, in: db)
        }
    }

    static func fetch(_ id: UUID, _ db: DatabaseConnection) throws -> Diagnosis {
        guard let diagnosis = try db.fetchOne(selectByID, [id.vaultValue], { try ClinicalRows.diagnosis($0) })
        else { throw ClinicalSQL.notFound() }
        return diagnosis
    }

    /// Saves `diagnosis` over the stored one; `validation` is `diagnosis` validated
    /// (or its error), computed before the transaction by the async path.
    static func update(
        _ diagnosis: Diagnosis, validation: Result<Diagnosis, any Error>, clock: RecordClock,
        in db: DatabaseConnection
    ) throws -> Diagnosis {
        let stored = try fetch(diagnosis.id, db)
        guard stored.version == diagnosis.version else { throw ClinicalSQL.conflict }
        var value = try validation.get()
        if let field = stored.firstChangedFixedField(in: value) {
            throw MedVaultError(.immutable, field: field, reason: "this part of a diagnosis is fixed once saved")
        }
        if stored.clinicalNotes != value.clinicalNotes {
            try SessionSigningRule.checkDiagnosisUpdate(
                from: stored, to: value,
                sessionSigned: try SQLCipherClinicalSessionRepository.isSigned(stored.sessionID, in: db))
        }
        value.createdAt = stored.createdAt
        value.updatedAt = clock.now()
        value.version = stored.version + 1
        // Only the amendable columns: the snapshot's are guarded by a trigger.
        try db.execute(update, ClinicalRows.DiagnosisColumn.arguments(value, ClinicalRows.updatedDiagnosisColumns)
                       + [value.id.vaultValue])
        try db.changeLog.append(value, .update)
        return value
    }

    // MARK: - Reading

    /// A session's diagnoses, oldest first.
    static func ofSession(_ sessionID: UUID, _ db: DatabaseConnection) throws -> [Diagnosis] {
        try db.fetchAll(selectOfSession, [sessionID.vaultValue]) { try ClinicalRows.diagnosis($0) }
    }

    public func list(sessionID: UUID) async throws -> [Diagnosis] {
        try await pool.read { db in try Self.list(sessionID: sessionID, in: db) }
    }

    static func list(sessionID: UUID, in db: DatabaseConnection) throws -> [Diagnosis] {
        guard try db.fetchOne("SELECT 1 FROM clinical_session WHERE id = ?", [sessionID.vaultValue],
                              { _ in true }) != nil
        else { throw ClinicalSQL.notFound("sessionID") }
        return try ofSession(sessionID, db)
    }

    public func count() async throws -> Int {
        try await pool.read { db in try Self.count(in: db) }
    }

    static func count(in db: DatabaseConnection) throws -> Int {
        try db.fetchOne("SELECT count(*) FROM diagnosis") { try $0[0] as Int } ?? 0
    }

    public func list(patientID: UUID) async throws -> [Diagnosis] {
        try await pool.read { db in try Self.list(patientID: patientID, in: db) }
    }

    static func list(patientID: UUID, in db: DatabaseConnection) throws -> [Diagnosis] {
        guard try db.fetchOne("SELECT 1 FROM patient WHERE id = ?", [patientID.vaultValue], { _ in true }) != nil
        else { throw ClinicalSQL.notFound("patientID") }
        return try db.fetchAll(selectOfPatient, [patientID.vaultValue]) { try ClinicalRows.diagnosis($0) }
    }
}
