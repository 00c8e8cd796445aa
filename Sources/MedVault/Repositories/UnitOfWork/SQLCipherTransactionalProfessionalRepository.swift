import Foundation
import MedVaultCore

/// The SQLCipher `TransactionalProfessionalRepository` of a unit of work: the SQL of
/// `SQLCipherProfessionalRepository`, on the unit's connection.
struct SQLCipherTransactionalProfessionalRepository: TransactionalProfessionalRepository {
    let unit: SQLCipherUnitOfWork

    func get() throws -> Professional? {
        try unit.read { db in try SQLCipherProfessionalRepository.get(in: db) }
    }

    func save(_ professional: Professional) throws -> Professional {
        try unit.write { db in
            try SQLCipherProfessionalRepository.save(try professional.validated(), clock: unit.clock, in: db)
        }
    }
}
