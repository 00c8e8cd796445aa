import BenchmarkSupport
import Foundation
import MedVaultCore

/// The raw reference's side of the clinical workloads: the repositories' SQL
/// (``ClinicSQL``) on a ``RawSQLCipher`` connection, statements prepared once, bound,
/// stepped and reset. Rows read are copied into plain Swift structs column by column
/// (what a C program does with its own structs): the reference materialises values
/// too, without MedVault's `VaultRow`/`VaultValue` decoding, UUID/Date conversions and
/// checks.
enum RawClinic {
    /// A session row, copied out.
    struct SessionRow {
        var id: [UInt8], patientID: [UInt8], dateMS: Int64, type: String, duration: Int64, status: String
        var createdAt: Int64, updatedAt: Int64, version: Int64
        var chiefComplaint: String?, treatmentPlan: String?, notes: String?
        var diagnoses: [DiagnosisRow] = []
    }

    /// A diagnosis row, copied out.
    struct DiagnosisRow {
        var id: [UInt8], sessionID: [UInt8], code: String, title: String, titleEs: String?, uri: String
        var release: String, type: String, severity: String?, diagnosedAt: Int64
        var createdAt: Int64, updatedAt: Int64, version: Int64, notes: String?
    }

    /// A patient row, copied out.
    struct PatientRow {
        var id: [UInt8], firstName: String, lastName: String, dateOfBirth: String, sex: String?
        var nationalID: String?, email: String?, phone: String?, address: String?, deletedAt: Int64?
        var createdAt: Int64, updatedAt: Int64, version: Int64
    }

    static func session(_ s: RawStatement) -> SessionRow {
        SessionRow(id: s.blob(at: 0), patientID: s.blob(at: 1), dateMS: s.int64(at: 2), type: s.text(at: 3),
                   duration: s.int64(at: 4), status: s.text(at: 5), createdAt: s.int64(at: 6),
                   updatedAt: s.int64(at: 7), version: s.int64(at: 8), chiefComplaint: s.optionalText(at: 9),
                   treatmentPlan: s.optionalText(at: 10), notes: s.optionalText(at: 11))
    }

    static func diagnosis(_ s: RawStatement) -> DiagnosisRow {
        DiagnosisRow(id: s.blob(at: 0), sessionID: s.blob(at: 1), code: s.text(at: 2), title: s.text(at: 3),
                     titleEs: s.optionalText(at: 4), uri: s.text(at: 5), release: s.text(at: 6),
                     type: s.text(at: 7), severity: s.optionalText(at: 8), diagnosedAt: s.int64(at: 9),
                     createdAt: s.int64(at: 10), updatedAt: s.int64(at: 11), version: s.int64(at: 12),
                     notes: s.optionalText(at: 13))
    }

    static func patient(_ s: RawStatement, from c: Int32 = 0) -> PatientRow {
        PatientRow(id: s.blob(at: c), firstName: s.text(at: c + 1), lastName: s.text(at: c + 2),
                   dateOfBirth: s.text(at: c + 3), sex: s.optionalText(at: c + 4),
                   nationalID: s.optionalText(at: c + 5), email: s.optionalText(at: c + 6),
                   phone: s.optionalText(at: c + 7), address: s.optionalText(at: c + 8),
                   deletedAt: s.optionalInt64(at: c + 9), createdAt: s.int64(at: c + 10),
                   updatedAt: s.int64(at: c + 11), version: s.int64(at: c + 12))
    }

    // MARK: - Writing

    /// Binds `s` to ``ClinicSQL/insertSession``'s parameters.
    static func bindSession(_ s: ClinicalSession, to insertSession: RawStatement) throws {
        try insertSession.bind(1, bytes: s.id.bytes)
        try insertSession.bind(2, bytes: s.patientID.bytes)
        try insertSession.bind(3, s.date.millisecondsSince1970)
        try insertSession.bind(4, s.type.rawValue)
        try insertSession.bind(5, Int64(s.durationMinutes))
        try insertSession.bind(6, s.status.rawValue)
        try insertSession.bind(7, s.createdAt.millisecondsSince1970)
        try insertSession.bind(8, s.updatedAt.millisecondsSince1970)
        try insertSession.bind(9, s.version)
        try insertSession.bind(10, s.chiefComplaint)
        try insertSession.bind(11, s.treatmentPlan)
        try insertSession.bind(12, s.notes)
    }

    /// Inserts `data` as the three batch calls do: one transaction of patients (each
    /// with its search-index rows), one of sessions, one of diagnoses.
    static func insert(_ data: ClinicData, into db: RawSQLCipher) throws {
        try insert(data, patients: Array(data.patients.indices), sessions: Array(data.sessions.indices), into: db)
    }

