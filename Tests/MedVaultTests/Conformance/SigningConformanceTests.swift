import Foundation
import MedVaultCore
import MedVaultTestSupport
import Testing

/// Signed sessions and addenda (issue #18): the same behaviour on every backend.
@Suite("Session signing conformance")
struct SigningConformanceTests {
    typealias F = ClinicalFixtures

    static let professional = Professional(fullName: "Dra. Ana Ruiz", licenseNumber: "M-12345", specialty: "Psiquiatría")

    struct Signable {
        let repos: ClinicalRepositories
        let clock: SteppingClock
        let session: ClinicalSession
        let diagnosis: Diagnosis
    }

    /// A professional, a patient, a scheduled session with every signed field, and a
    /// diagnosis with clinical notes.
    static func signable(_ backend: ClinicalBackend, professional: Bool = true) async throws -> Signable {
        let clock = SteppingClock()
        let repos = try await F.make(backend, clock: clock)
        if professional { try await repos.professional.save(Self.professional) }
        let patient = try await repos.patients.create(F.patient())
        let session = try await repos.sessions.create(ClinicalSession(
            patientID: patient.id, date: F.now, notes: "Notas\ncon línea", chiefComplaint: "Insomnio",
            treatmentPlan: "TCC-I"))
        let diagnosis = try await repos.diagnoses.create(
            Diagnosis(sessionID: session.id, snapshot: F.snapshot, clinicalNotes: "Episodio leve", diagnosedAt: F.now))
        return Signable(repos: repos, clock: clock, session: session, diagnosis: diagnosis)
    }

    @Test(arguments: ClinicalBackend.all)
    func unsignedSessionStaysEditable(backend: ClinicalBackend) async throws {
        let s = try await Self.signable(backend)
        var edited = s.session
        edited.notes = "Otra nota"
        edited.chiefComplaint = nil
        let updated = try await s.repos.sessions.update(edited)
        #expect(updated.notes == "Otra nota")
        var diagnosis = s.diagnosis
        diagnosis.clinicalNotes = "Corregido"
        #expect(try await s.repos.diagnoses.update(diagnosis).clinicalNotes == "Corregido")
        let entry = try await s.repos.sessions.entry(s.session.id)
        #expect(entry.signature == nil)
        #expect(entry.addenda.isEmpty)
        #expect(try await s.repos.sessions.verifySignature(of: s.session.id) == .unsigned)
    }

