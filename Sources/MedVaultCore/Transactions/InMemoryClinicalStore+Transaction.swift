import Foundation

extension InMemoryClinicalStore {
    /// Every table of the store, copied at the start of a unit of work and put back
    /// when it fails. The copies share storage with the tables (copy on write): only a
    /// table the unit changes is copied, once.
    struct Snapshot {
        let professional: Professional?
        let patients: [UUID: Patient]
        let patientTokens: [UUID: [String]]
        let patientOrder: [PatientCursor]
        let sessions: [UUID: ClinicalSession]
        let sessionIDsByPatient: [UUID: Set<UUID>]
        let diagnoses: [UUID: Diagnosis]
        let diagnosisIDsBySession: [UUID: Set<UUID>]
        let attachments: [UUID: Attachment]
        let attachmentChunks: [UUID: [Data]]
        let attachmentIDsBySession: [UUID: Set<UUID>]
        let signatures: [UUID: SessionSignature]
        let addenda: [UUID: [SessionAddendum]]
    }

    static let cancelledError = MedVaultError(.cancelled, reason: "the task was cancelled; the transaction was rolled back")

    /// Runs a unit of work: `body` runs on this actor, whose executor the medication
    /// `tables` share (see ``InMemoryMedicationTables/unownedExecutor``), so nothing
    /// else reads or writes either until it returns. When `body` throws or the task is
    /// cancelled, every table of both is put back as it was: all or nothing, like the
    /// SQLCipher transaction.
    func transaction<Value: Sendable>(
        medications tables: InMemoryMedicationTables, _ body: (VaultTransaction) throws -> Value
    ) throws -> Value {
        if Task.isCancelled { throw Self.cancelledError }
        let saved = snapshot()
        let savedTables = tables.assumeIsolated { $0.tables }
        let scope = TransactionScope()
        defer { scope.close() }
        let medications = InMemoryTransactionalMedicationStore(patients: self, tables: tables, scope: scope)
        let transaction = VaultTransaction(
            professional: InMemoryTransactionalProfessionalRepository(store: self, scope: scope),
            patients: InMemoryTransactionalPatientRepository(store: self, scope: scope),
            sessions: InMemoryTransactionalClinicalSessionRepository(store: self, scope: scope),
            diagnoses: InMemoryTransactionalDiagnosisRepository(store: self, scope: scope),
            medications: medications)
        do {
            let value = try body(transaction)
            if Task.isCancelled { throw Self.cancelledError }
            return value
        } catch {
            restore(saved)
            tables.assumeIsolated { $0.tables = savedTables }
            throw error
        }
    }

    /// Runs `operation` on this actor for a transactional repository: throws
    /// ``TransactionScope/endedError`` once the unit of work ended.
    ///
    /// It must be called from inside the unit's closure (which runs on this actor);
    /// a transaction smuggled to another task while its unit still runs traps here,
    /// as any access to an actor's state from outside it would be a data race.
    nonisolated func inUnit<Value: Sendable>(
        _ scope: TransactionScope, _ operation: (isolated InMemoryClinicalStore) throws -> Value
    ) throws -> Value {
        try scope.check()
        return try assumeIsolated(operation)
    }

    private func snapshot() -> Snapshot {
        Snapshot(professional: professional, patients: patients, patientTokens: patientTokens,
                 patientOrder: patientOrder, sessions: sessions, sessionIDsByPatient: sessionIDsByPatient,
                 diagnoses: diagnoses, diagnosisIDsBySession: diagnosisIDsBySession, attachments: attachments,
                 attachmentChunks: attachmentChunks, attachmentIDsBySession: attachmentIDsBySession,
                 signatures: signatures, addenda: addenda)
    }

    private func restore(_ saved: Snapshot) {
        professional = saved.professional
        patients = saved.patients
        patientTokens = saved.patientTokens
        patientOrder = saved.patientOrder
        sessions = saved.sessions
        sessionIDsByPatient = saved.sessionIDsByPatient
        diagnoses = saved.diagnoses
        diagnosisIDsBySession = saved.diagnosisIDsBySession
        attachments = saved.attachments
        attachmentChunks = saved.attachmentChunks
        attachmentIDsBySession = saved.attachmentIDsBySession
        signatures = saved.signatures
        addenda = saved.addenda
    }
}

extension InMemoryMedicationTables {
    /// As ``InMemoryClinicalStore/inUnit(_:_:)``, on these tables.
    nonisolated func inUnit<Value: Sendable>(
        _ scope: TransactionScope, _ operation: (isolated InMemoryMedicationTables) throws -> Value
    ) throws -> Value {
        try scope.check()
        return try assumeIsolated(operation)
    }
}