    /// Inserts the chunks of W1 in dataset order, three transactions per chunk as the
    /// three batch calls per chunk do.
    static func insertChunked(_ data: ClinicData, into db: RawSQLCipher) throws {
        for chunk in data.order.chunks {
            try insert(data, patients: Array(chunk),
                       sessions: chunk.flatMap { data.order.sessionsOfPatient[$0] }, into: db)
        }
    }

    /// Inserts the given patients (by index), then the given sessions and their
    /// diagnoses (by session index), in three transactions.
    static func insert(_ data: ClinicData, patients: [Int], sessions: [Int], into db: RawSQLCipher) throws {
        let begin = try db.prepare("BEGIN IMMEDIATE")
        let commit = try db.prepare("COMMIT")
        let insertPatient = try db.prepare(ClinicSQL.insertPatient)
        let insertSearchToken = try db.prepare(ClinicSQL.insertSearchToken)
        let insertSession = try db.prepare(ClinicSQL.insertSession)
        let findSnapshot = try db.prepare(ClinicSQL.findSnapshot)
        let insertSnapshot = try db.prepare(ClinicSQL.insertSnapshot)
        let insertDiagnosis = try db.prepare(ClinicSQL.insertDiagnosisRow)
        let insertNoteDocument = try db.prepare(ClinicSQL.insertNoteDocument)
        let insertNoteWords = try db.prepare(ClinicSQL.insertNoteWords)
        do {
            try begin.run()
            for index in patients {
                let p = data.patients[index]
                try insertPatient.bind(1, bytes: p.id.bytes)
                try insertPatient.bind(2, p.firstName)
                try insertPatient.bind(3, p.lastName)
                try insertPatient.bind(4, data.sortKeys[index])
                try insertPatient.bind(5, p.dateOfBirth.description)
                try insertPatient.bind(6, p.biologicalSex?.rawValue)
                try insertPatient.bind(7, p.nationalId)
                try insertPatient.bind(8, p.email)
                try insertPatient.bind(9, p.phoneNumber)
                try insertPatient.bind(10, p.address)
                try insertPatient.bindNull(11)
                try insertPatient.bind(12, p.createdAt.millisecondsSince1970)
                try insertPatient.bind(13, p.updatedAt.millisecondsSince1970)
                try insertPatient.bind(14, p.version)
                try insertPatient.run()
                let rowid = db.lastInsertedRowID
                for token in data.searchTokens[index] {
                    try insertSearchToken.bind(1, token)
                    try insertSearchToken.bind(2, data.sortKeys[index])
                    try insertSearchToken.bind(3, bytes: p.id.bytes)
                    try insertSearchToken.bind(4, rowid)
                    try insertSearchToken.run()
                }
            }
            try commit.run()
            try begin.run()
            for index in sessions {
                let s = data.sessions[index]
                try bindSession(s, to: insertSession)
                try insertSession.run()
                try insertNoteDocument.bind(1, bytes: s.id.bytes)
                try insertNoteDocument.bind(2, s.date.millisecondsSince1970)
                try insertNoteDocument.run()
                try insertNoteWords.bind(1, db.lastInsertedRowID)
                try insertNoteWords.bind(2, data.noteWords[index])
                try insertNoteWords.run()
            }
            try commit.run()
            try begin.run()
            for index in sessions {
                let d = data.diagnoses[index]
                for statement in [findSnapshot, insertSnapshot] {
                    try statement.bind(1, d.snapshot.releaseVersion)
                    try statement.bind(2, d.snapshot.code)
                    try statement.bind(3, d.snapshot.uri)
                    try statement.bind(4, d.snapshot.title)
                    try statement.bind(5, d.snapshot.titleEs)
                }
                let snapshotID: Int64
                if try findSnapshot.step() {
                    snapshotID = findSnapshot.int64(at: 0)
                } else {
                    try insertSnapshot.run()
                    snapshotID = db.lastInsertedRowID
                }
                findSnapshot.reset()
                try insertDiagnosis.bind(1, bytes: d.id.bytes)
                try insertDiagnosis.bind(2, bytes: d.sessionID.bytes)
                try insertDiagnosis.bind(3, d.diagnosisType.rawValue)
                try insertDiagnosis.bind(4, d.severity?.rawValue)
                try insertDiagnosis.bind(5, d.diagnosedAt.millisecondsSince1970)
                try insertDiagnosis.bind(6, d.createdAt.millisecondsSince1970)
                try insertDiagnosis.bind(7, d.updatedAt.millisecondsSince1970)
                try insertDiagnosis.bind(8, d.version)
                try insertDiagnosis.bind(9, d.clinicalNotes)
                try insertDiagnosis.bind(10, snapshotID)
                try insertDiagnosis.run()
            }
            try commit.run()
        } catch {
            try? db.exec("ROLLBACK")
            throw error
        }
    }
}

extension UUID {
    /// The 16 bytes MedVault stores for this identifier.
    var bytes: [UInt8] {
        withUnsafeBytes(of: uuid) { Array($0) }
    }
}
