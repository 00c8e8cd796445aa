import BenchmarkSupport
import Foundation

/// The "C plain" peer: what a developer writing SQLCipher by hand in C would do —
/// the plain schema (``PlainSchema``: a table per entity, UUID keys, one index per
/// query, a folded name key for surname prefixes, no search-token table), statements
/// prepared once, bound, stepped and reset, on a ``RawSQLCipher`` connection with
/// MedVault's cipher settings, WAL and `synchronous = FULL` (W5 also NORMAL).
///
/// The name key is folded inside the timing (the app's own work, as MedVault's
/// search tokens are part of its timing). Rows read are copied into structs.
final class PlainClinic {
    struct PatientRow { var id: [UInt8], firstName: String, lastName: String, nameKey: String, birthDate: String
                        var phone: String?, createdAt: Int64, updatedAt: Int64 }
    struct SessionRow { var id: [UInt8], patientID: [UInt8], startsAt: Int64, notes: String
                        var diagnoses: [DiagnosisRow] = [] }
    struct DiagnosisRow { var id: [UInt8], sessionID: [UInt8], code: String, title: String }

    let db: RawSQLCipher
    private let begin, commit, insertPatient, insertSession, insertDiagnosis: RawStatement
    private let history, diagnosesOfSession, search, selectPatient, updatePhone, count: RawStatement

    /// Opens `url` (creating the plain schema when `create`), optionally at another durability.
    init(at url: URL, key: [UInt8], create: Bool, synchronous: String = "FULL") throws {
        db = try RawSQLCipher(path: url.path, key: .raw(key), create: create)
        if synchronous != "FULL" { try db.exec("PRAGMA synchronous = \(synchronous)") }
        if create { try db.exec(PlainSchema.statements.joined(separator: ";\n") + ";") }
        begin = try db.prepare("BEGIN IMMEDIATE")
        commit = try db.prepare("COMMIT")
        insertPatient = try db.prepare(PlainSchema.insertPatient)
        insertSession = try db.prepare(PlainSchema.insertSession)
        insertDiagnosis = try db.prepare(PlainSchema.insertDiagnosis)
        history = try db.prepare(PlainSchema.history)
        diagnosesOfSession = try db.prepare(PlainSchema.diagnosesOfSession)
        search = try db.prepare(PlainSchema.search)
        selectPatient = try db.prepare(PlainSchema.selectPatient)
        updatePhone = try db.prepare(PlainSchema.updatePhone)
        count = try db.prepare(PlainSchema.countPatients)
    }

    // MARK: - Writes

    private func insert(patient index: Int, of data: BenchmarkDataset) throws {
        let p = data.patients[index]
        try insertPatient.bind(1, bytes: p.id.bytes)
        try insertPatient.bind(2, p.firstName)
        try insertPatient.bind(3, p.lastName)
        try insertPatient.bind(4, NameKey.of(firstName: p.firstName, lastName: p.lastName))
        try insertPatient.bind(5, p.birthDate)
        try insertPatient.bindNull(6)
        try insertPatient.bind(7, p.createdAt)
        try insertPatient.bind(8, p.createdAt)
        try insertPatient.run()
    }

    private func insert(session index: Int, of data: BenchmarkDataset) throws {
        let s = data.sessions[index]
        try insertSession.bind(1, bytes: s.id.bytes)
        try insertSession.bind(2, bytes: s.patientID.bytes)
        try insertSession.bind(3, s.startsAt)
        try insertSession.bind(4, s.notes)
        try insertSession.run()
    }

    private func insert(diagnosis index: Int, of data: BenchmarkDataset) throws {
        let d = data.diagnoses[index]
        try insertDiagnosis.bind(1, bytes: d.id.bytes)
        try insertDiagnosis.bind(2, bytes: d.sessionID.bytes)
        try insertDiagnosis.bind(3, d.code)
        try insertDiagnosis.bind(4, d.title)
        try insertDiagnosis.run()
    }

    /// W1: one transaction per chunk of ≈1,000 rows, in dataset order.
    func insertChunked(_ data: BenchmarkDataset, order: DatasetOrder) throws {
        for chunk in order.chunks {
            try inTransaction {
                for patient in chunk {
                    try insert(patient: patient, of: data)
                    for session in order.sessionsOfPatient[patient] {
                        try insert(session: session, of: data)
                        try insert(diagnosis: session, of: data)
                    }
                }
            }
        }
    }

