/// Every table MedVault's migrations create, declared once (issue #35): the record tables
/// with each fact the rest of the code derives from them, and the internal tables with
/// what they hold. A record table may be a view over internal tables (`diagnosis`, over
/// `diagnosis_row` and `icd11_snapshot`): readers and sync see its columns as a table's.
/// `RecordTableRegistryTests` fails when a migration creates a table this file lacks, or
/// when this file names one no migration creates.
///
/// Derived from it: ``VaultTable/recordTables`` (what the change log, sync and the audit
/// trail cover), the change log's table codes (`ChangeLogCodes`), the counts of
/// `Vault.info()`, the key column sync reads records by (`SyncRecordStore.keyColumn`) and
/// the audit trail's query of a patient's records (`AuditTrailReader`).
///
/// Every record table is change-logged, synced and audited: the change log is the one
/// source of the other two (a write logs a change; the audit trail records it in the same
/// transaction; the sync engine seals what the log lists). To add one, see
/// docs/architecture.md, "Checklist: adding a record type".
package enum RecordTableRegistry {
    /// MedVault's record tables (the order is the change-log codes').
    package static let recordTables: [RecordTable] = [
        RecordTable(.professional, code: 1, patientLink: .none),
        RecordTable(.patient, code: 2, patientLink: .isPatient),
        RecordTable(.clinicalSession, code: 3, patientLink: .column("patient_id")),
        RecordTable(.diagnosis, code: 4, patientLink: .parent(.clinicalSession, via: "session_id")),
        RecordTable(.attachment, code: 5, patientLink: .parent(.clinicalSession, via: "session_id")),
        RecordTable(.medication, code: 6, patientLink: .column("patient_id")),
        RecordTable(.medicationSchedule, code: 7, patientLink: .parent(.medication, via: "medication_id")),
        RecordTable(.doseLog, code: 8, patientLink: .column("patient_id")),
        // A revision also names the dose log it keeps (a voided log's row is gone).
        RecordTable(.doseLogRevision, code: 9, patientLink: .parent(.medication, via: "medication_id"),
                    alsoNames: ["dose_log_id"]),
        RecordTable(.medicationRefill, code: 10, patientLink: .column("patient_id")),
        // One signature per session, keyed by the session's id: the session names it.
        RecordTable(.sessionSignature, code: 11, keyColumn: "session_id", patientLink: .sameKey(as: .clinicalSession)),
        RecordTable(.sessionAddendum, code: 12, patientLink: .parent(.clinicalSession, via: "session_id")),
        RecordTable(.medicationStockAdjustment, code: 13, patientLink: .column("patient_id")),
    ]

    /// The tables that hold no record of their own, with what they hold. Virtual tables'
    /// shadow tables (`<name>_content`, `_segments`…) are SQLite's and are not listed.
    package static let internalTables: [String: String] = [
        "attachment_chunk": "an attachment's content, chunk by chunk",
        "diagnosis_row": "the diagnoses' rows, each naming its ICD-11 snapshot (the view `diagnosis` joins them)",
        "dose_journal_merged": "entry ids of dose journals already merged (exactly once)",
        "dose_journal_state": "the dose journal key's fingerprint, plan and merge position",
        "dose_snooze": "snoozed frequency doses",
        "icd11_cache": "the ICD-11 catalogue cache",
        "icd11_snapshot": "each distinct ICD-11 snapshot a diagnosis recorded, stored once",
        "medication_search": "medication-name search tokens",
        "medvault_audit": "the audit trail",
        "medvault_change": "the change log",
        "medvault_device": "this device's id",
        "medvault_metadata": "vault id, schema facts",
        "medvault_migrations": "applied migrations",
        "patient_search_token": "patient-name search tokens",
        "session_note_document": "the note index's documents: session id and date",
        "session_note_search": "the note index (FTS4)",
        "signing_policy": "the signing rule in force",
        "sync_attachment_chunk": "attachment chunks received, before their record",
        "sync_attachment_incoming": "attachments being received",
        "sync_attachment_resend": "attachments to send again",
        "sync_conflict": "conflicts kept for the user",
        "sync_device_sequence": "each device's last sequence seen",
        "sync_epoch_key": "sync epoch keys",
        "sync_outbox": "changes waiting to be sealed",
        "sync_record_clock": "each record's last hybrid timestamp",
        "sync_seal_plan": "the records a large first seal has still to seal",
        "sync_refused_envelope": "envelopes refused, for the user",
        "sync_state": "sync cursor and settings",
        "sync_unsent_record": "records changed here and not yet pushed",
    ]

    /// The record table named `table`, or `nil` for an app's table.
    package static func record(_ table: VaultTable) -> RecordTable? {
        byTable[table]
    }

    private static let byTable = Dictionary(uniqueKeysWithValues: recordTables.map { ($0.table, $0) })

    /// SQL selecting the id of every record of the patient whose id is the SQL expression
    /// `patientID`, as the audit trail names them: the patient, then each record table's
    /// rows linked to it, directly or through their parent.
    package static func patientEntitiesSQL(_ patientID: String) -> String {
        var selects: [String] = []
        for record in recordTables {
            let names = [record.keyColumn] + record.alsoNames
            switch record.patientLink {
            case .isPatient:
                selects.append("SELECT \(patientID)")
            case .none, .sameKey:
                continue
            case .column(let column):
                for name in names {
                    selects.append("SELECT \(name) FROM \(record.table) WHERE \(column) = \(patientID)")
                }
            case .parent(let parent, let via):
                guard case .column(let parentColumn) = byTable[parent]?.patientLink else {
                    // Unreachable: `recordTables` is the constant literal above, and
                    // RecordTableRegistryTests.declaredColumnsExist fails for any parent
                    // that does not name its patient by a column.
                    preconditionFailure("RecordTableRegistry: a parent must link to the patient by a column")
                }
                for name in names {
                    selects.append("""
                        SELECT x.\(name) FROM \(record.table) x JOIN \(parent) p ON p.id = x.\(via) \
                        WHERE p.\(parentColumn) = \(patientID)
                        """)
                }
            }
        }
        return selects.joined(separator: " UNION ")
    }
}

/// One record table and the facts about it.
package struct RecordTable: Sendable {
    /// How a record names its patient.
    package enum PatientLink: Sendable {
        /// The patient table itself.
        case isPatient
        /// Not a patient's record (the professional's profile).
        case none
        /// Keyed by a record of another table, which already names it.
        case sameKey(as: VaultTable)
        /// A column holding the patient's id.
        case column(String)
        /// A column holding the id of a parent record that names the patient.
        case parent(VaultTable, via: String)
    }

    /// The table.
    package let table: VaultTable
    /// Its code in the change log and audit trail: part of the file format, frozen.
    package let changeLogCode: Int64
    /// The column that identifies a record (what sync reads it by).
    package let keyColumn: String
    /// How a record names its patient (for the audit trail's per-patient query).
    package let patientLink: PatientLink
    /// Other columns whose values are audit-trail entities of the same patient.
    package let alsoNames: [String]

    init(_ table: VaultTable, code: Int64, keyColumn: String = "id", patientLink: PatientLink,
         alsoNames: [String] = []) {
        self.table = table
        self.changeLogCode = code
        self.keyColumn = keyColumn
        self.patientLink = patientLink
        self.alsoNames = alsoNames
    }
}
