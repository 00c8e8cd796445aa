import Foundation
import MedVaultCore
import MedVaultTestSupport
import Testing

/// `count()` of sessions and diagnoses: every stored record, whatever its status;
/// deleted sessions leave the count; refused writes do not enter it.
@Suite("Record counts conformance")
struct CountConformanceTests {
    typealias F = ClinicalFixtures

    @Test(arguments: ClinicalBackend.all)
    func sessionAndDiagnosisCounts(backend: ClinicalBackend) async throws {
        let repos = try await F.make(backend)
        #expect(try await repos.sessions.count() == 0)
        #expect(try await repos.diagnoses.count() == 0)

        let ana = try await repos.patients.create(F.patient())
        let luis = try await repos.patients.create(F.patient("Luis", "Soto"))
        let first = try await repos.sessions.create(ClinicalSession(patientID: ana.id, date: F.now))
        let batch = try await repos.sessions.create([
            ClinicalSession(patientID: ana.id, date: F.now, status: .completed),
            ClinicalSession(patientID: luis.id, date: F.now),
        ])
        #expect(try await repos.sessions.count() == 3)

        try await repos.diagnoses.create(Diagnosis(sessionID: first.id, snapshot: F.snapshot, diagnosedAt: F.now))
        try await repos.diagnoses.create(Diagnosis(sessionID: first.id, snapshot: F.otherSnapshot, diagnosedAt: F.now))
        #expect(try await repos.diagnoses.count() == 2)

        // A batch that fails half way changes no count.
        await expectMedVaultError(.notFound, field: "patientID") {
            try await repos.sessions.create([
                ClinicalSession(patientID: luis.id, date: F.now),
                ClinicalSession(patientID: UUID(), date: F.now),
            ])
        }
        await expectMedVaultError(.notFound, field: "sessionID") {
            try await repos.diagnoses.create([
                Diagnosis(sessionID: first.id, snapshot: F.snapshot, diagnosedAt: F.now),
                Diagnosis(sessionID: UUID(), snapshot: F.snapshot, diagnosedAt: F.now),
            ])
        }
        #expect(try await repos.sessions.count() == 3)
        #expect(try await repos.diagnoses.count() == 2)

        // A cancelled session is still stored and counted; a deleted one leaves.
        try await repos.sessions.cancel(first.id)
        #expect(try await repos.sessions.count() == 3)
        try await repos.sessions.delete(batch[1].id)
        #expect(try await repos.sessions.count() == 2)
        #expect(try await repos.diagnoses.count() == 2)
        try await repos.close()
    }
}