    /// Every patient, then every session and its diagnosis in date order, in one
    /// transaction (the read fixtures' chronological layout).
    func insertChronologically(_ data: BenchmarkDataset) throws {
        try inTransaction {
            for patient in data.patients.indices { try insert(patient: patient, of: data) }
            for session in data.sessions.indices {
                try insert(session: session, of: data)
                try insert(diagnosis: session, of: data)
            }
        }
    }

    /// `body` between `BEGIN` and `COMMIT`, rolled back when it throws.
    private func inTransaction(_ body: () throws -> Void) throws {
        try begin.run()
        do {
            try body()
            try commit.run()
        } catch {
            try? db.exec("ROLLBACK")
            throw error
        }
    }

    /// W1: one transaction (an autocommit statement, one commit) per record, for the
    /// first `patients` patients and their rows.
    func insertPerRecord(_ data: BenchmarkDataset, order: DatasetOrder, patients: Int) throws {
        for patient in 0..<min(patients, data.patients.count) {
            try insert(patient: patient, of: data)
            for session in order.sessionsOfPatient[patient] {
                try insert(session: session, of: data)
                try insert(diagnosis: session, of: data)
            }
        }
    }

    /// The rows of each table, for the self-check.
    func counts() throws -> [String: Int] {
        var result: [String: Int] = [:]
        for table in ["patient", "session", "diagnosis"] {
            result[table] = Int(try db.scalarInt64("SELECT count(*) FROM \(table)") ?? -1)
        }
        return result
    }

    // MARK: - Reads and W5

    /// W2's first query.
    func patientCount() throws -> Int {
        defer { count.reset() }
        guard try count.step() else { throw BenchmarkError("C plain: count returned no row") }
        return Int(count.int64(at: 0))
    }

    /// W3: the 50 latest sessions of a patient with their diagnoses, in one read transaction.
    func history(of patientID: [UInt8], limit: Int = 50) throws -> [SessionRow] {
        try db.exec("BEGIN")
        defer { try? db.exec("COMMIT") }
        try history.bind(1, bytes: patientID)
        try history.bind(2, Int64(limit))
        var rows: [SessionRow] = []
        while try history.step() {
            rows.append(SessionRow(id: history.blob(at: 0), patientID: history.blob(at: 1),
                                   startsAt: history.int64(at: 2), notes: history.text(at: 3)))
        }
        history.reset()
        for index in rows.indices {
            try diagnosesOfSession.bind(1, bytes: rows[index].id)
            while try diagnosesOfSession.step() {
                rows[index].diagnoses.append(DiagnosisRow(
                    id: diagnosesOfSession.blob(at: 0), sessionID: diagnosesOfSession.blob(at: 1),
                    code: diagnosesOfSession.text(at: 2), title: diagnosesOfSession.text(at: 3)))
            }
            diagnosesOfSession.reset()
        }
        return rows
    }

    /// W4: the first `limit` patients whose name key starts with the folded prefix.
    func search(_ typed: String, limit: Int = 50) throws -> [PatientRow] {
        let prefix = NameKey.fold(typed)
        try search.bind(1, prefix)
        try search.bind(2, NameKey.upperBound(of: prefix))
        try search.bind(3, Int64(limit))
        defer { search.reset() }
        var rows: [PatientRow] = []
        while try search.step() { rows.append(Self.patient(search)) }
        return rows
    }

    /// W5: read a patient, then set its phone in its own (autocommit) transaction.
    func getUpdate(_ patientID: [UInt8], phone: String) throws {
        try selectPatient.bind(1, bytes: patientID)
        guard try selectPatient.step() else {
            selectPatient.reset()
            throw BenchmarkError("C plain: patient missing")
        }
        let patient = Self.patient(selectPatient)
        selectPatient.reset()
        try updatePhone.bind(1, phone)
        try updatePhone.bind(2, patient.updatedAt + 1)
        try updatePhone.bind(3, bytes: patientID)
        try updatePhone.run()
    }

    private static func patient(_ s: RawStatement) -> PatientRow {
        PatientRow(id: s.blob(at: 0), firstName: s.text(at: 1), lastName: s.text(at: 2), nameKey: s.text(at: 3),
                   birthDate: s.text(at: 4), phone: s.optionalText(at: 5), createdAt: s.int64(at: 6),
                   updatedAt: s.int64(at: 7))
    }
}
