/// The in-memory ``ProfessionalRepository``, from ``InMemoryClinicalRecords``.
public struct InMemoryProfessionalRepository: ProfessionalRepository {
    let store: InMemoryClinicalStore

    public func get() async throws -> Professional? {
        await store.getProfessional()
    }

    @discardableResult
    public func save(_ professional: Professional) async throws -> Professional {
        try await store.saveProfessional(professional)
    }
}
