import Foundation

/// One patient's complete record as a portable document: the patient, every session
/// with its diagnoses and attachments' metadata, and every medication with its
/// schedules and dose logs.
///
/// It is `Codable`; ``encoder()`` and ``decoder()`` give the JSON form MedVault writes
/// (`medvault export`): sorted keys, instants as ISO-8601 UTC text with milliseconds
/// (see ``ISO8601Milliseconds``), calendar dates as `YYYY-MM-DD`. Attachments'
/// content is not included, only their name, type, size and SHA-256 digest.
///
/// The document holds the record in clear text: write it only where its reader may
/// see it (`medvault export --output` writes a file of mode 0600).
///
/// For example:
///
/// ```swift
/// let export = try await vault.exportRecord(of: patientID)
/// let json = try export.jsonData()
/// let back = try PatientRecordExport(jsonData: json)   // == export
/// ```
public struct PatientRecordExport: Sendable, Hashable, Codable {
    /// The version of this document's layout; ``currentFormatVersion`` when written.
    public var formatVersion: Int
    /// When the export was made.
    public var exportedAt: Date
    /// The patient.
    public var patient: Patient
    /// The patient's sessions, oldest first, each with its diagnoses and attachments.
    public var sessions: [SessionRecord]
    /// The patient's medications (active and inactive), each with schedules and logs.
    public var medications: [MedicationRecord]

    /// The layout version this build writes.
    public static let currentFormatVersion = 1

    /// Creates a document from its parts.
    public init(
        formatVersion: Int = PatientRecordExport.currentFormatVersion, exportedAt: Date, patient: Patient,
        sessions: [SessionRecord], medications: [MedicationRecord]
    ) {
        self.formatVersion = formatVersion
        self.exportedAt = exportedAt
        self.patient = patient
        self.sessions = sessions
        self.medications = medications
    }

    /// A session with its diagnoses, its attachments' metadata, and, once signed, its
    /// signature and addenda.
    public struct SessionRecord: Sendable, Hashable, Codable {
        /// The session.
        public var session: ClinicalSession
        /// Its diagnoses, in the order the repository lists them.
        public var diagnoses: [Diagnosis]
        /// Its attachments' metadata (name, type, size, digest).
        public var attachments: [Attachment]
        /// The content of its attachments, when the export was asked for it; absent in the
        /// JSON when empty (every export written before it existed).
        public var attachmentContents: [AttachmentContent]
        /// Its signature; absent (`nil`) while unsigned, and in documents written before
        /// signing existed.
        public var signature: SessionSignature?
        /// Its addenda in the order written; absent in the JSON when there are none.
        public var addenda: [SessionAddendum]

        /// Creates a session entry.
        public init(session: ClinicalSession, diagnoses: [Diagnosis], attachments: [Attachment],
                    signature: SessionSignature? = nil, addenda: [SessionAddendum] = [],
                    attachmentContents: [AttachmentContent] = []) {
            self.session = session
            self.diagnoses = diagnoses
            self.attachments = attachments
            self.attachmentContents = attachmentContents
            self.signature = signature
            self.addenda = addenda
        }

        private enum CodingKeys: String, CodingKey {
            case session, diagnoses, attachments, signature, addenda, attachmentContents
        }

        /// Reads an entry; `signature`, `addenda` and `attachmentContents` may be absent.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            session = try container.decode(ClinicalSession.self, forKey: .session)
            diagnoses = try container.decode([Diagnosis].self, forKey: .diagnoses)
            attachments = try container.decode([Attachment].self, forKey: .attachments)
            signature = try container.decodeIfPresent(SessionSignature.self, forKey: .signature)
            addenda = try container.decodeIfPresent([SessionAddendum].self, forKey: .addenda) ?? []
            attachmentContents = try container.decodeIfPresent([AttachmentContent].self, forKey: .attachmentContents) ?? []
        }

