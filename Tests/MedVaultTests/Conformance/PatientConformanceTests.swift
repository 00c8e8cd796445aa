import Foundation
import MedVaultCore
import MedVaultTestSupport
import Testing

/// Patients: creation, validation, versioning, deactivation, order and pagination.
@Suite("Patient repository conformance")
struct PatientConformanceTests {
    typealias F = ClinicalFixtures

    @Test(arguments: ClinicalBackend.all)
    func createSetsRecordFieldsAndReadsBack(backend: ClinicalBackend) async throws {
        let clock = SteppingClock()
        let repos = try await F.make(backend, clock: clock)
        let input = Patient(firstName: "José", lastName: "García", dateOfBirth: F.date("1984-03-07"),
                            biologicalSex: .male, nationalId: "12345678Z", email: "jose@example.com",
                            phoneNumber: "+34 600 123 456", address: "Calle Mayor 1, Madrid")
        let created = try await repos.patients.create(input)
        #expect(created.version == 1)
        #expect(created.createdAt == created.updatedAt)
        #expect(created.createdAt > F.now)
        #expect(created.deletedAt == nil)
        #expect(created.isActive)
        #expect(created.dateOfBirth == F.date("1984-03-07"))
        let read = try await repos.patients.get(input.id)
        #expect(read == created)
        #expect(try await repos.patients.count() == 1)
    }

    @Test(arguments: ClinicalBackend.all)
    func minimumFieldsAndBlankOptionalsStoredAsAbsent(backend: ClinicalBackend) async throws {
        let repos = try await F.make(backend)
        var input = F.patient()
        input.email = "  "
        input.nationalId = ""
        let created = try await repos.patients.create(input)
        #expect(created.email == nil)
        #expect(created.nationalId == nil)
        #expect(try await repos.patients.get(input.id) == created)
    }

    @Test(arguments: ClinicalBackend.all)
    func unknownCategoryRoundTrips(backend: ClinicalBackend) async throws {
        let repos = try await F.make(backend)
        var input = F.patient()
        input.biologicalSex = BiologicalSex(rawValue: "x-future-value")
        try await repos.patients.create(input)
        #expect(try await repos.patients.get(input.id).biologicalSex?.rawValue == "x-future-value")
    }

    @Test(arguments: ClinicalBackend.all)
    func duplicateIDRefused(backend: ClinicalBackend) async throws {
        let repos = try await F.make(backend)
        let first = try await repos.patients.create(F.patient("Ana", "Ruiz"))
        await expectMedVaultError(.duplicate) {
            try await repos.patients.create(F.patient("Otra", "Persona", id: first.id))
        }
        #expect(try await repos.patients.get(first.id) == first)
        #expect(try await repos.patients.count() == 1)
    }

    /// Every patient validation rule, with its field name; nothing is stored.
    @Test(arguments: ClinicalBackend.all)
    func validationErrorsNameTheField(backend: ClinicalBackend) async throws {
        let repos = try await F.make(backend)
        let cases: [(String, (inout Patient) -> Void)] = [
            ("firstName", { $0.firstName = " \t\n " }),
            ("firstName", { $0.firstName = String(repeating: "a", count: 201) }),
            ("lastName", { $0.lastName = "" }),
            ("dateOfBirth", { $0.dateOfBirth = F.date("2025-06-17") }),
            ("biologicalSex", { $0.biologicalSex = BiologicalSex(rawValue: " ") }),
            ("nationalId", { $0.nationalId = String(repeating: "1", count: 201) }),
            ("email", { $0.email = "not-an-email" }),
            ("email", { $0.email = "a@b" }),
            ("email", { $0.email = "a b@example.com" }),
            ("phoneNumber", { $0.phoneNumber = "call me" }),
            ("phoneNumber", { $0.phoneNumber = "12" }),
            ("address", { $0.address = String(repeating: "x", count: 1_001) }),
        ]
        for (field, breakIt) in cases {
            var input = F.patient()
            breakIt(&input)
            await expectMedVaultError(.validation, field: field) { try await repos.patients.create(input) }
        }
        #expect(try await repos.patients.count(filter: .all) == 0)
    }

