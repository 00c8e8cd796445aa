import Foundation
import MedVaultJSONShape

extension PatientRecordExport {
    /// Checks that documents can be imported as they are, before anything is written.
    ///
    /// An import keeps every record's identifier, `createdAt`, `updatedAt`, `version` and
    /// the patient's deactivation, so it accepts only what a repository could have
    /// stored: each record passes its type's validation, carries a version of at least 1,
    /// an `updatedAt` not before its `createdAt` and not more than a day past `now`
    /// (nor a deactivation), an identifier other than the nil UUID, belongs to the record it is listed
    /// under (a session to the document's patient, a diagnosis to its session, …), and
    /// no identifier appears twice across all the documents, and an attachment's content
    /// (when carried) has its listed size and SHA-256. Errors name the field, never a value.
    ///
    /// - Parameters:
    ///   - documents: The documents, one per patient.
    ///   - now: The clock's now (a date of birth may not be after it).
    /// - Throws: `invalidArgument` (field `formatVersion`) for a newer format;
    ///   `validation` with the field for a record that fails its rules or is inconsistent;
    ///   `duplicate` (field `id`) for an identifier listed twice.
    public static func checkImportable(_ documents: [PatientRecordExport], at now: Date) throws {
        var seen = Set<UUID>()
        func unique(_ id: UUID, _ kind: String) throws {
            guard id != nilIdentifier else {
                throw MedVaultError(.validation, field: "id", reason: "a \(kind) has the nil UUID as its identifier")
            }
            guard seen.insert(id).inserted else {
                throw MedVaultError(.duplicate, field: "id", reason: "the import lists a \(kind) identifier twice")
            }
        }
        // Stamps later than this are not a clock's: a device a day fast is tolerated.
        let latest = now.addingTimeInterval(maximumClockSkew)
        func checkStamps(_ createdAt: Date, _ updatedAt: Date, _ version: Int64, kind: String) throws {
            try Self.checkStamps(createdAt, updatedAt, version, kind: kind)
            guard updatedAt <= latest else {
                throw MedVaultError(.validation, field: "updatedAt", reason: "a \(kind) is dated in the future")
            }
        }
        for document in documents {
            guard (1...currentFormatVersion).contains(document.formatVersion) else {
                throw MedVaultError(.invalidArgument, field: "formatVersion",
                                    reason: "the export's format version is not one this build reads")
            }
            let patient = document.patient
            _ = try patient.validated(at: now)
            try checkStamps(patient.createdAt, patient.updatedAt, patient.version, kind: "patient")
            if let deletedAt = patient.deletedAt, deletedAt < patient.createdAt {
                throw MedVaultError(.validation, field: "deletedAt", reason: "a patient is deactivated before it was created")
            }
            if let deletedAt = patient.deletedAt, deletedAt > latest {
                throw MedVaultError(.validation, field: "deletedAt", reason: "a patient is deactivated in the future")
            }
            try unique(patient.id, "patient")
            for entry in document.sessions {
                let session = entry.session
                _ = try session.validated()
                try checkStamps(session.createdAt, session.updatedAt, session.version, kind: "session")
                try belongs(session.patientID == patient.id, field: "patientID", "a session is listed under another patient")
                try unique(session.id, "session")
                for diagnosis in entry.diagnoses {
                    _ = try diagnosis.validated()
                    try checkStamps(diagnosis.createdAt, diagnosis.updatedAt, diagnosis.version, kind: "diagnosis")
                    try belongs(diagnosis.sessionID == session.id, field: "sessionID", "a diagnosis is listed under another session")
                    try unique(diagnosis.id, "diagnosis")
                }
                try checkSigning(entry)
                for addendum in entry.addenda { try unique(addendum.id, "addendum") }
                try entry.checkAttachments(unique: unique)
            }
            for entry in document.medications {
                let medication = entry.medication
                _ = try medication.validated()
                try checkStamps(medication.createdAt, medication.updatedAt, medication.version, kind: "medication")
                try belongs(medication.patientID == patient.id, field: "patientID", "a medication is listed under another patient")
                try unique(medication.id, "medication")
                for schedule in entry.schedules {
                    _ = try schedule.validated()
                    try checkStamps(schedule.createdAt, schedule.updatedAt, schedule.version, kind: "schedule")
                    try belongs(schedule.medicationID == medication.id, field: "medicationID",
                                "a schedule is listed under another medication")
                    try unique(schedule.id, "schedule")
                }
                for log in entry.doseLogs {
                    _ = try log.validated()
                    try checkStamps(log.createdAt, log.updatedAt, log.version, kind: "dose log")
                    try belongs(log.medicationID == medication.id, field: "medicationID",
                                "a dose log is listed under another medication")
                    try unique(log.id, "dose log")
                }
                for revision in entry.doseLogRevisions {
                    try belongs(revision.previous.medicationID == medication.id && revision.previous.id == revision.doseLogID,
                                field: "medicationID", "a dose log revision is listed under another medication")
                    try MedicationValidation.checkCharacters(revision.reason, field: "reason", multiline: true)
                    try MedicationValidation.checkCharacters(revision.previous.notes, field: "notes", multiline: true)
                    try unique(revision.id, "dose log revision")
                }
                for refill in entry.refills {
                    _ = try MedicationRecordRule.created(refill, now: refill.createdAt)
                    try checkStamps(refill.createdAt, refill.createdAt, refill.version, kind: "refill")
                    try belongs(refill.medicationID == medication.id, field: "medicationID",
                                "a refill is listed under another medication")
                    try unique(refill.id, "refill")
                }
            }
        }
    }

