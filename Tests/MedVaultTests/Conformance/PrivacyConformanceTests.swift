import Foundation
import MedVaultCore
import MedVaultTestSupport
import Testing

/// No error ever carries a field value: every field of the invalid input below holds
/// a marker string, and no error's description may contain it.
@Suite("Clinical errors never contain record values")
struct PrivacyConformanceTests {
    typealias F = ClinicalFixtures
    static let m = ClinicalFixtures.marker

    @Test(arguments: ClinicalBackend.all)
    func errorsDoNotContainMarkers(backend: ClinicalBackend) async throws {
        let repos = try await F.make(backend)
        let m = Self.m
        var patient = Patient(firstName: m, lastName: m, dateOfBirth: F.date("2999-01-01"),
                              biologicalSex: BiologicalSex(rawValue: m), nationalId: m, email: m,
                              phoneNumber: m, address: m)
        await expectMedVaultError(.validation, field: "dateOfBirth") { try await repos.patients.create(patient) }
        patient.dateOfBirth = F.date("1990-01-01")
        await expectMedVaultError(.validation, field: "email") { try await repos.patients.create(patient) }
        patient.email = "\(m)@example.com"
        await expectMedVaultError(.validation, field: "phoneNumber") { try await repos.patients.create(patient) }
        patient.phoneNumber = nil
        var stored = try await repos.patients.create(patient)
        await expectMedVaultError(.duplicate) { try await repos.patients.create(patient) }
        stored.version = 99
        await expectMedVaultError(.conflict) { try await repos.patients.update(stored) }
        #expect(try await repos.patients.search(m).count == 1)

        let session = ClinicalSession(patientID: stored.id, date: F.now, type: SessionType(rawValue: m),
                                      durationMinutes: 0, status: SessionStatus(rawValue: m),
                                      notes: m, chiefComplaint: m, treatmentPlan: m)
        await expectMedVaultError(.validation, field: "durationMinutes") { try await repos.sessions.create(session) }
        var validSession = session
        validSession.durationMinutes = 50
        validSession.status = .completed
        let storedSession = try await repos.sessions.create(validSession)
        await expectMedVaultError(.immutable) { try await repos.sessions.delete(storedSession.id) }

        let snapshot = ICD11Snapshot(code: m, title: m, titleEs: m, uri: m, releaseVersion: m)
        let diagnosis = Diagnosis(sessionID: storedSession.id, snapshot: snapshot,
                                  diagnosisType: DiagnosisType(rawValue: m),
                                  severity: DiagnosisSeverity(rawValue: m), clinicalNotes: m, diagnosedAt: F.now)
        await expectMedVaultError(.validation, field: "snapshot.code") { try await repos.diagnoses.create(diagnosis) }
        var validDiagnosis = diagnosis
        validDiagnosis.snapshot = ICD11Snapshot(code: "6A70", title: m, titleEs: m,
                                                uri: "http://id.who.int/icd/entity/\(m)", releaseVersion: "2024-01")
        var storedDiagnosis = try await repos.diagnoses.create(validDiagnosis)
        storedDiagnosis.snapshot = ICD11Snapshot(code: "6A70", title: m + m, titleEs: m,
                                                 uri: validDiagnosis.snapshot.uri, releaseVersion: "2024-01")
        await expectMedVaultError(.immutable, field: "snapshot.title") { try await repos.diagnoses.update(storedDiagnosis) }

        await expectMedVaultError(.validation, field: "mimeType") {
            try await repos.attachments.create(
                NewAttachment(sessionID: storedSession.id, fileName: m, mimeType: m), data: Data(m.utf8))
        }
        await expectMedVaultError(.validation, field: "email") {
            try await repos.professional.save(Professional(fullName: m, licenseNumber: m, specialty: m, email: m,
                                                           preferredLanguage: "es"))
        }
    }
}
