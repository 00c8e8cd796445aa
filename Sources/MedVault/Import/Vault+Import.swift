import Foundation
import MedVaultCore

/// What ``Vault/importRecords(_:progress:)`` wrote: counts of records, no content.
public struct ImportReport: Sendable, Equatable {
    /// Patients imported.
    public var patients = 0
    /// Sessions imported.
    public var sessions = 0
    /// Diagnoses imported.
    public var diagnoses = 0
    /// Session signatures imported (each still verifies: the import checks it).
    public var signatures = 0
    /// Session addenda imported, in their order.
    public var addenda = 0
    /// Medications imported.
    public var medications = 0
    /// Medication schedules imported.
    public var schedules = 0
    /// Dose logs imported.
    public var doseLogs = 0
    /// Attachments imported with their content.
    public var attachments = 0
    /// Attachments listed in the documents without their content, and so not imported
    /// (an export carries content only when asked: `includingAttachmentContent`).
    public var attachmentsSkipped = 0

    /// An empty report.
    public init() {}
}

extension Vault {
    /// Imports export documents (``exportRecord(of:includingAttachmentContent:)``,
    /// ``exportAllRecords(includingAttachmentContent:)``, or `medvault export`) from this
    /// or another vault, keeping every record's identifier,
    /// `createdAt`, `updatedAt`, `version` and the patient's deactivation.
    ///
    /// ```swift
    /// let documents = try await oldVault.exportAllRecords()
    /// let report = try await newVault.importRecords(documents)
    /// ```
    ///
    /// All or nothing: the documents are checked first
    /// (`PatientRecordExport.checkImportable(_:at:)`), then written in one transaction,
    /// so an error — or the process being killed — leaves the vault as it was.
    /// Attachments are imported when the document carries their content (an export made
    /// with `includingAttachmentContent: true`), checked against their size and SHA-256
    /// first; those listed without content are skipped and counted.
    ///
    /// - Parameters:
    ///   - documents: One document per patient.
    ///   - progress: Called inside the transaction after each document is written, with
    ///     the number written so far (not yet committed: an error still undoes them all).
    ///     It runs on the writer's thread and holds the write transaction: keep it short.
    /// - Returns: What was imported.
    /// - Throws: `duplicate` (field `id`) when a record is in the vault already or listed
    ///   twice; `validation` or `invalidArgument` for damaged documents; `locked`.
    ///   Nothing is written on any error.
    @discardableResult
    public func importRecords(
        _ documents: [PatientRecordExport], progress: @escaping @Sendable (Int) -> Void = { _ in }
    ) async throws -> ImportReport {
        try PatientRecordExport.checkImportable(documents, at: options.clock.now())
        return try await database.write(duration: .long) { db in
            // The event first: each imported record then has its own `create` entry.
            try db.changeLog.appendAuditEvent(.importRecords, table: nil, id: nil)
            return try RecordImport.insert(documents, in: db, progress: progress)
        }
    }

    /// Every patient's record (active and inactive), one export document each, in the
    /// order of patient ids. For moving a whole practice with ``importRecords(_:progress:)``.
    ///
    /// - Parameter includingAttachmentContent: Whether attachments' content is included
    ///   (every byte then in memory: for large files, move the vault with ``backup(to:options:progress:)``).
    /// - Throws: `locked`; `corrupted` for an attachment whose content fails its digest; storage errors.
    public func exportAllRecords(includingAttachmentContent: Bool = false) async throws -> [PatientRecordExport] {
        var ids: [UUID] = []
        var cursor: PatientCursor?
        repeat {
            let page = try await patients.list(filter: .all, after: cursor, limit: 500)
            ids += page.patients.map(\.id)
            cursor = page.nextCursor
        } while cursor != nil
        var documents: [PatientRecordExport] = []
        for id in ids.sorted(by: { $0.uuidString < $1.uuidString }) {
            documents.append(try await exportRecord(of: id, includingAttachmentContent: includingAttachmentContent))
        }
        return documents
    }
}
