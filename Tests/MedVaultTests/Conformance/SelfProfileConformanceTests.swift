import Foundation
import MedVault
import MedVaultCore
import MedVaultTestSupport
import Testing

/// A single-user app's self profile (#19): medications without clinical demographics.
@Suite("Conformance: the self profile of single-user apps")
struct SelfProfileConformanceTests {
    @Test("The self profile is created once, under its well-known id, and owns medications", arguments: VaultBackend.all)
    func selfProfileOwnsMedications(backend: VaultBackend) async throws {
        let repos = try await backend.make(SteppingClock().recordClock)
        // Concurrent first calls (an app and its widget): one profile, the same for both.
        async let first = repos.patients.selfProfile()
        async let second = repos.patients.selfProfile(firstName: "Ana")
        let (a, b) = try await (first, second)
        #expect(a == b && a.id == SelfProfile.patientID && a.isSelfProfile)
        #expect(a.dateOfBirth == SelfProfile.undisclosedDateOfBirth && a.dateOfBirth.iso8601 == "1900-01-01")
        #expect(try await repos.patients.count() == 1)
        let medication = try await repos.medications.create(MT.medication(patientID: a.id))
        #expect(try await repos.medications.list(patientID: SelfProfile.patientID) == [medication])
        // A later call returns the stored profile unchanged, whatever it is given.
        #expect(try await repos.patients.selfProfile(firstName: "Otro") == a)
        await repos.close()
    }

    @Test("A self profile seeded with invalid values is refused and nothing is stored", arguments: VaultBackend.all)
    func invalidSeed(backend: VaultBackend) async throws {
        let repos = try await backend.make(SteppingClock().recordClock)
        await expectMedVaultError(.validation, field: "firstName") {
            try await repos.patients.selfProfile(firstName: " ")
        }
        #expect(try await repos.patients.count() == 0)
        let ordinary = try await repos.patients.create(ClinicalFixtures.patient())
        #expect(!ordinary.isSelfProfile)
        await repos.close()
    }
}
