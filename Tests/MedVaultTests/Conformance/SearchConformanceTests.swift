import Foundation
import MedVaultCore
import MedVaultTestSupport
import Testing

/// Patient search (HU-05): case- and accent-insensitive token-prefix matching.
@Suite("Patient search conformance")
struct SearchConformanceTests {
    typealias F = ClinicalFixtures

    struct People {
        let jose: Patient, maria: Patient, nunez: Patient, joseph: Patient, obrien: Patient, inactive: Patient
    }

    static func seed(_ repos: ClinicalRepositories) async throws -> People {
        let jose = try await repos.patients.create(F.patient(
            "José", "García", nationalId: "12345678Z", email: "pepe.garcia@example.com", phone: "+34 600 123 456"))
        let maria = try await repos.patients.create(F.patient("María José", "Fernández Gil"))
        let nunez = try await repos.patients.create(F.patient("Íñigo", "Núñez", email: "inigo@correo.es"))
        let joseph = try await repos.patients.create(F.patient("Joseph", "Garner"))
        let obrien = try await repos.patients.create(F.patient("Seán", "O'Brien-Smith"))
        var inactive = try await repos.patients.create(F.patient("Josefa", "Gárate"))
        inactive = try await repos.patients.deactivate(inactive.id)
        return People(jose: jose, maria: maria, nunez: nunez, joseph: joseph, obrien: obrien, inactive: inactive)
    }

    static func ids(_ patients: [Patient]) -> [UUID] { patients.map(\.id) }

    @Test(arguments: ClinicalBackend.all)
    func accentsCaseAndPrefixes(backend: ClinicalBackend) async throws {
        let repos = try await F.make(backend)
        let p = try await Self.seed(repos)
        let search = { (query: String) in Self.ids(try await repos.patients.search(query)) }
        // Results come in list order: Fernández Gil, García, Garner, Núñez, O'Brien.
        // "jose" is also a prefix of "joseph", "gar" of "garner".
        #expect(try await search("jose gar") == [p.jose.id, p.joseph.id])
        #expect(try await search("jose garc") == [p.jose.id])
        #expect(try await search("JOSÉ") == [p.maria.id, p.jose.id, p.joseph.id])
        #expect(try await search("jos") == [p.maria.id, p.jose.id, p.joseph.id])
        #expect(try await search("nunez") == [p.nunez.id])
        #expect(try await search("ÑÚÑ") == [p.nunez.id])
        #expect(try await search("inigo") == [p.nunez.id])
        #expect(try await search("gar jos") == [p.jose.id, p.joseph.id])
        #expect(try await search("brien") == [p.obrien.id])
        #expect(try await search("o'brien") == [p.obrien.id])
        #expect(try await search("sean smith") == [p.obrien.id])
        #expect(try await search("fernandez gil maria") == [p.maria.id])
        #expect(try await search("garcía zzz").isEmpty)
        #expect(try await search("arcia").isEmpty, "matching is by token prefix, not substring")
    }

    @Test(arguments: ClinicalBackend.all)
    func otherFieldsNationalIDEmailPhone(backend: ClinicalBackend) async throws {
        let repos = try await F.make(backend)
        let p = try await Self.seed(repos)
        let search = { (query: String) in Self.ids(try await repos.patients.search(query)) }
        #expect(try await search("12345678z") == [p.jose.id])
        #expect(try await search("1234") == [p.jose.id])
        #expect(try await search("pepe") == [p.jose.id])
        #expect(try await search("correo") == [p.nunez.id])
        #expect(try await search("600 123") == [p.jose.id])
        #expect(try await search("+34") == [p.jose.id])
    }

    /// An ICD-like code is not a name: "6A7" matches no patient.
    @Test(arguments: ClinicalBackend.all)
    func codeLikeQueriesAndEmptyQueriesMatchNothing(backend: ClinicalBackend) async throws {
        let repos = try await F.make(backend)
        _ = try await Self.seed(repos)
        #expect(try await repos.patients.search("6A7").isEmpty)
        #expect(try await repos.patients.search("6A70", filter: .all, limit: 10).isEmpty)
        #expect(try await repos.patients.search("").isEmpty)
        #expect(try await repos.patients.search("  -- ").isEmpty)
    }

    @Test(arguments: ClinicalBackend.all)
    func filterAndLimit(backend: ClinicalBackend) async throws {
        let repos = try await F.make(backend)
        let p = try await Self.seed(repos)
        #expect(try await Self.ids(repos.patients.search("josefa")).isEmpty)
        #expect(try await Self.ids(repos.patients.search("josefa", filter: .inactive, limit: 10)) == [p.inactive.id])
        #expect(try await Self.ids(repos.patients.search("jos", filter: .all, limit: 10))
            == [p.maria.id, p.inactive.id, p.jose.id, p.joseph.id])
        #expect(try await Self.ids(repos.patients.search("jos", filter: .all, limit: 2)) == [p.maria.id, p.inactive.id])
        await expectMedVaultError(.invalidArgument) { try await repos.patients.search("jos", filter: .all, limit: 0) }
    }

    @Test(arguments: ClinicalBackend.all)
    func searchSeesUpdatesAndReactivation(backend: ClinicalBackend) async throws {
        let repos = try await F.make(backend)
        let p = try await Self.seed(repos)
        var renamed = p.joseph
        renamed.firstName = "Giuseppe"
        try await repos.patients.update(renamed)
        #expect(try await Self.ids(repos.patients.search("joseph")).isEmpty)
        #expect(try await Self.ids(repos.patients.search("giusep")) == [p.joseph.id])
        try await repos.patients.reactivate(p.inactive.id)
        #expect(try await Self.ids(repos.patients.search("josefa")) == [p.inactive.id])
    }
}