        /// Writes an entry; an unsigned session's writes no `signature` nor `addenda`, and
        /// one without attachment content no `attachmentContents`, so its JSON is as before
        /// those existed.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(session, forKey: .session)
            try container.encode(diagnoses, forKey: .diagnoses)
            try container.encode(attachments, forKey: .attachments)
            try container.encodeIfPresent(signature, forKey: .signature)
            if !addenda.isEmpty { try container.encode(addenda, forKey: .addenda) }
            if !attachmentContents.isEmpty { try container.encode(attachmentContents, forKey: .attachmentContents) }
        }
    }

    /// A medication with its schedules and dose logs.
    public struct MedicationRecord: Sendable, Hashable, Codable {
        /// The medication.
        public var medication: Medication
        /// Its schedules.
        public var schedules: [MedicationSchedule]
        /// Its dose logs, oldest first.
        public var doseLogs: [DoseLog]
        /// The previous values of its corrected and voided logs, oldest first
        /// (``DoseLogRepository/history(medicationID:)``). Absent from exports written
        /// before corrections existed: read as empty.
        public var doseLogRevisions: [DoseLogRevision]
        /// Its refills, oldest first. Absent from older exports: read as empty.
        public var refills: [MedicationRefill]

        /// Creates a medication entry.
        public init(
            medication: Medication, schedules: [MedicationSchedule], doseLogs: [DoseLog],
            doseLogRevisions: [DoseLogRevision] = [], refills: [MedicationRefill] = []
        ) {
            self.medication = medication
            self.schedules = schedules
            self.doseLogs = doseLogs
            self.doseLogRevisions = doseLogRevisions
            self.refills = refills
        }

        private enum CodingKeys: String, CodingKey {
            case medication, schedules, doseLogs, doseLogRevisions, refills
        }

        /// Decodes an entry; the revisions and refills may be absent (format 1 as
        /// written before they existed).
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            medication = try container.decode(Medication.self, forKey: .medication)
            schedules = try container.decode([MedicationSchedule].self, forKey: .schedules)
            doseLogs = try container.decode([DoseLog].self, forKey: .doseLogs)
            doseLogRevisions = try container.decodeIfPresent([DoseLogRevision].self, forKey: .doseLogRevisions) ?? []
            refills = try container.decodeIfPresent([MedicationRefill].self, forKey: .refills) ?? []
        }
    }

    // MARK: - JSON

    /// The JSON encoder of the export format: pretty-printed, sorted keys, instants as
    /// ISO-8601 UTC text with milliseconds.
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(ISO8601Milliseconds.string(from: date))
        }
        return encoder
    }

    /// The JSON decoder of the export format (instants as ISO-8601 text).
    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = ISO8601Milliseconds.date(from: text) else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "expected an ISO-8601 instant such as 2026-03-16T09:30:00.000Z")
            }
            return date
        }
        return decoder
    }

    /// The document as JSON (see ``encoder()``), ending with a line feed.
    ///
    /// - Throws: `EncodingError` (not expected for stored records).
    public func jsonData() throws -> Data {
        var data = try Self.encoder().encode(self)
        data.append(0x0A)
        return data
    }

    /// Reads a document written by ``jsonData()``.
    ///
    /// - Throws: ``MedVaultError/Code/invalidArgument`` when the data is not an export
    ///   document, is of a newer ``formatVersion`` than this build reads, or has a key
    ///   twice in one object or a key this build does not know (with a value other than
    ///   `null`): nothing is dropped without a word.
    public init(jsonData: Data) throws {
        let decoded: PatientRecordExport
        do {
            decoded = try Self.decoder().decode(PatientRecordExport.self, from: jsonData)
        } catch {
            throw MedVaultError(.invalidArgument, reason: "the data is not a MedVault patient record export")
        }
        guard decoded.formatVersion <= Self.currentFormatVersion else {
            throw MedVaultError(.invalidArgument, field: "formatVersion",
                                reason: "the export was written by a newer MedVault")
        }
        try Self.checkKeys(of: jsonData, decodedAs: decoded)
        self = decoded
    }
}
