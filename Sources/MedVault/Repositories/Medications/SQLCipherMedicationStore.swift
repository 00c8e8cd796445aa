import Foundation
import MedVaultCore

/// The `MedicationStore` of an encrypted MedVault database: medications,
/// schedules and dose logs in SQLCipher tables (see `MedicationSchema`).
///
/// It follows exactly the rules of `InMemoryMedicationStore` (the shared
/// conformance suite runs against both; the rules themselves are written once in
/// MedVaultCore), plus what SQL can enforce on its own: a medication's patient must
/// exist in the `patient` table, and each write is one durable transaction. Logging
/// a taken dose and decrementing the inventory happen in the same transaction.
///
/// For example:
///
/// ```swift
/// let pool = try await VaultDatabase.open(at: url, key: key, mode: .createIfMissing,
///                                        migrator: MedVaultSchema.migrator)
/// let store = SQLCipherMedicationStore(pool: pool)
/// let stored = try await store.create(medication)
/// let today = try await store.doses(forPatient: stored.patientID,
///                                   on: CalendarDate(.now, in: .current), in: .current)
/// ```
public struct SQLCipherMedicationStore: MedicationStore {
    /// The clock that stamps records and decides which doses are already missed.
    public let clock: RecordClock
    /// The medications' schedules.
    public let schedules: any MedicationScheduleRepository
    /// What happened to doses.
    public let doseLogs: any DoseLogRepository
    /// Stock added to the medications.
    public let refills: any MedicationRefillRepository
    /// The database.
    let pool: VaultDatabase
    /// The test seam of the transactionality tests; `nil` (and never consulted)
    /// outside them.
    let faults: MedicationFaultSwitch?

    /// Creates a store over an open database whose schema includes the medication
    /// tables (``MedVaultSchema/migrator``).
    ///
    /// - Parameters:
    ///   - pool: The database.
    ///   - clock: Where "now" comes from; `.system` by default.
    public init(pool: VaultDatabase, clock: RecordClock = .system) {
        self.init(pool: pool, clock: clock, faults: nil)
    }

    /// Creates a store whose writes consult `faults` (MedVault's own tests).
    init(pool: VaultDatabase, clock: RecordClock, faults: MedicationFaultSwitch?) {
        self.pool = pool
        self.clock = clock
        self.faults = faults
        self.schedules = SQLCipherMedicationScheduleRepository(pool: pool, clock: clock)
        self.doseLogs = SQLCipherDoseLogRepository(pool: pool, clock: clock, faults: faults)
        self.refills = SQLCipherMedicationRefillRepository(pool: pool, clock: clock)
    }

    /// Makes the next write that reaches `point` fail with a storage error, inside its
    /// transaction (once). Only a store created with a fault switch has the seam.
    func _failNextWrite(at point: _MedicationFaultPoint) {
        faults?.arm(point)
    }

    // MARK: - Medications

    /// Stores a new medication.
    ///
    /// - Throws: `validation`, `duplicate` for a known identifier, `notFound` (field
    ///   `patientID`) when no patient has `patientID` (the foreign key), or a storage error.
    @discardableResult
    public func create(_ medication: Medication) async throws -> Medication {
        let stored = try MedicationRecordRule.created(medication, now: clock.now())
        return try await pool.write { db in try Self.insert(stored, in: db) }
    }

    /// Saves changes to a stored medication.
    ///
    /// Checks, in order: the medication exists (`notFound`), the values are valid
    /// (`validation`), the patient did not change (`validation`, field `patientID`),
    /// the version is the stored one (`conflict`).
    @discardableResult
    public func update(_ medication: Medication) async throws -> Medication {
        let clock = self.clock
        return try await pool.write { db in try Self.update(medication, clock: clock, in: db) }
    }

    /// The medication with this identifier.
    public func get(_ id: UUID) async throws -> Medication {
        try await pool.read { db in try Self.fetchMedication(id, db).medication }
    }

    /// A patient's medications, in `Medication.listOrder(_:_:)`.
    public func list(patientID: UUID, filter: MedicationFilter) async throws -> [Medication] {
        try await pool.read { db in try Self.list(patientID: patientID, filter: filter, in: db) }
    }

    /// Medications whose name or generic name has, for every token of `query`, a
    /// token starting with it, case- and accent-insensitively (the FTS4 index).
    public func search(_ query: String, patientID: UUID?) async throws -> [Medication] {
        guard let match = FullTextQuery.matchExpression(query) else { return [] }
        return try await pool.read { db in try Self.search(match: match, patientID: patientID, in: db) }
    }

    /// Marks a medication inactive; returns it unchanged if it already is.
    @discardableResult
    public func deactivate(_ id: UUID) async throws -> Medication {
        let clock = self.clock
        return try await pool.write { db in try Self.deactivate(id, clock: clock, in: db) }
    }

