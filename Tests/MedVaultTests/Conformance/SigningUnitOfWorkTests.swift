import Foundation
import MedVault
import MedVaultTestSupport
import Testing

/// Signing and addenda inside a unit of work (`write { tx in … }`): they commit with the
/// session they seal, roll back with it, and the rules hold inside the unit.
@Suite("Signing in a unit of work")
struct SigningUnitOfWorkTests {
    typealias F = ClinicalFixtures

    struct Abandoned: Error {}

    @Test("A session, its diagnosis, its signature and an addendum commit together; the signature verifies",
          arguments: VaultBackend.all)
    func signInAUnit(backend: VaultBackend) async throws {
        let repos = try await backend.make(SteppingClock().recordClock)
        let (session, signature, addendum) = try await repos.writer.write { tx in
            try tx.professional.save(SigningConformanceTests.professional)
            let patient = try tx.patients.create(F.patient())
            let session = try tx.sessions.create(ClinicalSession(patientID: patient.id, date: F.now, notes: "Notas"))
            try tx.diagnoses.create(Diagnosis(sessionID: session.id, snapshot: F.snapshot, clinicalNotes: "d",
                                              diagnosedAt: F.now))
            let signature = try tx.sessions.sign(session.id, version: session.version)
            // Inside the unit the content is sealed already; the failed step leaves nothing.
            var edited = session
            edited.notes = F.marker
            #expect(throws: MedVaultError.self) { try tx.sessions.update(edited) }
            let addendum = try tx.sessions.addAddendum(to: session.id, reason: "Corrección", text: "Texto")
            #expect(try tx.sessions.entry(session.id).addenda == [addendum])
            return (session, signature, addendum)
        }
        let entry = try await repos.sessions.entry(session.id)
        #expect(entry.signature == signature)
        #expect(entry.addenda == [addendum])
        #expect(entry.session.notes == "Notas")
        #expect(entry.signatureCheck == .verified)
        await repos.close()
    }

    @Test("A unit that signs and then fails leaves the session unsigned and editable", arguments: VaultBackend.all)
    func failedUnitLeavesNoSignature(backend: VaultBackend) async throws {
        let repos = try await backend.make(SteppingClock().recordClock)
        let session = try await repos.writer.write { tx in
            try tx.professional.save(SigningConformanceTests.professional)
            let patient = try tx.patients.create(F.patient())
            return try tx.sessions.create(ClinicalSession(patientID: patient.id, date: F.now, notes: "Notas"))
        }
        await #expect(throws: Abandoned.self) {
            try await repos.writer.write { tx in
                try tx.sessions.sign(session.id, version: session.version)
                try tx.sessions.addAddendum(to: session.id, reason: "r", text: "t")
                throw Abandoned()
            }
        }
        let entry = try await repos.sessions.entry(session.id)
        #expect(entry.signature == nil && entry.addenda.isEmpty)
        var edited = session
        edited.notes = "Cambiada"
        #expect(try await repos.sessions.update(edited).notes == "Cambiada")
        await repos.close()
    }
}
