import Foundation
import MedVaultCore
import MedVaultTestSupport
import Testing

/// The vault owner's profile (HU-01): one per vault, versioned.
@Suite("Professional repository conformance")
struct ProfessionalConformanceTests {
    typealias F = ClinicalFixtures

    @Test(arguments: ClinicalBackend.all)
    func saveGetAndVersioning(backend: ClinicalBackend) async throws {
        let repos = try await F.make(backend)
        #expect(try await repos.professional.get() == nil)
        let created = try await repos.professional.save(
            Professional(fullName: "Ana Ruiz", licenseNumber: "M-12345", specialty: "Psicología", email: " "))
        #expect(created.version == 1)
        #expect(created.email == nil)
        #expect(created.preferredLanguage == "es")
        #expect(try await repos.professional.get() == created)

        var edited = created
        edited.specialty = "Psicología clínica"
        let updated = try await repos.professional.save(edited)
        #expect(updated.version == 2)
        #expect(updated.createdAt == created.createdAt)
        #expect(updated.updatedAt > created.updatedAt)

        await expectMedVaultError(.conflict) { try await repos.professional.save(edited) }
        await expectMedVaultError(.duplicate, field: "id") {
            try await repos.professional.save(Professional(fullName: "Otro", licenseNumber: "1", specialty: "X"))
        }
        #expect(try await repos.professional.get() == updated)
    }

    @Test(arguments: ClinicalBackend.all)
    func validation(backend: ClinicalBackend) async throws {
        let repos = try await F.make(backend)
        let cases: [(String, Professional)] = [
            ("fullName", Professional(fullName: " ", licenseNumber: "1", specialty: "X")),
            ("licenseNumber", Professional(fullName: "A", licenseNumber: "", specialty: "X")),
            ("specialty", Professional(fullName: "A", licenseNumber: "1", specialty: "\n")),
            ("email", Professional(fullName: "A", licenseNumber: "1", specialty: "X", email: "nope")),
            ("preferredLanguage", Professional(fullName: "A", licenseNumber: "1", specialty: "X", preferredLanguage: "e s")),
        ]
        for (field, value) in cases {
            await expectMedVaultError(.validation, field: field) { try await repos.professional.save(value) }
        }
        #expect(try await repos.professional.get() == nil)
    }
}
