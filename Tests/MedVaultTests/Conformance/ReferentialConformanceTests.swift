import Foundation
import MedVault
import MedVaultTestSupport
import Testing

/// Rules that span repositories, on a whole in-memory vault and a whole SQLCipher
/// vault: a record that points at a missing parent is refused with `notFound` naming
/// the field, and nothing is written.
@Suite("Referential rules across repositories")
struct ReferentialConformanceTests {
    typealias F = ClinicalFixtures

    @Test("A medication for an unknown patient is notFound (patientID) and writes nothing",
          arguments: VaultBackend.all)
    func medicationForUnknownPatient(backend: VaultBackend) async throws {
        let repos = try await backend.make(SteppingClock().recordClock)
        let stranger = UUID()
        await expectMedVaultError(.notFound, field: "patientID") {
            try await repos.medications.create(MT.medication(patientID: stranger))
        }
        #expect(try await repos.medications.list(patientID: stranger, filter: .all).isEmpty)
        #expect(try await repos.medications.search("Ibuprofeno", patientID: nil).isEmpty)

        // The same medication is accepted once the patients repository has the patient:
        // both repositories see one store.
        let patient = try await repos.patients.create(F.patient(id: stranger))
        let stored = try await repos.medications.create(MT.medication(patientID: patient.id))
        #expect(try await repos.medications.get(stored.id) == stored)
        // An inactive patient keeps their medications, and new ones are accepted (the
        // vault's foreign key checks existence only).
        try await repos.patients.deactivate(patient.id)
        _ = try await repos.medications.create(MT.medication(patientID: patient.id, name: "Paracetamol"))
        #expect(try await repos.medications.list(patientID: patient.id, filter: .all).count == 2)
        await repos.close()
    }

    @Test("A session, diagnosis or attachment whose parent is unknown is notFound and writes nothing",
          arguments: VaultBackend.all)
    func clinicalRecordsForUnknownParents(backend: VaultBackend) async throws {
        let repos = try await backend.make(SteppingClock().recordClock)
        await expectMedVaultError(.notFound, field: "patientID") {
            try await repos.sessions.create(ClinicalSession(patientID: UUID(), date: F.now))
        }
        await expectMedVaultError(.notFound, field: "sessionID") {
            try await repos.diagnoses.create(Diagnosis(sessionID: UUID(), snapshot: F.snapshot, diagnosedAt: F.now))
        }
        await expectMedVaultError(.notFound, field: "sessionID") {
            try await repos.attachments.create(NewAttachment(sessionID: UUID(), fileName: "a.txt", mimeType: "text/plain"),
                                               data: Data("x".utf8))
        }
        #expect(try await repos.sessions.count() == 0)
        #expect(try await repos.diagnoses.count() == 0)
        #expect(try await repos.patients.count(filter: .all) == 0)
        await repos.close()
    }
}
