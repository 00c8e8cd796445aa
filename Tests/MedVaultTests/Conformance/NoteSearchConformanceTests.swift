import Foundation
import MedVaultCore
import MedVaultTestSupport
import Testing

/// Full-text search of sessions' clinical text (issue #38): the same results on every
/// backend, the SQL index against the in-memory store's `SearchText` rule.
@Suite("Note search conformance")
struct NoteSearchConformanceTests {
    typealias F = ClinicalFixtures

    struct Practice {
        let repos: ClinicalRepositories
        let ana: Patient, luis: Patient
        /// Ana's sessions, oldest first: notes "Insomnio…", chief complaint, plan, nothing.
        let anaNotes: ClinicalSession, anaComplaint: ClinicalSession, anaPlan: ClinicalSession, anaEmpty: ClinicalSession
        let luisNotes: ClinicalSession
    }

    static func practice(_ backend: ClinicalBackend) async throws -> Practice {
        let repos = try await F.make(backend)
        try await repos.professional.save(SigningConformanceTests.professional)
        let ana = try await repos.patients.create(F.patient("Ana", "Ruiz"))
        let luis = try await repos.patients.create(F.patient("Luis", "Gómez"))
        let day: TimeInterval = 86_400
        let anaNotes = try await repos.sessions.create(ClinicalSession(
            patientID: ana.id, date: F.now, notes: "Insomnio de conciliación; rumiación nocturna."))
        let anaComplaint = try await repos.sessions.create(ClinicalSession(
            patientID: ana.id, date: F.now.addingTimeInterval(day), chiefComplaint: "Ansiedad y INSOMNIO"))
        let anaPlan = try await repos.sessions.create(ClinicalSession(
            patientID: ana.id, date: F.now.addingTimeInterval(2 * day), treatmentPlan: "Higiene del sueño, TCC-I"))
        let anaEmpty = try await repos.sessions.create(ClinicalSession(
            patientID: ana.id, date: F.now.addingTimeInterval(3 * day)))
        let luisNotes = try await repos.sessions.create(ClinicalSession(
            patientID: luis.id, date: F.now.addingTimeInterval(4 * day), notes: "Refiere insomnio desde la mudanza."))
        return Practice(repos: repos, ana: ana, luis: luis, anaNotes: anaNotes, anaComplaint: anaComplaint,
                        anaPlan: anaPlan, anaEmpty: anaEmpty, luisNotes: luisNotes)
    }

    static func ids(_ page: SessionSearchPage) -> [UUID] { page.sessions.map(\.id) }

    @Test(arguments: ClinicalBackend.all)
    func findsWordsInEveryTextCaseAndAccentInsensitively(backend: ClinicalBackend) async throws {
        let p = try await Self.practice(backend)
        let search = { (query: String, patient: UUID?) in
            Self.ids(try await p.repos.sessions.searchNotes(query, patientID: patient, after: nil, limit: 50))
        }
        // Newest first.
        #expect(try await search("insomnio", nil) == [p.luisNotes.id, p.anaComplaint.id, p.anaNotes.id])
        #expect(try await search("insomnio", p.ana.id) == [p.anaComplaint.id, p.anaNotes.id])
        #expect(try await search("insomnio", p.luis.id) == [p.luisNotes.id])
        #expect(try await search("INSOM", p.ana.id) == [p.anaComplaint.id, p.anaNotes.id])
        #expect(try await search("rumiacion", nil) == [p.anaNotes.id], "accents fold")
        #expect(try await search("SUEÑO", nil) == [p.anaPlan.id])
        #expect(try await search("tcc", nil) == [p.anaPlan.id])
        #expect(try await search("ansiedad insomnio", nil) == [p.anaComplaint.id], "every word, any field")
        #expect(try await search("ansiedad mudanza", nil).isEmpty)
        #expect(try await search("omnio", nil).isEmpty, "a word's prefix, not a substring")
        #expect(try await search("  ;-- ", nil).isEmpty, "no letter or digit: nothing")
        #expect(try await search("insomnio OR ansiedad", nil).isEmpty, "operators are words")
        #expect(try await search("\"insomnio\" -mudanza* (desde)", nil) == [p.luisNotes.id], "FTS syntax is only text")
        // A hostile query: thousands of words, repeated. The first 32 distinct ones count.
        let long = Array(repeating: "insomnio desde", count: 3_000).joined(separator: " ")
            + " " + (0..<40).map { "w\($0)" }.joined(separator: " ")
        #expect(try await search(long, nil).isEmpty, "w0…w29 are words of no note")
        #expect(try await search(long + " mudanza", nil).isEmpty)
        let capped = (0..<30).map { _ in "insomnio" }.joined(separator: " ") + " desde " + (0..<40).map { "w\($0)" }.joined(separator: " ")
        #expect(try await search(capped, nil).isEmpty)
        let distinct = "insomnio desde " + Array(repeating: "refiere", count: 5_000).joined(separator: " ")
        #expect(try await search(distinct, nil) == [p.luisNotes.id])
    }

