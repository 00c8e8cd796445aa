import BenchmarkSupport
import Foundation
import GRDB

/// The GRDB peer's workloads: GRDB 7.10 on plain SQLite (unencrypted), written the way
/// GRDB's documentation teaches (records, `insert`, `filter`, `order`, `limit`,
/// associations), plus, for W1, its fastest documented record path (a cached
/// statement with `setUncheckedArguments`). Each workload regenerates the parent's
/// dataset from the request's seed and measures itself, warm-up and repetitions
/// included; see docs/benchmarks-method.md for why each one is a fair peer.
enum GRDBPeer {
    static let library = "GRDB 7.10.0"

    /// WAL (DatabasePool's own choice, and MedVault's) at the given durability.
    static func configuration(synchronous: String = "FULL") -> Configuration {
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = \(synchronous)")
        }
        return configuration
    }

    /// A new file with the plain schema (any old one removed first), its writer at the
    /// requested durability.
    ///
    /// DatabasePool switches its writer to WAL and then to `synchronous = NORMAL` after
    /// `prepareDatabase` has run, so FULL is set again on the writer, and checked.
    static func createPool(_ path: String, synchronous: String = "FULL") throws -> DatabasePool {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        let pool = try DatabasePool(path: path, configuration: configuration(synchronous: synchronous))
        try pool.barrierWriteWithoutTransaction { db in
            try db.execute(sql: "PRAGMA synchronous = \(synchronous)")
            let expected = synchronous == "FULL" ? 2 : 1
            guard try Int.fetchOne(db, sql: "PRAGMA synchronous") == expected else {
                throw PeerFailure("the writer did not take synchronous = \(synchronous)")
            }
        }
        try pool.write { db in
            for statement in PlainSchema.statements { try db.execute(sql: statement) }
        }
        return pool
    }

    static func versions(_ writer: some DatabaseReader) throws -> (sqlite: String, cipher: String) {
        try writer.read { db in
            let sqlite = try String.fetchOne(db, sql: "SELECT sqlite_version()") ?? "?"
            let cipher = try String.fetchOne(db, sql: "PRAGMA cipher_version") ?? ""
            return (sqlite, cipher)
        }
    }

    static func result(_ writer: some DatabaseReader, figures: [String: Double] = [:],
                       counts: [String: Int] = [:]) throws -> PeerResult {
        let (sqlite, cipher) = try versions(writer)
        return PeerResult(sqliteVersion: sqlite, cipherVersion: cipher, library: library,
                          figures: figures, counts: counts)
    }

    static func counts(_ writer: some DatabaseReader) throws -> [String: Int] {
        try writer.read { db in
            ["patient": try PatientRecord.fetchCount(db), "session": try SessionRecord.fetchCount(db),
             "diagnosis": try DiagnosisRecord.fetchCount(db)]
        }
    }

    // MARK: - Records of the dataset

    /// The dataset as records, before any clock starts (the name key is left empty:
    /// computing it is the app's work, done inside the timing).
    struct Records {
        let patients: [PatientRecord]
        let sessions: [SessionRecord]
        let diagnoses: [DiagnosisRecord]
        let order: DatasetOrder

        init(_ data: BenchmarkDataset) {
            patients = data.patients.map {
                PatientRecord(id: $0.id.uuid, firstName: $0.firstName, lastName: $0.lastName, nameKey: "",
                              birthDate: $0.birthDate, phone: nil, createdAt: $0.createdAt, updatedAt: $0.createdAt)
            }
            sessions = data.sessions.map {
                SessionRecord(id: $0.id.uuid, patientId: $0.patientID.uuid, startsAt: $0.startsAt, notes: $0.notes)
            }
            diagnoses = data.diagnoses.map {
                DiagnosisRecord(id: $0.id.uuid, sessionId: $0.sessionID.uuid, code: $0.code, title: $0.title)
            }
            order = DatasetOrder(data)
        }

        func keyed(_ index: Int) -> PatientRecord {
            var patient = patients[index]
            patient.nameKey = NameKey.of(firstName: patient.firstName, lastName: patient.lastName)
            return patient
        }
    }

    /// Idiomatic: `record.insert(db)` for every row of a chunk in one `write`.
    static func insertIdiomatic(_ records: Records, into pool: DatabasePool) throws {
        for chunk in records.order.chunks {
            try pool.write { db in
                for patient in chunk {
                    try records.keyed(patient).insert(db)
                    for session in records.order.sessionsOfPatient[patient] {
                        try records.sessions[session].insert(db)
                        try records.diagnoses[session].insert(db)
                    }
                }
            }
        }
    }

    /// GRDB's fastest documented path: cached statements, `setUncheckedArguments`, `execute()`.
    static func insertFastest(_ records: Records, into pool: DatabasePool) throws {
        for chunk in records.order.chunks {
            try pool.write { db in
                let patients = try db.cachedStatement(sql: PlainSchema.insertPatient)
                let sessions = try db.cachedStatement(sql: PlainSchema.insertSession)
                let diagnoses = try db.cachedStatement(sql: PlainSchema.insertDiagnosis)
                for index in chunk {
                    let p = records.patients[index]
                    patients.setUncheckedArguments([p.id, p.firstName, p.lastName,
                                                    NameKey.of(firstName: p.firstName, lastName: p.lastName),
                                                    p.birthDate, p.phone, p.createdAt, p.updatedAt])
                    try patients.execute()
                    for session in records.order.sessionsOfPatient[index] {
                        let s = records.sessions[session]
                        sessions.setUncheckedArguments([s.id, s.patientId, s.startsAt, s.notes])
                        try sessions.execute()
                        let d = records.diagnoses[session]
                        diagnoses.setUncheckedArguments([d.id, d.sessionId, d.code, d.title])
                        try diagnoses.execute()
                    }
                }
            }
        }
    }

    /// One `write` (one transaction, one commit) per record, the first `patients` patients.
    static func insertPerRecord(_ records: Records, patients: Int, into pool: DatabasePool) throws {
        for index in 0..<min(patients, records.patients.count) {
            let patient = records.keyed(index)
            try pool.write { db in try patient.insert(db) }
            for session in records.order.sessionsOfPatient[index] {
                try pool.write { db in try records.sessions[session].insert(db) }
                try pool.write { db in try records.diagnoses[session].insert(db) }
            }
        }
    }
}
