import Foundation
import MedVaultCore
import MedVaultTestSupport
import Testing

/// Diagnoses: snapshot validation, immutability, amendable fields, queries.
@Suite("Diagnosis repository conformance")
struct DiagnosisConformanceTests {
    typealias F = ClinicalFixtures

    static func session(_ repos: ClinicalRepositories) async throws -> (Patient, ClinicalSession) {
        let patient = try await repos.patients.create(F.patient())
        let session = try await repos.sessions.create(
            ClinicalSession(patientID: patient.id, date: F.now, status: .completed))
        return (patient, session)
    }

    @Test(arguments: ClinicalBackend.all)
    func createAndReadBackSnapshot(backend: ClinicalBackend) async throws {
        let repos = try await F.make(backend)
        let (_, session) = try await Self.session(repos)
        let input = Diagnosis(sessionID: session.id, snapshot: F.snapshot, severity: .moderate,
                              clinicalNotes: "Notas", diagnosedAt: Date(timeIntervalSince1970: 1_749_981_600.5678))
        let created = try await repos.diagnoses.create(input)
        #expect(created.version == 1)
        #expect(created.snapshot == F.snapshot)
        #expect(created.diagnosisType == .principal)
        #expect(created.diagnosedAt.millisecondsSince1970 == 1_749_981_600_567)
        #expect(try await repos.diagnoses.get(input.id) == created)
        #expect(try await repos.diagnoses.list(sessionID: session.id) == [created])
        await expectMedVaultError(.duplicate) { try await repos.diagnoses.create(input) }
        await expectMedVaultError(.notFound) { try await repos.diagnoses.get(UUID()) }
        await expectMedVaultError(.notFound, field: "sessionID") {
            try await repos.diagnoses.create(Diagnosis(sessionID: UUID(), snapshot: F.snapshot, diagnosedAt: F.now))
        }
        await expectMedVaultError(.notFound, field: "sessionID") { try await repos.diagnoses.list(sessionID: UUID()) }
        await expectMedVaultError(.notFound, field: "patientID") { try await repos.diagnoses.list(patientID: UUID()) }
    }

    @Test(arguments: ClinicalBackend.all)
    func snapshotValidation(backend: ClinicalBackend) async throws {
        let repos = try await F.make(backend)
        let (_, session) = try await Self.session(repos)
        let s = F.snapshot
        let cases: [(String, ICD11Snapshot)] = [
            ("snapshot.code", ICD11Snapshot(code: "6A7", title: s.title, uri: s.uri, releaseVersion: s.releaseVersion)),
            ("snapshot.code", ICD11Snapshot(code: "6a70", title: s.title, uri: s.uri, releaseVersion: s.releaseVersion)),
            ("snapshot.code", ICD11Snapshot(code: "", title: s.title, uri: s.uri, releaseVersion: s.releaseVersion)),
            ("snapshot.title", ICD11Snapshot(code: s.code, title: "  ", uri: s.uri, releaseVersion: s.releaseVersion)),
            ("snapshot.uri", ICD11Snapshot(code: s.code, title: s.title, uri: "http://example.com/icd/1",
                                           releaseVersion: s.releaseVersion)),
            ("snapshot.uri", ICD11Snapshot(code: s.code, title: s.title, uri: "http://id.who.int/",
                                           releaseVersion: s.releaseVersion)),
            ("snapshot.releaseVersion", ICD11Snapshot(code: s.code, title: s.title, uri: s.uri, releaseVersion: "2024")),
            ("snapshot.releaseVersion", ICD11Snapshot(code: s.code, title: s.title, uri: s.uri, releaseVersion: "2024-13")),
        ]
        for (field, snapshot) in cases {
            await expectMedVaultError(.validation, field: field) {
                try await repos.diagnoses.create(Diagnosis(sessionID: session.id, snapshot: snapshot, diagnosedAt: F.now))
            }
        }
        await expectMedVaultError(.validation, field: "diagnosisType") {
            try await repos.diagnoses.create(Diagnosis(sessionID: session.id, snapshot: s,
                                                       diagnosisType: DiagnosisType(rawValue: ""), diagnosedAt: F.now))
        }
        await expectMedVaultError(.validation, field: "severity") {
            try await repos.diagnoses.create(Diagnosis(sessionID: session.id, snapshot: s,
                                                       severity: DiagnosisSeverity(rawValue: " "), diagnosedAt: F.now))
        }
        #expect(try await repos.diagnoses.list(sessionID: session.id).isEmpty)
        // Postcoordinated and extension forms are accepted.
        let cluster = ICD11Snapshot(code: "6A70.1&XS5W", title: s.title, uri: s.uri, releaseVersion: "2025-01")
        try await repos.diagnoses.create(Diagnosis(sessionID: session.id, snapshot: cluster, diagnosedAt: F.now))
    }

