import Foundation

/// A deterministic clinic: patients, their sessions with ≈600-character notes, and
/// one diagnosis per session. Generated before any timing starts, shared by the
/// MedVault and the reference side, so both insert the very same rows.
public struct BenchmarkDataset: Sendable {
    public struct Patient: Sendable {
        public let id: UUIDBytes
        public let firstName: String
        public let lastName: String
        public let birthDate: String
        public let createdAt: Int64
    }

    public struct Session: Sendable {
        public let id: UUIDBytes
        public let patientID: UUIDBytes
        public let startsAt: Int64
        public let notes: String
    }

    public struct Diagnosis: Sendable {
        public let id: UUIDBytes
        public let sessionID: UUIDBytes
        public let code: String
        public let title: String
    }

    public let patients: [Patient]
    public let sessions: [Session]
    public let diagnoses: [Diagnosis]

    /// Every row of the dataset.
    public var rowCount: Int { patients.count + sessions.count + diagnoses.count }

    /// Generates `patientCount` patients and `sessionCount` sessions (spread evenly,
    /// round-robin), each with one diagnosis.
    public init(patientCount: Int, sessionCount: Int, seed: UInt64 = SplitMix64.defaultSeed) {
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
