import Foundation
import MedVaultCore

extension Vault {
    /// One patient's complete record as a portable document: the patient, sessions
    /// with diagnoses and attachments' metadata, medications with schedules and dose
    /// logs. See `PatientRecordExport`.
    ///
    /// For example:
    ///
    /// ```swift
    /// let export = try await vault.exportRecord(of: patient.id)
    /// try PrivateFileWriter.write(try export.jsonData(), to: URL(fileURLWithPath: "jose.json"))
    /// ```
    ///
    /// - Parameter patientID: The patient, active or inactive.
    /// - Returns: The document, stamped with the vault clock's now.
    /// - Throws: `notFound` for an unknown patient; `locked`; storage errors.
    public func exportRecord(of patientID: UUID) async throws -> PatientRecordExport {
        let export = try await PatientRecordExport.assemble(
            patientID: patientID, patients: patients, sessions: sessions,
            attachments: attachments, medications: medications, exportedAt: options.clock.now()
        )
        try await audit.record(.export, table: .patient, id: patientID)
        return export
    }
}
