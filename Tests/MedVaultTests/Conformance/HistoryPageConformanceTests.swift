import Foundation
import MedVaultCore
import MedVaultTestSupport
import Testing

/// A history page reads the diagnoses, signatures and addenda of all its sessions at
/// once (SQLCipher: one query each for the page); each entry must still carry exactly
/// its own session's records, in their order, as `entry(_:)` reads them one by one.
@Suite("Session history page conformance")
struct HistoryPageConformanceTests {
    typealias F = ClinicalFixtures

    static func at(hours: Double) -> Date { F.now.addingTimeInterval(hours * 3600) }

    /// Eight sessions of one patient, two per date (so pages of 3 split a same-date
    /// pair), each with 0–2 diagnoses (two sharing a date, created in descending id
    /// order), every other one signed with 1–2 addenda; and another patient's session
    /// on the same dates with records of its own, which must never show up.
    @Test(arguments: ClinicalBackend.all)
    func everyEntryCarriesItsOwnRecords(backend: ClinicalBackend) async throws {
        let repos = try await F.make(backend)
        try await repos.professional.save(SigningConformanceTests.professional)
        let patient = try await repos.patients.create(F.patient())
        let other = try await repos.patients.create(F.patient("Otro", "Paciente"))
        var created: [ClinicalSession] = []
        for index in 0..<8 {
            let date = Self.at(hours: -24 * Double(index / 2))
            let session = try await repos.sessions.create(ClinicalSession(patientID: patient.id, date: date))
            created.append(session)
            // Two diagnoses on one date: ordered by id, whatever the order written.
            let ids = [UUID(), UUID()].sorted { $0.uuidString > $1.uuidString }
            for (offset, id) in ids.prefix(index % 3).enumerated() {
                try await repos.diagnoses.create(Diagnosis(
                    id: id, sessionID: session.id, snapshot: offset == 0 ? F.snapshot : F.otherSnapshot,
                    diagnosedAt: date))
            }
            if index.isMultiple(of: 2) {
                try await repos.sessions.sign(session.id, version: session.version)
                for number in 0...(index / 2 % 2) {
                    _ = try await repos.sessions.addAddendum(to: session.id, reason: "Corrección \(number)",
                                                         text: "Sesión \(index)")
                }
            }
            let neighbour = try await repos.sessions.create(ClinicalSession(patientID: other.id, date: date))
            try await repos.diagnoses.create(Diagnosis(sessionID: neighbour.id, snapshot: F.snapshot, diagnosedAt: date))
            try await repos.sessions.sign(neighbour.id, version: neighbour.version)
            _ = try await repos.sessions.addAddendum(to: neighbour.id, reason: "Otro", text: "Otro paciente")
        }

        var entries: [SessionHistoryEntry] = []
        var page = try await repos.sessions.history(of: patient.id, after: nil, limit: 3)
        entries += page.entries
        while let cursor = page.nextCursor {
            page = try await repos.sessions.history(of: patient.id, after: cursor, limit: 3)
            #expect(page.entries.count <= 3)
            entries += page.entries
        }
        #expect(Set(entries.map(\.session.id)) == Set(created.map(\.id)))
        #expect(entries.count == 8)
        for entry in entries {
            #expect(try await repos.sessions.entry(entry.session.id) == entry)
        }
        let expectedDiagnoses = (0..<8).map { (index: Int) in index % 3 }.reduce(0, +)
        #expect(entries.map(\.diagnoses.count).reduce(0, +) == expectedDiagnoses)
        #expect(entries.filter { $0.signature != nil }.count == 4)
        #expect(entries.map(\.addenda.count).reduce(0, +) == 6)
        let paired = try #require(entries.first { $0.diagnoses.count == 2 })
        #expect(paired.diagnoses.map(\.id.uuidString) == paired.diagnoses.map(\.id.uuidString).sorted())
        for entry in entries {
            let id = entry.session.id
            #expect(entry.addenda.allSatisfy { (addendum: SessionAddendum) in addendum.sessionID == id })
            #expect(!entry.addenda.contains { (addendum: SessionAddendum) in addendum.reason == "Otro" })
            #expect(entry.diagnoses.allSatisfy { (diagnosis: Diagnosis) in diagnosis.sessionID == id })
            #expect(entry.signature?.sessionID ?? id == id)
        }
    }

