import Foundation

/// The in-memory ``TransactionalProfessionalRepository`` of an ``InMemoryVault`` unit of work.
struct InMemoryTransactionalProfessionalRepository: TransactionalProfessionalRepository {
    let store: InMemoryClinicalStore
    let scope: TransactionScope

    func get() throws -> Professional? {
        try store.inUnit(scope) { $0.getProfessional() }
    }

    func save(_ professional: Professional) throws -> Professional {
        try store.inUnit(scope) { try $0.saveProfessional(professional) }
    }
}
