import Foundation
import MedVaultCore

/// The SQLCipher `ProfessionalRepository`: the vault owner's profile, a single row
/// of the `professional` table (a `CHECK` allows no second one).
///
/// For example:
///
/// ```swift
/// let professional = SQLCipherProfessionalRepository(pool: pool)
/// let me = try await professional.save(Professional(fullName: "Ana Ruiz", licenseNumber: "M-1",
///                                                   specialty: "Psicología"))
/// ```
public struct SQLCipherProfessionalRepository: ProfessionalRepository {
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

    static let select = "SELECT \(ClinicalRows.ProfessionalColumn.selection) FROM professional WHERE singleton = 1"
    static let save = """
        INSERT OR REPLACE INTO professional (singleton, \(ClinicalRows.ProfessionalColumn.selection)) \
        VALUES (1, \(ClinicalRows.ProfessionalColumn.placeholders))
        """

    public func get() async throws -> Professional? {
        try await pool.read { db in try Self.get(in: db) }
    }

    @discardableResult
    public func save(_ professional: Professional) async throws -> Professional {
        let validated = try professional.validated()
        let clock = clock
        return try await pool.write { db in try Self.save(validated, clock: clock, in: db) }
    }

    // MARK: - Operations on a connection
    //
    // Run by the methods above in a transaction of their own and by
    // `SQLCipherTransactionalProfessionalRepository` in a unit of work's.

    static func get(in db: DatabaseConnection) throws -> Professional? {
        try db.fetchOne(select) { try ClinicalRows.professional($0) }
    }

    /// Saves an already validated profile under ``ProfessionalSaveRule``.
    static func save(_ validated: Professional, clock: RecordClock, in db: DatabaseConnection) throws -> Professional {
        let stored = try get(in: db)
        let value = try ProfessionalSaveRule.saved(validated, over: stored, now: clock.now())
        try db.execute(save, ClinicalRows.ProfessionalColumn.arguments(value))
        try db.changeLog.append(value, stored == nil ? .insert : .update)
        return value
    }
}
