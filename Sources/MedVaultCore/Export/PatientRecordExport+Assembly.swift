import Foundation

extension PatientRecordExport {
    /// Reads one patient's complete record from the repositories.
    ///
    /// Works against any implementation (SQLCipher or in-memory). The reads are not one
    /// transaction: a record changed by another task meanwhile may appear in its old or
    /// new form. `Vault.exportRecord(of:)` is the usual entry point.
    ///
    /// For example:
    ///
    /// ```swift
    /// let records = InMemoryClinicalRecords()
    /// let medications = InMemoryMedicationStore()
    /// let export = try await PatientRecordExport.assemble(
    ///     patientID: id, patients: records.patients, sessions: records.sessions,
    ///     attachments: records.attachments, medications: medications, exportedAt: .now)
    /// ```
    ///
    /// - Parameters:
    ///   - patientID: The patient, active or inactive.
    ///   - patients: Where the patient is read.
    ///   - sessions: Where the sessions (with their diagnoses) are read.
    ///   - attachments: Where the attachments' metadata (and, when asked, their content) is read.
    ///   - medications: Where medications, schedules, dose logs (with their history) and refills are read.
    ///   - exportedAt: The instant recorded as ``exportedAt``.
    ///   - includingAttachmentContent: Whether each attachment's content is read (its
    ///     digest checked as every read does) into ``SessionRecord/attachmentContents``.
    ///     The document then holds every byte in memory.
    /// - Returns: The document; sessions oldest first.
    /// - Throws: ``MedVaultError/Code/notFound`` for an unknown patient; `locked` and
    ///   storage errors of the repositories.
    public static func assemble(
        patientID: UUID,
        patients: any PatientRepository,
        sessions: any ClinicalSessionRepository,
        attachments: any AttachmentRepository,
        medications: any MedicationStore,
        exportedAt: Date,
        includingAttachmentContent: Bool = false
    ) async throws -> PatientRecordExport {
        let patient = try await patients.get(patientID)
        var sessionRecords: [SessionRecord] = []
        for entry in try await sessions.fullHistory(of: patientID).reversed() {
            let files = try await attachments.list(sessionID: entry.session.id)
            var contents: [AttachmentContent] = []
            if includingAttachmentContent {
                for file in files {
                    contents.append(AttachmentContent(attachmentID: file.id, data: try await attachments.data(of: file.id)))
                }
            }
            sessionRecords.append(SessionRecord(session: entry.session, diagnoses: entry.diagnoses, attachments: files,
                                                signature: entry.signature, addenda: entry.addenda,
                                                attachmentContents: contents))
        }
        var medicationRecords: [MedicationRecord] = []
        let allTime = Date(timeIntervalSince1970: -62_135_596_800) ..< Date(timeIntervalSince1970: 253_402_300_800)
        for medication in try await medications.list(patientID: patientID, filter: .all) {
            medicationRecords.append(MedicationRecord(
                medication: medication,
                schedules: try await medications.schedules.list(medicationID: medication.id),
                doseLogs: try await medications.doseLogs.list(medicationID: medication.id, in: allTime),
                doseLogRevisions: try await medications.doseLogs.history(medicationID: medication.id),
                refills: try await medications.refills.list(medicationID: medication.id)
            ))
        }
        return PatientRecordExport(exportedAt: exportedAt, patient: patient,
                                   sessions: sessionRecords, medications: medicationRecords)
    }
}
