import Foundation
import MedVaultCore

extension Vault {
    /// One patient's complete record as a portable document: the patient, sessions
    /// with diagnoses and attachments (metadata, and content when asked), medications with schedules and dose
    /// logs. See `PatientRecordExport`.
    ///
    /// For example:
    ///
    /// ```swift
    /// let export = try await vault.exportRecord(of: patient.id)
    /// try PrivateFileWriter.write(try export.jsonData(), to: URL(fileURLWithPath: "jose.json"))
    /// ```
    ///
    /// - Parameters:
    ///   - patientID: The patient, active or inactive.
    ///   - includingAttachmentContent: Whether the attachments' content is included, so
    ///     that ``importRecords(_:progress:)`` restores them (every byte is then in memory).
    /// - Returns: The document, stamped with the vault clock's now.
    /// - Throws: `notFound` for an unknown patient; `locked`; `corrupted` for an
    ///   attachment whose content fails its digest; storage errors.
    public func exportRecord(of patientID: UUID, includingAttachmentContent: Bool = false) async throws
        -> PatientRecordExport
    {
        let export = try await PatientRecordExport.assemble(
            patientID: patientID, patients: patients, sessions: sessions,
            attachments: attachments, medications: medications, exportedAt: options.clock.now(),
            includingAttachmentContent: includingAttachmentContent
        )
        try await audit.record(.export, table: .patient, id: patientID)
        return export
    }
}
