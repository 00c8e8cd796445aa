import Foundation
import MedVault
import MedVaultCore
import Testing

/// The ordered search walks tokens, merges them in batches and falls back to a sorted
/// range for wide prefixes: every path must give exactly the in-memory repository's
/// answer (a plain scan in patient order) on the same patients.
@Suite("Patient search merge (SQLCipher vs in-memory)")
struct PatientSearchMergeTests {
    typealias F = ClinicalFixtures

    /// 700 patients over few names, so one token holds far more rows than a merge batch
    /// (64) and prefixes cover several tokens; phone numbers are all distinct, so one
    /// digit covers more tokens than the merge takes (32); one in five is deactivated.
    static func clinic() -> [Patient] {
        let first = ["Ana", "Anabel", "Andrés", "Ángela", "José", "Josefa", "Joaquín", "María", "Mario", "Gara"]
        let last = ["García", "Garcés", "Garrido", "Gómez", "Ruiz", "Ruíz", "Rubio", "Núñez", "Nuño", "López"]
        return (0..<700).map { n in
            var patient = F.patient(first[(n * 7) % first.count], last[(n * 3 + n / 10) % last.count],
                                    phone: "6\(String(format: "%08d", (n * 7_919) % 100_000_000))")
            if n % 9 == 0 { patient.email = "\(first[n % first.count].lowercased())@garcia.example" }
            return patient
        }
    }

    @Test func everyPathAgreesWithTheInMemoryScan() async throws {
        let database = try await TemporaryVaultDatabase.open()
        defer { Task { await database.close() } }
        let clock = SteppingClock().recordClock
        let sqlcipher = SQLCipherPatientRepository(pool: database.pool, clock: clock)
        let memory = InMemoryClinicalRecords(clock: clock).patients
        let people = Self.clinic()
        for repository in [sqlcipher, memory] as [any PatientRepository] {
            try await repository.create(people)
            for (n, patient) in people.enumerated() where n % 5 == 0 {
                try await repository.deactivate(patient.id)
            }
        }
        let queries = ["a", "an", "ana", "anab", "ANDRÉS", "gar", "garc", "garci", "g", "ru", "ruiz", "nun",
                       "núñ", "jo", "jose gar", "gar jose", "ana ru", "6", "60", "61", "example", "zzz", "ma ló"]
        for query in queries {
            for filter in PatientFilter.allCases {
                for limit in [1, 7, 50, 500] {
                    let expected = try await memory.search(query, filter: filter, limit: limit).map(\.id)
                    let found = try await sqlcipher.search(query, filter: filter, limit: limit).map(\.id)
                    #expect(found == expected, "query \(query), \(filter), limit \(limit)")
                }
            }
        }
        // The wide and the long results really cross the paths this suite is about.
        #expect(try await sqlcipher.search("6", filter: .all, limit: 500).count == 500)
        #expect(try await sqlcipher.search("ana", filter: .all, limit: 500).count > 64)
    }

    @Test func renamedPatientsMoveInTheOrder() async throws {
        let database = try await TemporaryVaultDatabase.open()
        defer { Task { await database.close() } }
        let patients = SQLCipherPatientRepository(pool: database.pool)
        let zoe = try await patients.create(F.patient("Ana", "Zubiri"))
        let abel = try await patients.create(F.patient("Ana", "Abad"))
        #expect(try await patients.search("ana").map(\.id) == [abel.id, zoe.id])
        var renamed = zoe
        renamed.lastName = "Aaron"
        try await patients.update(renamed)
        #expect(try await patients.search("ana").map(\.id) == [zoe.id, abel.id])
        #expect(try await patients.search("zub").isEmpty)
    }
}
