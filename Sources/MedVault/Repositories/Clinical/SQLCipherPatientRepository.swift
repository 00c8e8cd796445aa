import Foundation
import MedVaultCore

/// The SQLCipher `PatientRepository`: patients in the `patient` table, searched
/// through the `patient_search_token` index (`PatientSearchIndex`) kept in the same
/// transactions.
///
/// It behaves exactly as `InMemoryPatientRepository` (same rules, order and errors);
/// the shared conformance suite checks both. Patients are never deleted: a trigger
/// refuses `DELETE FROM patient` even from raw SQL.
///
/// For example:
///
/// ```swift
/// let patients = SQLCipherPatientRepository(pool: pool)
/// try await patients.create(Patient(firstName: "José", lastName: "García",
///                                   dateOfBirth: try CalendarDate(iso8601: "1984-03-07")))
/// let found = try await patients.search("jose gar")
/// ```
public struct SQLCipherPatientRepository: PatientRepository {
    /// The database.
    public let pool: VaultDatabase
    /// Where "now" comes from.
    public let clock: RecordClock

    /// Creates a repository over `pool`, whose schema is ``MedVaultSchema/migrator``'s.
    ///
    /// - Parameters:
    ///   - pool: The open database.
    ///   - clock: Where timestamps and the birth-date rule read "now".
    public init(pool: VaultDatabase, clock: RecordClock = .system) {
        self.pool = pool
        self.clock = clock
    }

    static let selectByID = "SELECT \(ClinicalRows.patientAndRowidColumns) FROM patient WHERE id = ?"
    /// The columns an index watches, left out of an update that keeps them
    /// (`RecordColumn.assigned`): the sort key (`patient_order`; `patient_list` is an
    /// expression index, which SQLite 3.15 rewrites at every update of the row).
    static let indexedColumns: [[ClinicalRows.PatientColumn]] = [[.sortKey]]
    // MARK: - Writing

    @discardableResult
    public func create(_ patient: Patient) async throws -> Patient {
        try await create([patient])[0]
    }

    @discardableResult
    public func create(_ patients: [Patient]) async throws -> [Patient] {
        let now = clock.now()
        return try await ClinicalSQL.insertBatch(patients, into: pool) { try Self.stamped($0, now: now) }
            insert: { db, patient in try Self.insert(patient, in: db) }
    }

    public func get(_ id: UUID) async throws -> Patient {
        try await pool.read { db in try Self.get(id, in: db) }
    }

    @discardableResult
    public func update(_ patient: Patient) async throws -> Patient {
        let clock = clock
        let validation = Result(catching: { try patient.validated(at: clock.now()) })
        return try await pool.write { db in try Self.update(patient, validation: validation, clock: clock, in: db) }
    }

    @discardableResult
    public func deactivate(_ id: UUID) async throws -> Patient {
        let clock = clock
        return try await pool.write { db in try Self.setActive(id, active: false, clock: clock, in: db) }
    }

    @discardableResult
    public func reactivate(_ id: UUID) async throws -> Patient {
        let clock = clock
        return try await pool.write { db in try Self.setActive(id, active: true, clock: clock, in: db) }
    }

    // MARK: - Operations on a connection
    //
    // The SQL of each operation, run by the methods above in a transaction of their
    // own and by `SQLCipherTransactionalPatientRepository` in a unit of work's.

    /// A new patient as stored: validated at `now`, version 1, stamped `now`.
    static func stamped(_ input: Patient, now: Date) throws -> Patient {
        var value = try input.validated(at: now)
        value.deletedAt = nil
        value.createdAt = now
        value.updatedAt = now
        value.version = 1
        return value
    }

    /// Inserts a stamped patient and its search tokens. Not logged here: the batch
    /// that calls it logs its records (`ClinicalSQL.insertBatch`).
    static func insert(_ patient: Patient, in db: DatabaseConnection) throws {
        try ClinicalSQL.inserting(parentField: "id") {
            try db.execute(ClinicalRows.insertPatient, ClinicalRows.insertArguments(patient))
        }
        try PatientSearchIndex.insert(patient, rowid: db.lastInsertedRowID, in: db)
    }

    static func get(_ id: UUID, in db: DatabaseConnection) throws -> Patient {
        guard let patient = try fetch(id, db)?.patient else { throw ClinicalSQL.notFound() }
        return patient
    }

