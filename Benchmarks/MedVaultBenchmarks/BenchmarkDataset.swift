import Foundation

/// A deterministic clinic: patients, their sessions with ≈600-character notes, and
/// one diagnosis per session. Generated before any timing starts, shared by the
/// MedVault and the reference side, so both insert the very same rows.
struct BenchmarkDataset: Sendable {
    struct Patient: Sendable {
        let id: UUIDBytes
        let firstName: String
        let lastName: String
        let birthDate: String
        let createdAt: Int64
    }

    struct Session: Sendable {
        let id: UUIDBytes
        let patientID: UUIDBytes
        let startsAt: Int64
        let notes: String
    }

    struct Diagnosis: Sendable {
        let id: UUIDBytes
        let sessionID: UUIDBytes
        let code: String
        let title: String
    }

    let patients: [Patient]
    let sessions: [Session]
    let diagnoses: [Diagnosis]

    /// Every row of the dataset.
    var rowCount: Int { patients.count + sessions.count + diagnoses.count }

    /// Generates `patientCount` patients and `sessionCount` sessions (spread evenly,
    /// round-robin), each with one diagnosis.
    init(patientCount: Int, sessionCount: Int, seed: UInt64 = SplitMix64.defaultSeed) {
        var names = SpanishNameGenerator(seed: seed)
        let epoch: Int64 = 1_700_000_000_000 // 2023-11-14, in ms
        var patients: [Patient] = []
        patients.reserveCapacity(patientCount)
        for index in 0..<patientCount {
            let (first, last) = names.fullName()
            patients.append(Patient(id: names.uuid(), firstName: first, lastName: last,
                                    birthDate: names.birthDate(), createdAt: epoch + Int64(index) * 1_000))
        }
        var sessions: [Session] = []
        var diagnoses: [Diagnosis] = []
        sessions.reserveCapacity(sessionCount)
        diagnoses.reserveCapacity(sessionCount)
        for index in 0..<sessionCount where !patients.isEmpty {
            let session = Session(id: names.uuid(), patientID: patients[index % patients.count].id,
                                  startsAt: epoch + Int64(index) * 3_600_000, notes: names.notes())
            sessions.append(session)
            let (code, title) = names.diagnosis()
            diagnoses.append(Diagnosis(id: names.uuid(), sessionID: session.id, code: code, title: title))
        }
        self.patients = patients
        self.sessions = sessions
        self.diagnoses = diagnoses
    }
}
