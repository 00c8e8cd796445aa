import Foundation
import MedVaultCore

/// The SQL of an import: every record of checked export documents inserted with its own
/// identifier, stamps and version, through the repositories' row mappings
/// (`ClinicalRows`, attachments with their content in chunk rows, `MedicationRow`, `MedicationScheduleRow`, `DoseLogRow`,
/// `DoseLogRevisionRow`, `MedicationRefillRow`), and each
/// patient indexed for search (`PatientSearchIndex`), inside the caller's transaction.
/// Each record gets one `insert` entry in the change log, with its imported version.
enum RecordImport {
    /// Inserts `documents` (checked with `PatientRecordExport.checkImportable`).
    ///
    /// A deactivated patient is inserted active, its records after it (the schema refuses
    /// a session for an inactive patient), then deactivated with its own date.
    ///
    /// - Throws: `duplicate` (field `id`) when a record's identifier is in the vault
    ///   already; the transaction then rolls back.
    static func insert(
        _ documents: [PatientRecordExport], in db: DatabaseConnection, progress: (Int) -> Void
    ) throws -> ImportReport {
        var report = ImportReport()
        for document in documents {
            var logged: [ChangeRecord] = [document.patient.change(.insert)]
            var patient = document.patient
            let deletedAt = patient.deletedAt
            patient.deletedAt = nil
            try inserting("patient") { try db.execute(ClinicalRows.insertPatient, ClinicalRows.insertArguments(patient)) }
            try PatientSearchIndex.insert(patient, rowid: db.lastInsertedRowID, in: db)
            report.patients += 1
            for entry in document.sessions {
                try inserting("session") {
                    try db.execute(ClinicalRows.insertSession, ClinicalRows.insertArguments(entry.session))
                }
                try SessionNoteIndex.index(entry.session, in: db)
                report.sessions += 1
                logged.append(entry.session.change(.insert))
                for diagnosis in entry.diagnoses {
                    try inserting("diagnosis") {
                        try ClinicalRows.insert(diagnosis, in: db)
                    }
                    report.diagnoses += 1
                    logged.append(diagnosis.change(.insert))
                }
                if let signature = entry.signature {
                    try inserting("signature") {
                        try db.execute(SigningRows.insertSignature, SigningRows.SignatureColumn.arguments(signature))
                    }
                    report.signatures += 1
                    logged.append(signature.change)
                }
                for addendum in entry.addenda {
                    try inserting("addendum") {
                        try db.execute(SigningRows.insertAddendum, SigningRows.AddendumColumn.arguments(addendum))
                    }
                    try SessionNoteIndex.reindexSession(ofAddendum: addendum.id, in: db)
                    report.addenda += 1
                    logged.append(addendum.change(.insert))
                }
                for (attachment, data) in entry.attachmentsWithContent {
                    try insert(attachment, content: data, in: db)
                    report.attachments += 1
                    logged.append(attachment.change(.insert))
                }
                report.attachmentsSkipped += entry.attachments.count - entry.attachmentContents.count
            }
            for entry in document.medications {
                try inserting("medication") {
                    try db.execute(MedicationRow.insert, MedicationRow.insertArguments(entry.medication))
                }
                report.medications += 1
                logged.append(entry.medication.change(.insert))
                for schedule in entry.schedules {
                    try inserting("schedule") {
                        try db.execute(MedicationScheduleRow.insert, MedicationScheduleRow.insertArguments(schedule))
                    }
                    report.schedules += 1
                    logged.append(schedule.change(.insert))
                }
                for log in entry.doseLogs {
                    try inserting("dose log") {
                        try db.execute(DoseLogRow.insert, DoseLogRow.insertArguments(log, patientID: patient.id))
                    }
                    report.doseLogs += 1
                    logged.append(log.change(.insert))
                }
                for revision in entry.doseLogRevisions {
                    try inserting("dose log revision") {
                        try db.execute(DoseLogRevisionRow.insert,
                                       DoseLogRevisionRow.insertArguments(revision, patientID: patient.id))
                    }
                    logged.append(revision.change)
                }
                for refill in entry.refills {
                    try inserting("refill") {
                        try db.execute(MedicationRefillRow.insert,
                                       MedicationRefillRow.insertArguments(refill, patientID: patient.id))
                    }
                    logged.append(refill.change(.insert))
                }
                // The export carries the stock, not its adjustments: one adjustment makes
                // the imported ledger (refills, taken doses) show exactly that stock.
                if let inventory = entry.medication.inventory,
                   let delta = MedicationStockLedger.adjustment(
                       setting: inventory.current, balance: try MedicationStockStore.balance(of: entry.medication, db)) {
                    logged.append(try MedicationStockStore.insertAdjustment(delta, of: entry.medication,
                                                                            at: entry.medication.updatedAt, db))
                }
            }
            if let deletedAt {
                try db.execute("UPDATE patient SET deleted_at = ? WHERE id = ?", [deletedAt.vaultValue, patient.id.vaultValue])
            }
            try db.changeLog.append(logged)
            progress(report.patients)
        }
        return report
    }

    /// Inserts a complete attachment and its content in 64 KiB chunk rows, as the
    /// repository stores them (content checked against the row's size and digest by
    /// `PatientRecordExport.checkImportable`).
    private static func insert(_ attachment: Attachment, content: Data, in db: DatabaseConnection) throws {
        try inserting("attachment") {
            try db.execute(ClinicalRows.insertIncompleteAttachment, ClinicalRows.AttachmentColumn.arguments(attachment))
        }
        let size = SQLCipherAttachmentRepository.chunkByteCount
        var seq: Int64 = 0
        var start = content.startIndex
        while start < content.endIndex {
            let end = content.index(start, offsetBy: size, limitedBy: content.endIndex) ?? content.endIndex
            try db.execute(SQLCipherAttachmentRepository.insertChunk,
                           [attachment.id.vaultValue, .integer(seq), .blob(Data(content[start..<end]))])
            seq += 1
            start = end
        }
        try db.execute(ClinicalRows.completeAttachment, [attachment.id.vaultValue])
    }

    /// Runs one insert; a unique-constraint failure is a record already in the vault.
    private static func inserting(_ kind: String, _ insert: () throws -> Void) throws {
        do {
            try insert()
        } catch let error as MedVaultError where error.code == .duplicate {
            throw MedVaultError(.duplicate, field: "id",
                                reason: "a \(kind) with the same identifier is already in the vault; nothing was imported",
                                sqliteCode: error.sqliteCode)
        }
    }
}