    /// "Today" in the earliest time zone is accepted as a birth date; the day after is not.
    @Test(arguments: ClinicalBackend.all)
    func birthDateBoundaryIsIndependentOfTheProcessTimeZone(backend: ClinicalBackend) async throws {
        let repos = try await F.make(backend)
        // Now is 2025-06-15T10:00Z: it is already 2025-06-16 in UTC+14.
        try await repos.patients.create(F.patient(born: "2025-06-16"))
        await expectMedVaultError(.validation, field: "dateOfBirth") {
            try await repos.patients.create(F.patient(born: "2025-06-17"))
        }
    }

    @Test(arguments: ClinicalBackend.all)
    func updateBumpsVersionAndStaleVersionConflicts(backend: ClinicalBackend) async throws {
        let repos = try await F.make(backend)
        let created = try await repos.patients.create(F.patient())
        var edited = created
        edited.phoneNumber = "+34 600 000 001"
        let updated = try await repos.patients.update(edited)
        #expect(updated.version == 2)
        #expect(updated.updatedAt > created.updatedAt)
        #expect(updated.createdAt == created.createdAt)
        #expect(updated.phoneNumber == "+34 600 000 001")

        var stale = created
        stale.firstName = "Changed"
        await expectMedVaultError(.conflict) { try await repos.patients.update(stale) }
        #expect(try await repos.patients.get(created.id) == updated)

        var invalid = updated
        invalid.lastName = " "
        await expectMedVaultError(.validation, field: "lastName") { try await repos.patients.update(invalid) }
        #expect(try await repos.patients.get(created.id) == updated)

        await expectMedVaultError(.notFound) { try await repos.patients.update(F.patient()) }
        await expectMedVaultError(.notFound) { try await repos.patients.get(UUID()) }
    }

    @Test(arguments: ClinicalBackend.all)
    func updateKeepsDeactivationState(backend: ClinicalBackend) async throws {
        let repos = try await F.make(backend)
        let created = try await repos.patients.create(F.patient())
        let inactive = try await repos.patients.deactivate(created.id)
        var edited = inactive
        edited.deletedAt = nil
        edited.address = "Nueva dirección"
        let updated = try await repos.patients.update(edited)
        #expect(updated.deletedAt == inactive.deletedAt)
        #expect(!updated.isActive)
    }

    @Test(arguments: ClinicalBackend.all)
    func deactivateFiltersAndReactivate(backend: ClinicalBackend) async throws {
        let repos = try await F.make(backend)
        let ana = try await repos.patients.create(F.patient("Ana", "Ruiz"))
        let bea = try await repos.patients.create(F.patient("Bea", "Soto"))
        let inactive = try await repos.patients.deactivate(bea.id)
        #expect(inactive.version == 2)
        let deletedAt = try #require(inactive.deletedAt)
        #expect(deletedAt > bea.createdAt)
        // Idempotent: the original deactivation date is kept.
        #expect(try await repos.patients.deactivate(bea.id) == inactive)

        #expect(try await repos.patients.list().patients.map(\.id) == [ana.id])
        #expect(try await repos.patients.list(filter: .inactive).patients == [inactive])
        #expect(try await repos.patients.list(filter: .all).patients.map(\.id) == [ana.id, bea.id])
        #expect(try await repos.patients.count() == 1)
        #expect(try await repos.patients.count(filter: .inactive) == 1)
        #expect(try await repos.patients.count(filter: .all) == 2)
        #expect(try await repos.patients.get(bea.id) == inactive)

        let back = try await repos.patients.reactivate(bea.id)
        #expect(back.deletedAt == nil)
        #expect(back.version == 3)
        #expect(try await repos.patients.reactivate(bea.id) == back)
        #expect(try await repos.patients.count() == 2)
        #expect(try await repos.patients.count(filter: .inactive) == 0)
        await expectMedVaultError(.notFound) { try await repos.patients.deactivate(UUID()) }
        await expectMedVaultError(.notFound) { try await repos.patients.reactivate(UUID()) }
    }