    @Test(arguments: ClinicalBackend.all)
    func followsEditsAddendaAndDeletes(backend: ClinicalBackend) async throws {
        let p = try await Self.practice(backend)
        let search = { (query: String) in
            Self.ids(try await p.repos.sessions.searchNotes(query, patientID: nil, after: nil, limit: 50))
        }
        var edited = p.anaEmpty
        edited.notes = "Pesadillas recurrentes"
        edited = try await p.repos.sessions.update(edited)
        #expect(try await search("pesadillas") == [p.anaEmpty.id])
        edited.notes = "Sin novedad"
        edited.status = .completed
        edited = try await p.repos.sessions.update(edited)
        #expect(try await search("pesadillas").isEmpty, "the old text leaves the index")
        #expect(try await search("novedad") == [p.anaEmpty.id])

        _ = try await p.repos.sessions.sign(edited.id, version: edited.version)
        _ = try await p.repos.sessions.addAddendum(to: edited.id, reason: "Corrección", text: "Añade bruxismo")
        #expect(try await search("bruxismo") == [p.anaEmpty.id])
        #expect(try await search("correccion novedad") == [p.anaEmpty.id], "the session's text and its addenda")

        try await p.repos.sessions.delete(p.luisNotes.id)
        #expect(try await search("mudanza").isEmpty)
        #expect(try await search("insomnio") == [p.anaComplaint.id, p.anaNotes.id])
    }

    @Test(arguments: ClinicalBackend.all)
    func pagesWithTheHistoryCursor(backend: ClinicalBackend) async throws {
        let p = try await Self.practice(backend)
        var seen: [UUID] = []
        var cursor: SessionHistoryCursor?
        repeat {
            let page = try await p.repos.sessions.searchNotes("insomnio", patientID: nil, after: cursor, limit: 2)
            #expect(page.sessions.count <= 2)
            seen += Self.ids(page)
            cursor = page.nextCursor
        } while cursor != nil
        #expect(seen == [p.luisNotes.id, p.anaComplaint.id, p.anaNotes.id])
        let first = try await p.repos.sessions.searchNotes("insomnio", patientID: nil, after: nil, limit: 3)
        #expect(first.nextCursor == nil, "a page holding the last match has no cursor")
    }

    @Test(arguments: ClinicalBackend.all)
    func refusesBadArguments(backend: ClinicalBackend) async throws {
        let p = try await Self.practice(backend)
        await expectMedVaultError(.notFound, field: "patientID") {
            _ = try await p.repos.sessions.searchNotes("insomnio", patientID: UUID(), after: nil, limit: 5)
        }
        await expectMedVaultError(.invalidArgument) {
            _ = try await p.repos.sessions.searchNotes("insomnio", patientID: nil, after: nil, limit: 0)
        }
        await expectMedVaultError(.invalidArgument) {
            _ = try await p.repos.sessions.searchNotes("", patientID: p.ana.id, after: nil, limit: 0)
        }
    }
}
