import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultTestSupport
import Testing

/// Export and import carry signatures and addenda: an imported signature still
/// verifies (the digest recomputed from the imported content matches), the imported
/// content is sealed in the new vault, and an export edited after signing is refused.
@Suite("Vault: import of signed records")
struct SignedRecordImportTests {
    private func vault(at folder: URL) async throws -> Vault {
        try await Vault.create(at: folder, password: try Password(BackupFixtures.password),
                               options: VaultFixtures.options).vault
    }

    /// A vault with one patient: a signed session with two addenda and a diagnosis, and
    /// an unsigned session.
    private func signedVault(at folder: URL) async throws -> (Vault, ClinicalSession) {
        let vault = try await vault(at: folder)
        try await vault.professional.save(SigningConformanceTests.professional)
        let patient = try await vault.patients.create(ClinicalFixtures.patient())
        let session = try await vault.sessions.create(ClinicalSession(
            patientID: patient.id, date: ClinicalFixtures.now, notes: "Notas «firmadas»", chiefComplaint: "Insomnio"))
        try await vault.diagnoses.create(Diagnosis(sessionID: session.id, snapshot: ClinicalFixtures.snapshot,
                                                   clinicalNotes: "Leve", diagnosedAt: ClinicalFixtures.now))
        try await vault.sessions.sign(session.id, version: session.version)
        try await vault.sessions.addAddendum(to: session.id, reason: "Corrección", text: "Primera")
        try await vault.sessions.addAddendum(to: session.id, reason: "Entrada tardía", text: "Segunda")
        try await vault.sessions.create(ClinicalSession(patientID: patient.id, date: ClinicalFixtures.now, notes: "Borrador"))
        return (vault, session)
    }

    @Test("Signatures and addenda survive export → JSON → import, and the signature still verifies in the new vault")
    func signaturesRoundTrip() async throws {
        try await withTemporaryDirectory { dir in
            let (source, session) = try await signedVault(at: dir.file("source"))
            let documents = try await source.exportAllRecords()
            let record = try #require(documents.first?.sessions.first { $0.session.id == session.id })
            #expect(record.signature != nil)
            #expect(record.addenda.map(\.text) == ["Primera", "Segunda"])
            let json = try PatientRecordExport.jsonData(of: documents)
            let target = try await vault(at: dir.file("target"))
            let report = try await target.importRecords(try PatientRecordExport.documents(jsonData: json))
            #expect(report.signatures == 1 && report.addenda == 2 && report.sessions == 2)

            let imported = try await target.sessions.entry(session.id)
            #expect(imported.signature == record.signature)
            #expect(imported.addenda == record.addenda)
            // Intact, and signed with the source vault's key for the professional, not this one's.
            #expect(try await target.sessions.verifySignature(of: session.id) == .signedByAnotherKey)
            var edited = imported.session
            edited.notes = "cambiada"
            await expectMedVaultError(.immutable, field: "notes") { try await target.sessions.update(edited) }
            await expectMedVaultError(.immutable) {
                try await target.database.write { db in
                    try db.execute("UPDATE clinical_session SET notes = 'x' WHERE id = ?", [session.id.vaultValue])
                }
            }
            let again = try await target.exportAllRecords().map { document -> PatientRecordExport in
                var copy = document
                copy.exportedAt = documents[0].exportedAt
                return copy
            }
            #expect(again == documents)
            await source.lock()
            await target.lock()
        }
    }

    @Test("An export whose signed content was edited, or with addenda but no signature, is refused and writes nothing")
    func tamperedExportsAreRefused() async throws {
        try await withTemporaryDirectory { dir in
            let (source, session) = try await signedVault(at: dir.file("source"))
            let documents = try await source.exportAllRecords()
            let target = try await vault(at: dir.file("target"))
            let index = try #require(documents[0].sessions.firstIndex { $0.session.id == session.id })
            let cases: [(String, (inout PatientRecordExport.SessionRecord) -> Void)] = [
                ("signature", { $0.session.notes = ClinicalFixtures.marker }),
                ("signature", { $0.diagnoses[0].clinicalNotes = nil }),
                ("signature", { $0.diagnoses.removeAll() }),
                ("sessionID", { $0.signature = nil }),
                ("sessionID", { $0.addenda[0].sessionID = UUID() }),
                ("text", { $0.addenda[1].text = " " }),
            ]
            for (field, damage) in cases {
                var document = documents[0]
                damage(&document.sessions[index])
                await expectMedVaultError(.validation, field: field) { try await target.importRecords([document]) }
            }
            #expect(try await target.patients.count(filter: .all) == 0)
            await source.lock()
            await target.lock()
        }
    }
}
