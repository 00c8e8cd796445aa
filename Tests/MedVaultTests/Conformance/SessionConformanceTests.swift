import Foundation
import MedVaultCore
import MedVaultTestSupport
import Testing

/// Clinical sessions: rules, history (newest first, with diagnoses) and agenda.
@Suite("Clinical session repository conformance")
struct SessionConformanceTests {
    typealias F = ClinicalFixtures

    static func at(hours: Double) -> Date { F.now.addingTimeInterval(hours * 3600) }

    @Test(arguments: ClinicalBackend.all)
    func createReadUpdate(backend: ClinicalBackend) async throws {
        let repos = try await F.make(backend)
        let patient = try await repos.patients.create(F.patient())
        let date = Date(timeIntervalSince1970: 1_749_981_600.123_456)
        let input = ClinicalSession(patientID: patient.id, date: date, type: .video, notes: "Notas",
                                    chiefComplaint: "Insomnio", treatmentPlan: " ")
        let created = try await repos.sessions.create(input)
        #expect(created.version == 1)
        #expect(created.durationMinutes == 50)
        #expect(created.status == .scheduled)
        #expect(created.type == .video)
        #expect(created.date.millisecondsSince1970 == 1_749_981_600_123)
        #expect(created.treatmentPlan == nil)
        #expect(try await repos.sessions.get(input.id) == created)

        var edited = created
        edited.status = .completed
        edited.notes = "Notas ampliadas"
        edited.type = SessionType(rawValue: "x-home-visit")
        let updated = try await repos.sessions.update(edited)
        #expect(updated.version == 2)
        #expect(updated.updatedAt > created.updatedAt)
        #expect(try await repos.sessions.get(input.id) == updated)
        #expect(try await repos.sessions.get(input.id).type.rawValue == "x-home-visit")

        await expectMedVaultError(.conflict) { try await repos.sessions.update(created) }
        var moved = updated
        moved.patientID = try await repos.patients.create(F.patient("Otra", "Persona")).id
        await expectMedVaultError(.immutable, field: "patientID") { try await repos.sessions.update(moved) }
        var reopened = updated
        reopened.status = .scheduled
        await expectMedVaultError(.immutable, field: "status") { try await repos.sessions.update(reopened) }
        #expect(try await repos.sessions.get(input.id) == updated)
        await expectMedVaultError(.notFound) { try await repos.sessions.get(UUID()) }
        await expectMedVaultError(.notFound) {
            try await repos.sessions.update(ClinicalSession(patientID: patient.id, date: F.now))
        }
        await expectMedVaultError(.duplicate) {
            try await repos.sessions.create(ClinicalSession(id: created.id, patientID: patient.id, date: F.now))
        }
    }

    @Test(arguments: ClinicalBackend.all)
    func validationAndPatientRules(backend: ClinicalBackend) async throws {
        let repos = try await F.make(backend)
        let patient = try await repos.patients.create(F.patient())
        let cases: [(String, (inout ClinicalSession) -> Void)] = [
            ("type", { $0.type = SessionType(rawValue: "") }),
            ("durationMinutes", { $0.durationMinutes = 0 }),
            ("durationMinutes", { $0.durationMinutes = -5 }),
            ("durationMinutes", { $0.durationMinutes = 1_441 }),
            ("status", { $0.status = SessionStatus(rawValue: "  ") }),
            ("notes", { $0.notes = String(repeating: "n", count: 200_001) }),
        ]
        for (field, breakIt) in cases {
            var input = ClinicalSession(patientID: patient.id, date: F.now)
            breakIt(&input)
            await expectMedVaultError(.validation, field: field) { try await repos.sessions.create(input) }
        }
        await expectMedVaultError(.notFound, field: "patientID") {
            try await repos.sessions.create(ClinicalSession(patientID: UUID(), date: F.now))
        }
        try await repos.patients.deactivate(patient.id)
        await expectMedVaultError(.validation, field: "patientID") {
            try await repos.sessions.create(ClinicalSession(patientID: patient.id, date: F.now))
        }
        #expect(try await repos.sessions.history(of: patient.id, after: nil, limit: 10).entries.isEmpty)
        try await repos.patients.reactivate(patient.id)
        try await repos.sessions.create(ClinicalSession(patientID: patient.id, date: F.now))
        #expect(try await repos.sessions.history(of: patient.id, after: nil, limit: 10).entries.count == 1)
    }

    @Test(arguments: ClinicalBackend.all)
    func cancelAndDeleteRules(backend: ClinicalBackend) async throws {
        let repos = try await F.make(backend)
        let patient = try await repos.patients.create(F.patient())
        let scheduled = try await repos.sessions.create(ClinicalSession(patientID: patient.id, date: Self.at(hours: 24)))
        let completed = try await repos.sessions.create(
            ClinicalSession(patientID: patient.id, date: Self.at(hours: -24), status: .completed))

        let cancelled = try await repos.sessions.cancel(scheduled.id)
        #expect(cancelled.status == .cancelled)
        #expect(cancelled.version == 2)
        #expect(try await repos.sessions.cancel(scheduled.id) == cancelled)
        await expectMedVaultError(.immutable, field: "status") { try await repos.sessions.cancel(completed.id) }
        await expectMedVaultError(.immutable, field: "status") { try await repos.sessions.delete(completed.id) }
        #expect(try await repos.sessions.get(completed.id) == completed)

        let withDiagnosis = try await repos.sessions.create(ClinicalSession(patientID: patient.id, date: Self.at(hours: 1)))
        try await repos.diagnoses.create(Diagnosis(sessionID: withDiagnosis.id, snapshot: F.snapshot, diagnosedAt: F.now))
        await expectMedVaultError(.immutable, field: "diagnoses") { try await repos.sessions.delete(withDiagnosis.id) }

        let attachment = try await repos.attachments.create(
            NewAttachment(sessionID: cancelled.id, fileName: "a.txt", mimeType: "text/plain"), data: Data("x".utf8))
        try await repos.sessions.delete(cancelled.id)
        await expectMedVaultError(.notFound) { try await repos.sessions.get(cancelled.id) }
        await expectMedVaultError(.notFound) { try await repos.attachments.get(attachment.id) }
        await expectMedVaultError(.notFound) { try await repos.sessions.delete(cancelled.id) }
        await expectMedVaultError(.notFound) { try await repos.sessions.cancel(UUID()) }
        let remaining = try await repos.sessions.history(of: patient.id, after: nil, limit: 10).entries.map(\.session.id)
        #expect(remaining == [withDiagnosis.id, completed.id])
    }