    // MARK: - Operations on a connection
    //
    // The SQL of each operation, run by the methods above in a transaction of their
    // own and by `SQLCipherTransactionalMedicationStore` in a unit of work's.

    /// Inserts a medication stamped by `MedicationRecordRule.created`.
    static func insert(_ stored: Medication, in db: DatabaseConnection) throws -> Medication {
        if try medicationRowID(stored.id, db) != nil { throw MedVaultError.duplicateRecord }
        do {
            try db.execute(MedicationRow.insert, MedicationRow.insertArguments(stored))
        } catch let error as MedVaultError where error.sqliteCode == SQLiteResult.constraintForeignKey {
            throw MedVaultError.recordNotFound("patientID", sqliteCode: error.sqliteCode)
        }
        var entries = [stored.change(.insert)]
        if let inventory = stored.inventory,
           let delta = MedicationStockLedger.adjustment(setting: inventory.current, balance: .zero) {
            // A new medication has no refill, log or adjustment yet: its balance is zero.
            entries.append(try MedicationStockStore.insertAdjustment(delta, of: stored, at: stored.createdAt, db))
        }
        try db.changeLog.append(entries)
        return stored
    }

    static func update(_ medication: Medication, clock: RecordClock, in db: DatabaseConnection) throws -> Medication {
        let (current, rowID) = try fetchMedication(medication.id, db)
        let stamped = try MedicationUpdateRule.updated(medication, replacing: current, now: clock.now())
        let declared = try MedicationStockStore.declared(rowID: rowID, db)
        let (stored, adjustment) = try MedicationStockLedger.updated(stamped, replacing: current, declared: declared) {
            try MedicationStockStore.balance(of: current, db)
        }
        try db.execute(MedicationRow.update, MedicationRow.updateArguments(stored, rowID: rowID))
        var entries = [stored.change(current.isActive == stored.isActive ? .update
                                         : stored.isActive ? .reactivate : .deactivate)]
        if let adjustment {
            entries.append(try MedicationStockStore.insertAdjustment(adjustment, of: stored, at: stored.updatedAt, db))
        }
        try db.changeLog.append(entries)
        return stored
    }

    static func deactivate(_ id: UUID, clock: RecordClock, in db: DatabaseConnection) throws -> Medication {
        let (current, rowID) = try fetchMedication(id, db)
        guard let stored = MedicationRecordRule.deactivated(current, now: clock.now()) else { return current }
        try db.execute(MedicationRow.updateActive,
                       MedicationRow.arguments(MedicationRow.activeColumns, of: stored, rowID: rowID))
        try db.changeLog.append(stored, .deactivate)
        return stored
    }

    static func list(patientID: UUID, filter: MedicationFilter, in db: DatabaseConnection) throws -> [Medication] {
        let sql: String
        switch filter {
        case .active: sql = MedicationRow.selectActiveByPatient
        case .inactive: sql = MedicationRow.selectInactiveByPatient
        case .all: sql = MedicationRow.selectByPatient
        }
        return try db.fetchAll(sql, [patientID.vaultValue]) { try MedicationRow.decode($0).medication }
            .sorted(by: Medication.listOrder)
    }

    static func search(match: String, patientID: UUID?, in db: DatabaseConnection) throws -> [Medication] {
        var sql = MedicationRow.selectMatching
        var arguments: [VaultValue] = [.text(match)]
        if let patientID {
            sql = MedicationRow.selectMatchingForPatient
            arguments.append(patientID.vaultValue)
        }
        return try db.fetchAll(sql, arguments) { try MedicationRow.decode($0).medication }
            .sorted(by: Medication.listOrder)
    }

    // MARK: - Shared reads

    static func medicationRowID(_ id: UUID, _ db: DatabaseConnection) throws -> Int64? {
        try db.fetchOne("SELECT rowid FROM medication WHERE id = ?", [id.vaultValue]) { $0.int64(at: 0) }
    }

    /// The stored medication and its rowid, or `nil`.
    static func findMedication(_ id: UUID, _ db: DatabaseConnection) throws -> (medication: Medication, rowID: Int64)? {
        try db.fetchOne(MedicationRow.selectByID, [id.vaultValue], MedicationRow.decode)
    }

    /// The stored medication and its rowid.
    ///
    /// - Throws: `MedVaultError.Code.notFound` (field `field`) when there is none.
    static func fetchMedication(
        _ id: UUID, _ db: DatabaseConnection, field: String? = nil
    ) throws -> (medication: Medication, rowID: Int64) {
        guard let found = try findMedication(id, db) else { throw MedVaultError.recordNotFound(field) }
        return found
    }
}