    /// Accents and case do not change the order: Álvarez sorts with Alvarez.
    @Test(arguments: ClinicalBackend.all)
    func orderFoldsAccentsAndCase(backend: ClinicalBackend) async throws {
        let repos = try await F.make(backend)
        let names: [(String, String)] = [
            ("Zoe", "Zapata"), ("Ana", "Álvarez"), ("Bruno", "alvarez"), ("Carla", "Ávila"),
            ("Ana", "García López"), ("Ana", "García"), ("Ñoño", "Núñez"), ("Luis", "Nuñez"),
            ("Óscar", "Ortega"), ("ana", "ORTEGA"),
        ]
        for (first, last) in names { try await repos.patients.create(F.patient(first, last)) }
        let listed = try await repos.patients.list(limit: 100).patients.map { "\($0.firstName) \($0.lastName)" }
        #expect(listed == [
            "Ana Álvarez", "Bruno alvarez", "Carla Ávila", "Ana García", "Ana García López",
            "Luis Nuñez", "Ñoño Núñez", "ana ORTEGA", "Óscar Ortega", "Zoe Zapata",
        ])
    }

    @Test(arguments: ClinicalBackend.all)
    func pagesCoverEveryPatientOnceInOrder(backend: ClinicalBackend) async throws {
        let repos = try await F.make(backend)
        var created: [Patient] = []
        // Many equal names, so the id tiebreak matters.
        for index in 0..<57 {
            created.append(try await repos.patients.create(F.patient("Ana", index % 3 == 0 ? "Ruiz" : "Pérez \(index % 7)")))
        }
        let deactivated = created[5].id
        try await repos.patients.deactivate(deactivated)
        var seen: [Patient] = []
        var page = try await repos.patients.list(filter: .active, after: nil, limit: 10)
        var pages = 1
        seen += page.patients
        while let cursor = page.nextCursor {
            page = try await repos.patients.list(filter: .active, after: cursor, limit: 10)
            seen += page.patients
            pages += 1
        }
        #expect(pages == 6)
        #expect(seen.count == 56)
        #expect(Set(seen.map(\.id)).count == 56)
        #expect(!seen.contains { $0.id == deactivated })
        for (a, b) in zip(seen, seen.dropFirst()) {
            #expect(Patient.ordered(a.sortKey, a.id, before: b.sortKey, b.id))
        }
        // An exact multiple of the page size ends without an empty extra page.
        let exact = try await repos.patients.list(filter: .all, after: nil, limit: 57)
        #expect(exact.patients.count == 57)
        #expect(exact.nextCursor == nil)
        await expectMedVaultError(.invalidArgument) { try await repos.patients.list(filter: .all, after: nil, limit: 0) }
    }

    @Test(arguments: ClinicalBackend.all)
    func batchCreateIsAllOrNothing(backend: ClinicalBackend) async throws {
        let repos = try await F.make(backend)
        let good = (0..<5).map { F.patient("Ana", "Ruiz \($0)") }
        var bad = F.patient()
        bad.email = "broken"
        await expectMedVaultError(.validation, field: "email") { try await repos.patients.create(good + [bad]) }
        let repeated = F.patient()
        await expectMedVaultError(.duplicate) { try await repos.patients.create([repeated, repeated]) }
        #expect(try await repos.patients.count(filter: .all) == 0)
        let stored = try await repos.patients.create(good)
        #expect(stored.map(\.id) == good.map(\.id))
        #expect(stored.allSatisfy { $0.version == 1 })
        #expect(try await repos.patients.count() == 5)
    }
}
