import Foundation

extension DiagnosisRepository {
    /// Diagnoses from an ICD-11 code: looks the code up in `catalog` (the server, or its
    /// offline cache), freezes the snapshot and stores the diagnosis.
    ///
    /// The snapshot's title is in `language`; its Spanish title is filled when the
    /// catalogue knows it (asked for in Spanish too when `language` is another, a
    /// failure of that second lookup leaving it empty).
    ///
    /// For example:
    ///
    /// ```swift
    /// let catalog = ICD11CachedCatalog(remote: whoClient, cache: vault.icd11Cache)
    /// let diagnosis = try await vault.diagnoses.create(sessionID: session.id, code: "6A70",
    ///                                                  catalog: catalog, language: "es")
    /// ```
    ///
    /// - Returns: The stored diagnosis.
    /// - Throws: The catalogue's errors (`notFound`, `offline`…), nothing stored; then
    ///   those of ``create(_:)-(Diagnosis)``.
    @discardableResult
    public func create(
        id: UUID = UUID(), sessionID: UUID, code: String, catalog: any ICD11Catalog, language: String = "es",
        diagnosisType: DiagnosisType = .principal, severity: DiagnosisSeverity? = nil,
        clinicalNotes: String? = nil, diagnosedAt: Date = Date()
    ) async throws -> Diagnosis {
        var entity = try await catalog.entity(code: code, language: language)
        if entity.titles["es"] == nil, language != "es",
           let spanish = try? await catalog.entity(code: code, language: "es"), spanish.code == entity.code {
            entity = entity.merging(ICD11Entity(code: entity.code, titles: spanish.titles.filter { $0.key == "es" },
                                                uri: entity.uri, linearizationURI: entity.linearizationURI,
                                                releaseVersion: entity.releaseVersion))
        }
        let snapshot = try entity.snapshot(language: language)
        return try await create(Diagnosis(id: id, sessionID: sessionID, snapshot: snapshot, diagnosisType: diagnosisType,
                                          severity: severity, clinicalNotes: clinicalNotes, diagnosedAt: diagnosedAt))
    }
}