    @Test(arguments: ClinicalBackend.all)
    func historyNewestFirstWithDiagnosesAcrossPages(backend: ClinicalBackend) async throws {
        let repos = try await F.make(backend)
        let patient = try await repos.patients.create(F.patient())
        let other = try await repos.patients.create(F.patient("Otro", "Paciente"))
        var sessions: [ClinicalSession] = []
        for day in 0..<12 {
            // Two sessions share each date, so the id tiebreak is exercised.
            let date = Self.at(hours: -24 * Double(day / 2))
            sessions.append(try await repos.sessions.create(
                ClinicalSession(patientID: patient.id, date: date, status: .completed)))
        }
        try await repos.sessions.create(ClinicalSession(patientID: other.id, date: F.now))
        let first = try await repos.diagnoses.create(Diagnosis(
            sessionID: sessions[3].id, snapshot: F.snapshot, diagnosedAt: Self.at(hours: -30)))
        let second = try await repos.diagnoses.create(Diagnosis(
            sessionID: sessions[3].id, snapshot: F.otherSnapshot, diagnosisType: .secondary,
            diagnosedAt: Self.at(hours: -29)))

        var entries: [SessionHistoryEntry] = []
        var page = try await repos.sessions.history(of: patient.id, after: nil, limit: 5)
        entries += page.entries
        while let cursor = page.nextCursor {
            page = try await repos.sessions.history(of: patient.id, after: cursor, limit: 5)
            entries += page.entries
        }
        #expect(entries.count == 12)
        #expect(Set(entries.map(\.session.id)) == Set(sessions.map(\.id)))
        for (a, b) in zip(entries, entries.dropFirst()) {
            #expect(ClinicalSession.newer(a.session.date.millisecondsSince1970, a.session.id,
                                          than: b.session.date.millisecondsSince1970, b.session.id))
            #expect(a.session.date >= b.session.date)
        }
        let withDiagnoses = try #require(entries.first { $0.session.id == sessions[3].id })
        #expect(withDiagnoses.diagnoses == [first, second])
        #expect(entries.filter { !$0.diagnoses.isEmpty }.count == 1)

        await expectMedVaultError(.notFound, field: "patientID") {
            try await repos.sessions.history(of: UUID(), after: nil, limit: 5)
        }
        await expectMedVaultError(.invalidArgument) { try await repos.sessions.history(of: patient.id, after: nil, limit: 0) }
    }

    @Test(arguments: ClinicalBackend.all)
    func agendaIsAHalfOpenRangeAcrossPatients(backend: ClinicalBackend) async throws {
        let repos = try await F.make(backend)
        let ana = try await repos.patients.create(F.patient("Ana", "Ruiz"))
        let bea = try await repos.patients.create(F.patient("Bea", "Soto"))
        let nine = try await repos.sessions.create(ClinicalSession(patientID: bea.id, date: Self.at(hours: -1)))
        let ten = try await repos.sessions.create(ClinicalSession(patientID: ana.id, date: Self.at(hours: 0)))
        let eleven = try await repos.sessions.create(ClinicalSession(patientID: bea.id, date: Self.at(hours: 1), type: .phone))
        try await repos.sessions.create(ClinicalSession(patientID: ana.id, date: Self.at(hours: 2)))
        try await repos.sessions.create(ClinicalSession(patientID: ana.id, date: Self.at(hours: -2)))
        let agenda = try await repos.sessions.agenda(from: Self.at(hours: -1), to: Self.at(hours: 2))
        #expect(agenda.map(\.id) == [nine.id, ten.id, eleven.id])
        #expect(try await repos.sessions.agenda(from: Self.at(hours: 5), to: Self.at(hours: 5)).isEmpty)
        await expectMedVaultError(.invalidArgument) {
            try await repos.sessions.agenda(from: Self.at(hours: 1), to: Self.at(hours: 0))
        }
    }

    @Test(arguments: ClinicalBackend.all)
    func batchCreateIsAllOrNothing(backend: ClinicalBackend) async throws {
        let repos = try await F.make(backend)
        let patient = try await repos.patients.create(F.patient())
        let good = (0..<4).map { ClinicalSession(patientID: patient.id, date: Self.at(hours: Double($0))) }
        let orphan = ClinicalSession(patientID: UUID(), date: F.now)
        await expectMedVaultError(.notFound, field: "patientID") { try await repos.sessions.create(good + [orphan]) }
        #expect(try await repos.sessions.history(of: patient.id, after: nil, limit: 10).entries.isEmpty)
        let stored = try await repos.sessions.create(good)
        #expect(stored.map(\.id) == good.map(\.id))
        #expect(try await repos.sessions.history(of: patient.id, after: nil, limit: 10).entries.count == 4)
    }
}
