import BenchmarkSupport
import Foundation
import MedVault
import MedVaultCore

/// W7 — full-text search of session notes (issue #38), and the write cost of its index.
///
/// Each query is one word (5 letters or more) of a random session's ≈600-character
/// notes, folded ("conciliacion"), with that session's patient. The generated notes
/// draw from 15 sentences, so a word is in roughly a third of all sessions: the
/// practice-wide search is the worst case for an index whose cost follows its matches.
///
/// - One patient: `sessions.searchNotes(word, patientID:, after: nil, limit: 20)`
///   (the patient's sessions read newest first, each matched by `SearchText`) against
///   the same statement and matching through raw C.
/// - The practice: `searchNotes(word, patientID: nil, …)` (the FTS4 index, the matching
///   sessions sorted) against the same statement through raw C.
/// - Writing: raw C inserts the same sessions into two fresh files, with and without
///   their note documents (`SessionNoteIndex`'s two statements): the ratio is what the
///   index adds to a bulk insert of sessions.
struct NoteSearchWorkload: Workload {
    let id = "W7"
    let title = "note search"

    static let limit = 20

    func run(in context: BenchmarkContext) async throws -> [Measurement] {
        let clinic = try await ReadFixtures.shared.clinic(patientCount: context.scaled(10_000, minimum: 1_000),
                                                          context: context)
        let queries = Self.queries(clinic, count: context.scaled(1_000, minimum: 100), context: context)
        let scoped = try await Self.measure(clinic, queries: queries, scoped: true)
        let practice = try await Self.measure(clinic, queries: Array(queries.prefix(max(50, queries.count / 5))),
                                              scoped: false)
        let writes = try await Self.measureWrites(clinic, context: context)
        let sessions = clinic.data.sessions.count
        return [
            Measurement(label: "W7 note search, one patient, \(sessions)-session clinic p50", referenceLabel: "raw C",
                        medVault: Statistics.p50(scoped.medVault), reference: Statistics.p50(scoped.reference),
                        unit: .microseconds, target: 1.5,
                        note: "searchNotes(word, patientID:, limit: 20): the patient's sessions newest first, "
                            + "each matched by SearchText; raw C: the same statement and matching")
                .with(plain: nil, grdb: nil),
            Measurement(label: "W7 note search, whole practice, \(sessions)-session clinic p50",
                        referenceLabel: "raw C",
                        medVault: Statistics.p50(practice.medVault), reference: Statistics.p50(practice.reference),
                        unit: .microseconds, target: 1.5,
                        note: String(format: "searchNotes(word, patientID: nil, limit: 20): FTS4 MATCH, joined, "
                            + "sorted newest first; %.0f matches per query on average (a third of the sessions)",
                            practice.matches))
                .with(plain: nil, grdb: nil),
            Measurement(label: "W7 session bulk insert with the note index ÷ without (\(writes.count) sessions)",
                        referenceLabel: "raw C without", medVault: writes.with, reference: writes.without,
                        unit: .rowsPerSecond, target: nil,
                        note: "both raw C, the same rows; the ratio is the write cost the index adds")
                .with(plain: nil, grdb: nil),
        ]
    }

    struct Query: Sendable {
        let word: String
        let patientID: UUID
    }

    /// A word of 5 letters or more from a random session's notes, with its patient.
    static func queries(_ clinic: ReadFixtures.Clinic, count: Int, context: BenchmarkContext) -> [Query] {
        var rng = SplitMix64(seed: context.seed).fork(0x5737)
        return (0..<count).map { _ in
            let index = Int.random(in: 0..<clinic.data.sessions.count, using: &rng)
            let words = clinic.data.noteWords[index].split(separator: " ").filter { $0.count >= 5 }
            let word = words.isEmpty ? "sesion" : String(words[Int.random(in: 0..<words.count, using: &rng)])
            return Query(word: word, patientID: clinic.data.sessions[index].patientID)
        }
    }

    static func measure(_ clinic: ReadFixtures.Clinic, queries: [Query], scoped: Bool) async throws
        -> (medVault: [Double], reference: [Double], matches: Double)
    {
        let pool = try await ReadFixtures.openPool(clinic)
        let sessions = SQLCipherClinicalSessionRepository(pool: pool)
        let raw = try RawSQLCipher(path: clinic.url.path, key: .raw(clinic.key), role: .reader)
        let search = try RawNoteSearch(raw)
        var medVaultRows = 0
        var rawRows = 0
        let result = try await Alternating.measure(queries, warmUps: 20, medVault: { query in
            medVaultRows += try await sessions.searchNotes(query.word, patientID: scoped ? query.patientID : nil,
                                                           after: nil, limit: limit).sessions.count
        }, reference: { query in
            rawRows += scoped ? try search.patient(query.patientID, word: query.word, limit: limit)
                : try search.practice(word: query.word, limit: limit)
        })
        await pool.close()
        let matches = try queries.reduce(0) { $0 + (try search.matches($1.word)) }
        guard medVaultRows == rawRows, medVaultRows > 0 else {
            throw BenchmarkError("W7: MedVault found \(medVaultRows) sessions, raw C \(rawRows)")
        }
        return (result.medVault, result.reference, Double(matches) / Double(queries.count))
    }

    /// Sessions per second inserted by raw C into fresh files, with and without documents.
    static func measureWrites(_ clinic: ReadFixtures.Clinic, context: BenchmarkContext) async throws
        -> (with: Double, without: Double, count: Int)
    {
        let schema = try await ClinicFixture.capture(in: context)
        let patients = Array(0..<min(clinic.data.patients.count, context.scaled(2_000, minimum: 200)))
        let wanted = Set(patients.map { clinic.data.patients[$0].id })
        let sessions = clinic.data.sessions.indices.filter { wanted.contains(clinic.data.sessions[$0].patientID) }
        var rates: (with: [Double], without: [Double]) = ([], [])
        for round in 0..<3 {
            for withIndex in (round.isMultiple(of: 2) ? [true, false] : [false, true]) {
                let url = context.databaseURL("notes-\(round)-\(withIndex).db")
                let seconds = try RawNoteSearch.insertSessions(clinic, patients: patients, sessions: sessions,
                                                              withDocuments: withIndex, at: url, schema: schema)
                let rate = Double(sessions.count) / seconds
                if withIndex { rates.with.append(rate) } else { rates.without.append(rate) }
                try? FileManager.default.removeItem(at: url)
            }
        }
        return (Statistics.median(rates.with), Statistics.median(rates.without), sessions.count)
    }
}