    @Test(arguments: ClinicalBackend.all)
    func snapshotIsImmutableButClinicalFieldsAmend(backend: ClinicalBackend) async throws {
        let repos = try await F.make(backend)
        let (_, session) = try await Self.session(repos)
        let created = try await repos.diagnoses.create(
            Diagnosis(sessionID: session.id, snapshot: F.snapshot, diagnosisType: .differential, diagnosedAt: F.now))
        let s = F.snapshot
        let changes: [(String, (inout Diagnosis) -> Void)] = [
            ("snapshot.code", { $0.snapshot = ICD11Snapshot(code: "6A71", title: s.title, titleEs: s.titleEs,
                                                            uri: s.uri, releaseVersion: s.releaseVersion) }),
            ("snapshot.title", { $0.snapshot = ICD11Snapshot(code: s.code, title: "Other", titleEs: s.titleEs,
                                                             uri: s.uri, releaseVersion: s.releaseVersion) }),
            ("snapshot.titleEs", { $0.snapshot = ICD11Snapshot(code: s.code, title: s.title, titleEs: nil,
                                                               uri: s.uri, releaseVersion: s.releaseVersion) }),
            ("snapshot.uri", { $0.snapshot = ICD11Snapshot(code: s.code, title: s.title, titleEs: s.titleEs,
                                                           uri: s.uri + "0", releaseVersion: s.releaseVersion) }),
            ("snapshot.releaseVersion", { $0.snapshot = ICD11Snapshot(code: s.code, title: s.title, titleEs: s.titleEs,
                                                                      uri: s.uri, releaseVersion: "2025-01") }),
            ("diagnosedAt", { $0.diagnosedAt = F.now.addingTimeInterval(1) }),
            ("sessionID", { $0.sessionID = UUID() }),
        ]
        for (field, change) in changes {
            var edited = created
            edited.severity = .mild
            change(&edited)
            await expectMedVaultError(.immutable, field: field) { try await repos.diagnoses.update(edited) }
        }
        #expect(try await repos.diagnoses.get(created.id) == created)

        var amended = created
        amended.diagnosisType = .principal
        amended.severity = .severe
        amended.clinicalNotes = "Confirmado"
        let updated = try await repos.diagnoses.update(amended)
        #expect(updated.version == 2)
        #expect(updated.updatedAt > created.updatedAt)
        #expect(updated.severity == .severe)
        #expect(updated.snapshot == created.snapshot)
        #expect(try await repos.diagnoses.get(created.id) == updated)

        await expectMedVaultError(.conflict) { try await repos.diagnoses.update(amended) }
        var invalid = updated
        invalid.severity = DiagnosisSeverity(rawValue: "")
        await expectMedVaultError(.validation, field: "severity") { try await repos.diagnoses.update(invalid) }
        await expectMedVaultError(.notFound) {
            try await repos.diagnoses.update(Diagnosis(sessionID: session.id, snapshot: s, diagnosedAt: F.now))
        }
        #expect(try await repos.diagnoses.get(created.id) == updated)
    }

    @Test(arguments: ClinicalBackend.all)
    func patientDiagnosesNewestFirstAcrossSessions(backend: ClinicalBackend) async throws {
        let repos = try await F.make(backend)
        let (patient, first) = try await Self.session(repos)
        let second = try await repos.sessions.create(
            ClinicalSession(patientID: patient.id, date: F.now.addingTimeInterval(86_400), status: .completed))
        let (_, foreign) = try await Self.session(repos)
        let old = try await repos.diagnoses.create(Diagnosis(sessionID: first.id, snapshot: F.snapshot,
                                                             diagnosedAt: F.now))
        let new = try await repos.diagnoses.create(Diagnosis(sessionID: second.id, snapshot: F.otherSnapshot,
                                                             diagnosedAt: F.now.addingTimeInterval(86_400)))
        let batch = try await repos.diagnoses.create([
            Diagnosis(sessionID: second.id, snapshot: F.snapshot, diagnosisType: .secondary,
                      diagnosedAt: F.now.addingTimeInterval(3_600)),
            Diagnosis(sessionID: foreign.id, snapshot: F.snapshot, diagnosedAt: F.now),
        ])
        #expect(try await repos.diagnoses.list(patientID: patient.id).map(\.id) == [new.id, batch[0].id, old.id])
        #expect(try await repos.diagnoses.list(sessionID: second.id).map(\.id) == [batch[0].id, new.id])

        let bad = Diagnosis(sessionID: first.id, snapshot: ICD11Snapshot(code: "nope", title: "t",
                                                                          uri: F.snapshot.uri, releaseVersion: "2024-01"),
                            diagnosedAt: F.now)
        await expectMedVaultError(.validation, field: "snapshot.code") {
            try await repos.diagnoses.create([Diagnosis(sessionID: first.id, snapshot: F.snapshot, diagnosedAt: F.now), bad])
        }
        #expect(try await repos.diagnoses.list(sessionID: first.id).map(\.id) == [old.id])
    }
}