    /// Saves `patient` over the stored one; `validation` is `patient` validated (or
    /// its error), computed before the transaction by the async path.
    static func update(
        _ patient: Patient, validation: Result<Patient, any Error>, clock: RecordClock, in db: DatabaseConnection
    ) throws -> Patient {
        guard let (rowid, stored) = try fetch(patient.id, db) else { throw ClinicalSQL.notFound() }
        guard stored.version == patient.version else { throw ClinicalSQL.conflict }
        var value = try validation.get()
        value.createdAt = stored.createdAt
        value.deletedAt = stored.deletedAt
        value.version = stored.version + 1
        value.updatedAt = clock.now()
        typealias C = ClinicalRows.PatientColumn
        let columns = C.assigned(ClinicalRows.updatedPatientColumns, leavingUnchanged: indexedColumns, from: stored, to: value)
        try db.execute(C.update("patient", set: columns, where: "rowid"), C.arguments(value, columns) + [.integer(rowid)])
        try PatientSearchIndex.update(from: stored, to: value, rowid: rowid, in: db)
        try db.changeLog.append(value, .update)
        return value
    }

    static func setActive(_ id: UUID, active: Bool, clock: RecordClock, in db: DatabaseConnection) throws -> Patient {
        guard let (rowid, stored) = try fetch(id, db) else { throw ClinicalSQL.notFound() }
        guard stored.isActive != active else { return stored }
        var value = stored
        value.deletedAt = active ? nil : clock.now()
        value.version = stored.version + 1
        value.updatedAt = clock.now()
        try db.execute("UPDATE patient SET deleted_at = ?, updated_at = ?, version = ? WHERE rowid = ?",
                       [value.deletedAt.vaultValue, value.updatedAt.vaultValue,
                        .integer(value.version), .integer(rowid)])
        try db.changeLog.append(value, active ? .reactivate : .deactivate)
        return value
    }

    /// The stored patient with `id` and its rowid (the search index's `patient_rowid`).
    static func fetch(_ id: UUID, _ db: DatabaseConnection) throws -> (rowid: Int64, patient: Patient)? {
        try db.fetchOne(selectByID, [id.vaultValue], ClinicalRows.patientAndRowid)
    }

    // MARK: - Reading

    /// `WHERE` terms of each filter, written to use the `patient_list` index.
    static func filterSQL(_ filter: PatientFilter, alias: String = "") -> String {
        switch filter {
        case .active: "(\(alias)deleted_at IS NULL) = 1"
        case .inactive: "(\(alias)deleted_at IS NULL) = 0"
        case .all: "1"
        }
    }

    public func list(filter: PatientFilter, after cursor: PatientCursor?, limit: Int) async throws -> PatientPage {
        try ClinicalSQL.checkLimit(limit)
        return try await pool.read { db in try Self.list(filter: filter, after: cursor, limit: limit, in: db) }
    }

    static func list(filter: PatientFilter, after cursor: PatientCursor?, limit: Int,
                     in db: DatabaseConnection) throws -> PatientPage {
        try ClinicalSQL.checkLimit(limit)
        var sql = "SELECT \(ClinicalRows.PatientColumn.selection) FROM patient WHERE \(filterSQL(filter))"
        var arguments: [VaultValue] = []
        if let cursor {
            // (sort_key, id) > (?, ?) without row values; the first term bounds the index range.
            sql += " AND sort_key >= ? AND (sort_key > ? OR id > ?)"
            arguments = [.text(cursor.sortKey), .text(cursor.sortKey), cursor.id.vaultValue]
        }
        sql += " ORDER BY sort_key, id LIMIT ?"
        arguments.append(ClinicalSQL.limitAndOne(limit))
        let rows = try db.fetchAll(sql, arguments) { try ClinicalRows.patient($0) }
        let page = Array(rows.prefix(limit))
        let next = rows.count > limit ? page.last.map(PatientCursor.init(after:)) : nil
        return PatientPage(patients: page, nextCursor: next)
    }

    public func count(filter: PatientFilter) async throws -> Int {
        try await pool.read { db in try Self.count(filter: filter, in: db) }
    }

    static func count(filter: PatientFilter, in db: DatabaseConnection) throws -> Int {
        // All: no WHERE clause, so SQLite counts with its count fast path (OP_Count) instead of
        // stepping a loop over every row (`WHERE 1` defeats it).
        let sql = filter == .all ? "SELECT count(*) FROM patient"
            : "SELECT count(*) FROM patient WHERE \(filterSQL(filter))"
        return try db.fetchOne(sql) { try $0[0] as Int } ?? 0
    }

    public func search(_ query: String, filter: PatientFilter, limit: Int) async throws -> [Patient] {
        guard let tokens = try Self.searchTokens(query, limit: limit) else { return [] }
        return try await pool.read { db in
            try PatientSearchIndex.search(tokens, filter: filter, limit: limit, in: db)
        }
    }

    /// The folded tokens of a search `query` after checking `limit`; `nil` when the
    /// query has none, and so finds nothing.
    static func searchTokens(_ query: String, limit: Int) throws -> [String]? {
        try ClinicalSQL.checkLimit(limit)
        let tokens = SearchText.tokens(of: query)
        return tokens.isEmpty ? nil : tokens
    }
}