    @Test(arguments: ClinicalBackend.all)
    func signRecordsWhoWhenAndTheContentHash(backend: ClinicalBackend) async throws {
        let s = try await Self.signable(backend)
        await expectMedVaultError(.notFound) { try await s.repos.sessions.sign(UUID(), version: 1) }
        await expectMedVaultError(.conflict) { try await s.repos.sessions.sign(s.session.id, version: 7) }
        #expect(try await s.repos.sessions.entry(s.session.id).signature == nil)

        let signature = try await s.repos.sessions.sign(s.session.id, version: s.session.version)
        let stored = try #require(try await s.repos.professional.get())
        #expect(signature.sessionID == s.session.id)
        #expect(signature.professionalID == stored.id)
        #expect(signature.professionalName == "Dra. Ana Ruiz")
        #expect(signature.licenseNumber == "M-12345")
        #expect(signature.signedAt == s.clock.current)
        #expect(signature.encodingVersion == 1)
        #expect(signature.contentSHA256
                == SessionSigningContent(session: s.session, diagnoses: [s.diagnosis]).sha256)
        #expect(try await s.repos.sessions.entry(s.session.id).signature == signature)
        #expect(try await s.repos.sessions.verifySignature(of: s.session.id) == .verified)
        await expectMedVaultError(.immutable, field: "signature") {
            try await s.repos.sessions.sign(s.session.id, version: s.session.version)
        }
        #expect(try await s.repos.sessions.entry(s.session.id).signature == signature)
    }

    @Test(arguments: ClinicalBackend.all)
    func signedContentIsImmutableThroughTheAPI(backend: ClinicalBackend) async throws {
        let s = try await Self.signable(backend)
        try await s.repos.sessions.sign(s.session.id, version: s.session.version)
        let edits: [(String, (inout ClinicalSession) -> Void)] = [
            ("notes", { $0.notes = F.marker }),
            ("notes", { $0.notes = nil }),
            ("chiefComplaint", { $0.chiefComplaint = F.marker }),
            ("treatmentPlan", { $0.treatmentPlan = F.marker }),
        ]
        for (field, edit) in edits {
            var changed = s.session
            edit(&changed)
            await expectMedVaultError(.immutable, field: field) { try await s.repos.sessions.update(changed) }
        }
        #expect(try await s.repos.sessions.get(s.session.id) == s.session)

        var notes = s.diagnosis
        notes.clinicalNotes = F.marker
        await expectMedVaultError(.immutable, field: "clinicalNotes") { try await s.repos.diagnoses.update(notes) }
        await expectMedVaultError(.immutable, field: "sessionID") {
            try await s.repos.diagnoses.create(
                Diagnosis(sessionID: s.session.id, snapshot: F.otherSnapshot, diagnosedAt: F.now))
        }
        await expectMedVaultError(.immutable, field: "signature") { try await s.repos.sessions.delete(s.session.id) }
        #expect(try await s.repos.diagnoses.list(sessionID: s.session.id) == [s.diagnosis])

        // What the signature does not cover still changes: status, length, severity.
        var completed = s.session
        completed.status = .completed
        completed.durationMinutes = 30
        #expect(try await s.repos.sessions.update(completed).version == s.session.version + 1)
        var severity = s.diagnosis
        severity.severity = .severe
        #expect(try await s.repos.diagnoses.update(severity).severity == .severe)
        #expect(try await s.repos.sessions.verifySignature(of: s.session.id) == .verified)
    }

    @Test(arguments: ClinicalBackend.all)
    func addendaAreAppendedAndListedInOrder(backend: ClinicalBackend) async throws {
        let s = try await Self.signable(backend)
        await expectMedVaultError(.validation, field: "sessionID") {
            try await s.repos.sessions.addAddendum(to: s.session.id, reason: "Corrección", text: F.marker)
        }
        await expectMedVaultError(.notFound) {
            try await s.repos.sessions.addAddendum(to: UUID(), reason: "Corrección", text: "x")
        }
        try await s.repos.sessions.sign(s.session.id, version: s.session.version)
        let first = try await s.repos.sessions.addAddendum(to: s.session.id, reason: "Corrección de dosis",
                                                           text: "Sertralina 50 mg, no 100 mg.")
        let second = try await s.repos.sessions.addAddendum(to: s.session.id, reason: "Entrada tardía",
                                                            text: "Llamó el paciente.\nSin cambios.")
        #expect(first.authorName == "Dra. Ana Ruiz")
        #expect(first.sessionID == s.session.id)
        #expect(second.createdAt > first.createdAt)
        for (reason, text, field) in [(" ", F.marker, "reason"), (F.marker, "\n ", "text"),
                                      (String(repeating: "x", count: 1_001) + F.marker, "t", "reason"),
                                      ("a\u{7}" + F.marker, "t", "reason")] {
            await expectMedVaultError(.validation, field: field) {
                try await s.repos.sessions.addAddendum(to: s.session.id, reason: reason, text: text)
            }
        }
        let entry = try await s.repos.sessions.entry(s.session.id)
        #expect(entry.addenda == [first, second])
        let history = try await s.repos.sessions.history(of: s.session.patientID, after: nil, limit: 10)
        #expect(history.entries.first?.addenda == [first, second])
        #expect(history.entries.first?.signature == entry.signature)
        #expect(history.entries.first?.signatureCheck == .verified)
    }

    @Test(arguments: ClinicalBackend.all)
    func signingNeedsTheVaultsProfessional(backend: ClinicalBackend) async throws {
        let s = try await Self.signable(backend, professional: false)
        await expectMedVaultError(.notFound, field: "professional") {
            try await s.repos.sessions.sign(s.session.id, version: s.session.version)
        }
        #expect(try await s.repos.sessions.entry(s.session.id).signature == nil)
        var edited = s.session
        edited.notes = "Sigue editable"
        #expect(try await s.repos.sessions.update(edited).notes == "Sigue editable")
    }

    @Test(arguments: ClinicalBackend.all)
    func signingCanBeRequiredBeforeCompletion(backend: ClinicalBackend) async throws {
        let s = try await Self.signable(backend)
        #expect(try await s.repos.sessions.signatureRequiredForCompletion() == false)
        try await s.repos.sessions.setSignatureRequiredForCompletion(true)
        #expect(try await s.repos.sessions.signatureRequiredForCompletion() == true)

        var completed = s.session
        completed.status = .completed
        await expectMedVaultError(.validation, field: "signature") { try await s.repos.sessions.update(completed) }
        #expect(try await s.repos.sessions.get(s.session.id).status == .scheduled)
        await expectMedVaultError(.validation, field: "signature") {
            try await s.repos.sessions.create(
                ClinicalSession(patientID: s.session.patientID, date: F.now, status: .completed))
        }
        #expect(try await s.repos.sessions.count() == 1)
        // A missing patient is reported first, as without the setting.
        await expectMedVaultError(.notFound, field: "patientID") {
            try await s.repos.sessions.create(ClinicalSession(patientID: UUID(), date: F.now, status: .completed))
        }

        try await s.repos.sessions.sign(s.session.id, version: s.session.version)
        #expect(try await s.repos.sessions.update(completed).status == .completed)

        try await s.repos.sessions.setSignatureRequiredForCompletion(false)
        let unsigned = try await s.repos.sessions.create(
            ClinicalSession(patientID: s.session.patientID, date: F.now, status: .completed))
        #expect(unsigned.status == .completed)
    }
}
