import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultTestSupport
import Testing

/// The ordered search walks tokens, merges them in batches, reads a single token's
/// patients joined to their rows, and falls back to a sorted range for wide prefixes:
/// every path must give exactly the in-memory repository's answer (a plain scan in
/// patient order) on the same patients.
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

    /// ``clinic()`` stored in a SQLCipher repository and in the in-memory one, on one clock;
    /// one in five deactivated on both when `deactivating`.
    static func stored(deactivating: Bool) async throws
        -> (database: TemporaryVaultDatabase, sqlcipher: SQLCipherPatientRepository, memory: any PatientRepository)
    {
        let database = try await TemporaryVaultDatabase.open()
        let clock = SteppingClock().recordClock
        let sqlcipher = SQLCipherPatientRepository(pool: database.pool, clock: clock)
        let memory = InMemoryClinicalRecords(clock: clock).patients
        let people = clinic()
        for repository in [sqlcipher, memory] as [any PatientRepository] {
            try await repository.create(people)
            for (n, patient) in people.enumerated() where deactivating && n % 5 == 0 {
                try await repository.deactivate(patient.id)
            }
        }
        return (database, sqlcipher, memory)
    }

    @Test func everyPathAgreesWithTheInMemoryScan() async throws {
        let (database, sqlcipher, memory) = try await Self.stored(deactivating: true)
        defer { Task { await database.close() } }
        let queries = ["a", "an", "ana", "anab", "ANDRÉS", "gar", "garc", "garci", "g", "ru", "ruiz", "nun",
                       "núñ", "jo", "jose gar", "gar jose", "ana ru", "6", "60", "61", "example", "zzz", "ma ló",
                       "garcia", "lópez", "rub", "josefa garc", "gómez ana"]
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
        // One token ("garcia", surnames and e-mail domains) holding more patients than
        // a batch reads, with inactive ones among them: the single-token walk goes on
        // after a batch the filter thinned.
        #expect(try await sqlcipher.search("garcia", filter: .active, limit: 500).count > 100)
    }

    /// `Int.max` as a limit ("all of them") through every path: no token, one token,
    /// a merge of several, a range of many; and the patient list.
    @Test func theLargestLimitReadsEverythingWithoutOverflow() async throws {
        let (database, sqlcipher, memory) = try await Self.stored(deactivating: true)
        defer { Task { await database.close() } }
        for query in ["zzz", "garcia", "gar", "6"] {
            for filter in PatientFilter.allCases {
                let expected = try await memory.search(query, filter: filter, limit: .max).map(\.id)
                #expect(try await sqlcipher.search(query, filter: filter, limit: .max).map(\.id) == expected,
                        "query \(query), \(filter)")
            }
        }
        let page = try await sqlcipher.list(filter: .all, after: nil, limit: .max)
        #expect(page.patients.count == Self.clinic().count && page.nextCursor == nil)
    }

    @Test func aSingleTokenWalkSkipsAnIndexRowWithoutItsPatient() async throws {
        let (database, sqlcipher, memory) = try await Self.stored(deactivating: true)
        defer { Task { await database.close() } }
        // A damaged index: a "garcia" row first in patient order, and one in the middle,
        // pointing at rowids no patient has.
        try await database.pool.write { db in
            for (sortKey, rowid) in [("a", 900_001), ("m", 900_002)] as [(String, Int64)] {
                try db.execute("""
                    INSERT INTO patient_search_token (token, sort_key, patient_id, patient_rowid) VALUES ('garcia', ?, ?, ?)
                    """, [.text(sortKey), UUID().vaultValue, .integer(rowid)])
            }
        }
        for limit in [1, 2, 50, 500] {
            for filter in PatientFilter.allCases {
                let expected = try await memory.search("garcia", filter: filter, limit: limit).map(\.id)
                #expect(try await sqlcipher.search("garcia", filter: filter, limit: limit).map(\.id) == expected)
                // The single-token walk itself, called directly: the search above could
                // take another path and still agree.
                let walked = try await database.pool.read { db in
                    try PatientSearchIndex.patients(holding: "garcia", keeping: filter.includes, limit: limit, in: db)
                }
                #expect(walked.map(\.id) == expected, "\(filter), limit \(limit)")
            }
        }
    }

    @Test func theSingleTokenWalkFollowsTheIndex() async throws {
        let database = try await TemporaryVaultDatabase.open()
        defer { Task { await database.close() } }
        for (sql, parameterCount) in [(PatientSearchIndex.tokenPatients, 2), (PatientSearchIndex.tokenPatientsAfter, 5)] {
            let arguments = [VaultValue](repeating: .text("x"), count: parameterCount)
            let plan = try await database.pool.read { db in
                try db.fetchAll("EXPLAIN QUERY PLAN " + sql, arguments) { $0.text(at: 3) }
            }
            // SQLite 3.36 dropped "TABLE " and the table name from these lines.
            let steps = plan.map { $0.replacingOccurrences(of: "TABLE patient_search_token AS ", with: "")
                .replacingOccurrences(of: "TABLE patient AS ", with: "") }
            #expect(steps.count == 2, "\(plan)")
            #expect(steps.first?.hasPrefix("SEARCH t USING PRIMARY KEY (token=?") == true, "\(plan)")
            #expect(steps.last?.hasPrefix("SEARCH p USING INTEGER PRIMARY KEY") == true, "\(plan)")
            #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "\(plan)")
        }
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
