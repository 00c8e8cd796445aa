import MedVault

/// Inserts a ``BenchmarkDataset`` the way each side naturally would: through
/// MedVault's ``DatabaseConnection/execute(_:_:)`` (statement cache, `DatabaseValue`
/// arrays), or through raw statements prepared once, bound and stepped.
enum DatasetWriter {
    /// Inserts every row through MedVault; call inside one `pool.write` closure.
    static func insert(_ dataset: BenchmarkDataset, into db: DatabaseConnection) throws {
        for patient in dataset.patients {
            try db.execute(BenchmarkSchema.insertPatient, [
                patient.id.uuid.databaseValue, patient.firstName.databaseValue, patient.lastName.databaseValue,
                patient.birthDate.databaseValue, patient.createdAt.databaseValue,
            ])
        }
        for session in dataset.sessions {
            try db.execute(BenchmarkSchema.insertSession, [
                session.id.uuid.databaseValue, session.patientID.uuid.databaseValue,
                session.startsAt.databaseValue, session.notes.databaseValue,
            ])
        }
        for diagnosis in dataset.diagnoses {
            try db.execute(BenchmarkSchema.insertDiagnosis, [
                diagnosis.id.uuid.databaseValue, diagnosis.sessionID.uuid.databaseValue,
                diagnosis.code.databaseValue, diagnosis.title.databaseValue,
            ])
        }
    }

    /// Inserts every row on a raw connection in one `BEGIN IMMEDIATE … COMMIT`,
    /// like one MedVault write closure.
    static func insert(_ dataset: BenchmarkDataset, into db: RawSQLCipher) throws {
        let begin = try db.prepare("BEGIN IMMEDIATE")
        let commit = try db.prepare("COMMIT")
        let insertPatient = try db.prepare(BenchmarkSchema.insertPatient)
        let insertSession = try db.prepare(BenchmarkSchema.insertSession)
        let insertDiagnosis = try db.prepare(BenchmarkSchema.insertDiagnosis)
        try begin.run()
        do {
            for patient in dataset.patients {
                try insertPatient.bind(1, bytes: patient.id.bytes)
                try insertPatient.bind(2, patient.firstName)
                try insertPatient.bind(3, patient.lastName)
                try insertPatient.bind(4, patient.birthDate)
                try insertPatient.bind(5, patient.createdAt)
                try insertPatient.run()
            }
            for session in dataset.sessions {
                try insertSession.bind(1, bytes: session.id.bytes)
                try insertSession.bind(2, bytes: session.patientID.bytes)
                try insertSession.bind(3, session.startsAt)
                try insertSession.bind(4, session.notes)
                try insertSession.run()
            }
            for diagnosis in dataset.diagnoses {
                try insertDiagnosis.bind(1, bytes: diagnosis.id.bytes)
                try insertDiagnosis.bind(2, bytes: diagnosis.sessionID.bytes)
                try insertDiagnosis.bind(3, diagnosis.code)
                try insertDiagnosis.bind(4, diagnosis.title)
                try insertDiagnosis.run()
            }
            try commit.run()
        } catch {
            try? db.exec("ROLLBACK")
            throw error
        }
    }
}
