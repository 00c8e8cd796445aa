import BenchmarkSupport
import Foundation
import MedVaultCore

/// The ``BenchmarkDataset`` as MedVault's domain values, stored-form: what the
/// repositories' batch APIs receive (MedVault side) and what the raw side binds,
/// column by column, with the same SQL (``ClinicSQL``).
///
/// Every patient has `sessionCount / patientCount` completed sessions (round-robin),
/// each with one diagnosis (an ICD-11 snapshot with a Spanish title). Timestamps are
/// fixed so both sides store the very same rows; the raw side's derived columns
/// (`sort_key`, the search index's tokens) are computed before its clock starts,
/// since computing them is part of MedVault's Swift layer.
struct ClinicData: Sendable {
    let patients: [Patient]
    let sessions: [ClinicalSession]
    let diagnoses: [Diagnosis]

    /// The generated rows the domain values were made from (the peers' input).
    let source: BenchmarkDataset
    /// The dataset order and W1's chunks.
    let order: DatasetOrder

    /// The sort key and search-index tokens of each patient, for the raw side.
    let sortKeys: [String]
    let searchTokens: [[String]]
    /// The note-search document of each session (its notes' folded words), for the raw side.
    let noteWords: [String]

    /// Every row the repositories write (the search-index rows not counted).
    var rowCount: Int { patients.count + sessions.count + diagnoses.count }

    /// The instant every stored row carries as `createdAt`/`updatedAt`.
    static let stamp = Date(millisecondsSince1970: 1_704_067_200_000) // 2024-01-01

    init(patientCount: Int, sessionCount: Int, seed: UInt64) {
        let source = BenchmarkDataset(patientCount: patientCount, sessionCount: sessionCount, seed: seed)
        var patients: [Patient] = []
        patients.reserveCapacity(source.patients.count)
        for row in source.patients {
            var patient = Patient(id: row.id.uuid, firstName: row.firstName, lastName: row.lastName,
                                  dateOfBirth: (try? CalendarDate(iso8601: row.birthDate))
                                      ?? CalendarDate(dayNumber: 0))
            patient.createdAt = Self.stamp
            patient.updatedAt = Self.stamp
            patient.version = 1
            patients.append(patient)
        }
        var sessions: [ClinicalSession] = []
        sessions.reserveCapacity(source.sessions.count)
        for row in source.sessions {
            var session = ClinicalSession(id: row.id.uuid, patientID: row.patientID.uuid,
                                          date: Date(millisecondsSince1970: row.startsAt), type: .inPerson,
                                          durationMinutes: 50, status: .completed, notes: row.notes)
            session.createdAt = Self.stamp
            session.updatedAt = Self.stamp
            session.version = 1
            sessions.append(session)
        }
        var diagnoses: [Diagnosis] = []
        diagnoses.reserveCapacity(source.diagnoses.count)
        for (index, row) in source.diagnoses.enumerated() {
            let snapshot = ICD11Snapshot(code: row.code, title: row.title, titleEs: row.title,
                                         uri: "http://id.who.int/icd/release/11/mms/\(row.code)",
                                         releaseVersion: "2024-01")
            var diagnosis = Diagnosis(id: row.id.uuid, sessionID: row.sessionID.uuid, snapshot: snapshot,
                                      diagnosisType: .principal,
                                      diagnosedAt: Date(millisecondsSince1970: source.sessions[index].startsAt))
            diagnosis.createdAt = Self.stamp
            diagnosis.updatedAt = Self.stamp
            diagnosis.version = 1
            diagnoses.append(diagnosis)
        }
        self.patients = patients
        self.sessions = sessions
        self.diagnoses = diagnoses
        self.source = source
        self.order = DatasetOrder(source)
        self.sortKeys = patients.map(\.sortKey)
        self.searchTokens = patients.map(Self.searchTokens(of:))
        // `SessionNoteIndex.words(of:)`: each folded word once, in order of first use.
        self.noteWords = sessions.map { session in
            var seen = Set<[UInt8]>()
            return SearchText.tokens(of: session.notes ?? "").filter { seen.insert(Array($0.utf8)).inserted }
                .joined(separator: " ")
        }
    }

    /// A patient's search-index rows: the distinct folded tokens of its searchable fields.
    static func searchTokens(of patient: Patient) -> [String] {
        var seen = Set<String>()
        return patient.searchTokens.filter {
            seen.insert($0).inserted
        }
    }

    /// The number of search-index rows of all patients.
    var searchTokenCount: Int { searchTokens.reduce(0) { $0 + $1.count } }
}