    /// How far past the importing clock's now a record's stamps may be: a day, for a
    /// device whose clock ran fast; a record "updated" in 2999 is refused.
    static let maximumClockSkew: TimeInterval = 86_400

    /// `00000000-0000-0000-0000-000000000000`: no repository ever assigns it.
    static let nilIdentifier = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))

    private static func checkStamps(_ createdAt: Date, _ updatedAt: Date, _ version: Int64, kind: String) throws {
        guard version >= 1 else {
            throw MedVaultError(.validation, field: "version", reason: "a stored \(kind) has a version of at least 1")
        }
        guard updatedAt >= createdAt else {
            throw MedVaultError(.validation, field: "updatedAt", reason: "a \(kind) was updated before it was created")
        }
    }

    /// A signature must belong to its session and still seal the listed content (an
    /// export edited after signing is refused, not imported as signed); addenda need a
    /// signature and pass their validation.
    private static func checkSigning(_ entry: SessionRecord) throws {
        if let signature = entry.signature {
            try belongs(signature.sessionID == entry.session.id, field: "sessionID",
                        "a signature is listed under another session")
            // Any key: an export's signatures were made by the exporting vault's professional.
            let check = SessionSigningRule.check(signature, session: entry.session, diagnoses: entry.diagnoses,
                                                 trustedKey: nil)
            guard check == .signedByAnotherKey || check == .sealedOnly else {
                throw MedVaultError(.validation, field: "signature",
                                    reason: "a session's signed content does not match its signature")
            }
            for (field, text) in [("professionalName", signature.professionalName),
                                  ("licenseNumber", signature.licenseNumber)] where ClinicalValidation.isBlank(text) {
                throw MedVaultError.validation(field, "must not be blank")
            }
        }
        guard entry.addenda.isEmpty || entry.signature != nil else {
            throw SessionSigningRule.unsignedAddendum
        }
        for addendum in entry.addenda {
            try belongs(addendum.sessionID == entry.session.id, field: "sessionID",
                        "an addendum is listed under another session")
            try ClinicalValidation.throwFirst(addendum.validationErrors())
        }
    }

    private static func belongs(_ condition: Bool, field: String, _ reason: String) throws {
        guard condition else { throw MedVaultError(.validation, field: field, reason: reason) }
    }
}

extension PatientRecordExport {
    /// Reads one document (``jsonData()``) or a JSON array of documents (a whole vault's
    /// records), for an import.
    ///
    /// - Throws: `invalidArgument` when the data is neither, or a document is of a newer
    ///   format.
    public static func documents(jsonData: Data) throws -> [PatientRecordExport] {
        if let documents = try? decoder().decode([PatientRecordExport].self, from: jsonData) {
            guard documents.allSatisfy({ $0.formatVersion <= currentFormatVersion }) else {
                throw MedVaultError(.invalidArgument, field: "formatVersion", reason: "the export was written by a newer MedVault")
            }
            try checkKeys(of: jsonData, decodedAs: documents)
            return documents
        }
        return [try PatientRecordExport(jsonData: jsonData)]
    }

    /// Refuses JSON that decoded but says more than the documents hold: a key repeated in
    /// one object (`JSONDecoder` keeps one of the values), or a key this build does not
    /// know (it would be dropped silently). See `JSONShape`.
    ///
    /// - Throws: `invalidArgument` naming the key's path (escaped, at most 120 characters).
    static func checkKeys(of data: Data, decodedAs decoded: some Encodable) throws {
        func path(_ text: String) -> String { TextSafety.escaped(String(text.prefix(120))) }
        guard let input = JSONShape(data), let known = JSONShape(try encoder().encode(decoded)) else {
            throw MedVaultError(.invalidArgument, reason: "the data is not a MedVault patient record export")
        }
        if let repeated = input.repeatedKey() {
            throw MedVaultError(.invalidArgument, reason: "the export has the key \(path(repeated)) twice in one object")
        }
        if let unknown = input.unknownKey(comparedWith: known) {
            throw MedVaultError(.invalidArgument, reason: """
                the export has a key this MedVault does not know, \(path(unknown)): it was edited or written by another program
                """)
        }
    }

    /// Documents as one JSON array (``documents(jsonData:)`` reads it back), ending with a line feed.
    ///
    /// - Throws: `EncodingError` (not expected for stored records).
    public static func jsonData(of documents: [PatientRecordExport]) throws -> Data {
        var data = try encoder().encode(documents)
        data.append(0x0A)
        return data
    }
}