    /// Signed sessions with and without addenda, and an unsigned one, on pages of every
    /// size up to `Int.max`: each entry carries exactly its own signature and addenda. A
    /// patient without sessions, or a cursor past the last one, gives an empty page, not
    /// `notFound`.
    @Test(arguments: ClinicalBackend.all)
    func signaturesAndAddendaFollowTheirSessionOnEveryPage(backend: ClinicalBackend) async throws {
        let repos = try await F.make(backend)
        try await repos.professional.save(SigningConformanceTests.professional)
        let patient = try await repos.patients.create(F.patient())
        var sessions: [ClinicalSession] = []
        for (hours, signed, addenda) in [(-3.0, true, 2), (-2, true, 0), (-1, false, 0), (0, true, 0)] {
            let session = try await repos.sessions.create(ClinicalSession(patientID: patient.id,
                                                                          date: Self.at(hours: hours)))
            if signed { try await repos.sessions.sign(session.id, version: session.version) }
            for number in 0..<addenda {
                _ = try await repos.sessions.addAddendum(to: session.id, reason: "Corrección \(number)", text: "Nota")
            }
            sessions.append(session)
        }
        for limit in [1, 2, 3, 4, 5, .max] {
            var entries: [SessionHistoryEntry] = []
            var page = try await repos.sessions.history(of: patient.id, after: nil, limit: limit)
            entries += page.entries
            while let cursor = page.nextCursor {
                page = try await repos.sessions.history(of: patient.id, after: cursor, limit: limit)
                entries += page.entries
            }
            #expect(entries.map(\.session.id) == sessions.reversed().map(\.id), "limit \(limit)")
            for entry in entries {
                #expect(try await repos.sessions.entry(entry.session.id) == entry, "limit \(limit)")
            }
            #expect(entries.map { $0.signature != nil } == [true, false, true, true], "limit \(limit)")
            #expect(entries.map(\.addenda.count) == [0, 0, 0, 2], "limit \(limit)")
        }
        let past = try await repos.sessions.history(of: patient.id, after: SessionHistoryCursor(after: sessions[0]),
                                                    limit: 5)
        #expect(past.entries.isEmpty && past.nextCursor == nil)
        let newcomer = try await repos.patients.create(F.patient("Nuevo", "Paciente"))
        let none = try await repos.sessions.history(of: newcomer.id, after: nil, limit: 5)
        #expect(none.entries.isEmpty && none.nextCursor == nil)
        await expectMedVaultError(.notFound, field: "patientID") {
            try await repos.sessions.history(of: UUID(), after: SessionHistoryCursor(after: sessions[0]), limit: 5)
        }
    }

    /// A page of one session whose neighbour in history order shares its date and has
    /// records: the page's span (date, then id) includes the one and not the other.
    @Test(arguments: ClinicalBackend.all)
    func aPageOfOneKeepsItsSameDateNeighboursRecordsOut(backend: ClinicalBackend) async throws {
        let repos = try await F.make(backend)
        let patient = try await repos.patients.create(F.patient())
        var sessions: [ClinicalSession] = []
        for _ in 0..<3 {
            let session = try await repos.sessions.create(ClinicalSession(patientID: patient.id, date: F.now))
            try await repos.diagnoses.create(Diagnosis(sessionID: session.id, snapshot: F.snapshot, diagnosedAt: F.now))
            sessions.append(session)
        }
        var page = try await repos.sessions.history(of: patient.id, after: nil, limit: 1)
        var seen: [UUID] = []
        while true {
            let entry = try #require(page.entries.first)
            #expect(page.entries.count == 1)
            #expect(entry.diagnoses.map(\.sessionID) == [entry.session.id])
            seen.append(entry.session.id)
            guard let cursor = page.nextCursor else { break }
            page = try await repos.sessions.history(of: patient.id, after: cursor, limit: 1)
        }
        #expect(seen == sessions.map(\.id).sorted { $0.uuidString > $1.uuidString })
    }
}
