import Foundation
import MedVault
import MedVaultCore
import MedVaultTestSupport
import Testing

/// The token index behind patient search: it follows every change, keeps each row's
/// sort key in step with the patient, and user input cannot inject query syntax. (The
/// FTS4 tokenizer check stays: medication search uses it.)
@Suite("Patient search index (SQLCipher)")
struct ClinicalSearchIndexTests {
    typealias F = ClinicalFixtures

    /// The patient's index rows as "token" strings in token order, each checked to carry
    /// the patient's current sort key and id.
    static func tokens(_ pool: VaultDatabase, _ id: UUID) async throws -> String? {
        let rows = try await pool.read { db in
            try db.fetchAll("""
                SELECT t.token, t.sort_key = p.sort_key AND t.patient_id = p.id FROM patient_search_token t \
                JOIN patient p ON p.rowid = t.patient_rowid WHERE p.id = ? ORDER BY t.token
                """, [id.vaultValue]) { (token: $0.text(at: 0), consistent: $0.int64(at: 1) == 1) }
        }
        #expect(rows.allSatisfy { $0.consistent })
        return rows.map { $0.token }.joined(separator: " ")
    }

    static func indexRowCount(_ pool: VaultDatabase) async throws -> Int64? {
        try await pool.read { db in
            try db.fetchOne("SELECT count(*) FROM patient_search_token") { $0.int64(at: 0) }
        }
    }

    @Test func unicode61WithRemoveDiacriticsWorksAtRuntime() async throws {
        let database = try await TemporaryVaultDatabase.open()
        defer { Task { await database.close() } }
        let matches = try await database.pool.write { db in
            try db.execute("CREATE VIRTUAL TABLE probe USING fts4(t, tokenize=unicode61 \"remove_diacritics=1\")")
            try db.execute("INSERT INTO probe (docid, t) VALUES (1, 'José GARCÍA-Núñez')")
            return try ["jose", "garcia", "NUNEZ", "núñ*", "ga*"].map { query in
                try db.fetchOne("SELECT docid FROM probe WHERE probe MATCH ?", [.text(query)]) { $0.int64(at: 0) }
            }
        }
        #expect(matches == [1, 1, 1, 1, 1])
    }

    @Test func indexFollowsCreateUpdateDeactivateAndReactivate() async throws {
        let database = try await TemporaryVaultDatabase.open()
        defer { Task { await database.close() } }
        let patients = SQLCipherPatientRepository(pool: database.pool, clock: SteppingClock().recordClock)
        let created = try await patients.create(F.patient("José", "García", nationalId: "X-12", email: "pepe@ex.com"))
        #expect(try await Self.tokens(database.pool, created.id) == "12 com ex garcia jose pepe x")

        var renamed = created
        renamed.firstName = "Giuseppe"
        renamed.lastName = "Garcés"
        renamed.email = nil
        renamed.phoneNumber = "+34 600"
        let updated = try await patients.update(renamed)
        #expect(try await Self.tokens(database.pool, created.id) == "12 34 600 garces giuseppe x")
        #expect(try await patients.search("jose").isEmpty)
        #expect(try await patients.search("pepe").isEmpty)
        #expect(try await patients.search("giu gar 600").map(\.id) == [created.id])

        // A failed update leaves the index as it was.
        var stale = created
        stale.firstName = "Zacarías"
        await expectMedVaultError(.conflict) { try await patients.update(stale) }
        #expect(try await patients.search("zacarias").isEmpty)

        try await patients.deactivate(updated.id)
        #expect(try await patients.search("giuseppe").isEmpty)
        #expect(try await patients.search("giuseppe", filter: .inactive, limit: 5).map(\.id) == [created.id])
        try await patients.reactivate(updated.id)
        #expect(try await patients.search("giuseppe").map(\.id) == [created.id])
        #expect(try await Self.indexRowCount(database.pool) == 6)

        // An update that changes no searchable field leaves the rows as they are.
        var moved = try await patients.get(created.id)
        moved.address = "Calle Mayor 1"
        try await patients.update(moved)
        #expect(try await Self.tokens(database.pool, created.id) == "12 34 600 garces giuseppe x")
    }

    /// With the names (and so the sort key) unchanged, an update writes only the tokens
    /// that appear or disappear; a token another field still holds stays.
    @Test func updateKeepingTheNamesRewritesOnlyTheTokensThatChanged() async throws {
        let database = try await TemporaryVaultDatabase.open()
        defer { Task { await database.close() } }
        let patients = SQLCipherPatientRepository(pool: database.pool, clock: SteppingClock().recordClock)
        let created = try await patients.create(F.patient("Ana", "Ruiz", email: "ana@ex.com", phone: "600 111"))
        #expect(try await Self.tokens(database.pool, created.id) == "111 600 ana com ex ruiz")

        var changed = created
        changed.email = "bea@ex.com"
        changed.phoneNumber = "600 222"
        let updated = try await patients.update(changed)
        #expect(try await Self.tokens(database.pool, created.id) == "222 600 ana bea com ex ruiz")
        #expect(try await patients.search("ana").map(\.id) == [created.id])
        #expect(try await patients.search("bea 222").map(\.id) == [created.id])
        #expect(try await patients.search("111").isEmpty)

        var cleared = updated
        cleared.email = nil
        cleared.phoneNumber = nil
        try await patients.update(cleared)
        #expect(try await Self.tokens(database.pool, created.id) == "ana ruiz")
        #expect(try await patients.search("ana").map(\.id) == [created.id])
        #expect(try await patients.search("bea").isEmpty)
        #expect(try await patients.search("600").isEmpty)
        #expect(try await Self.indexRowCount(database.pool) == 2)
    }

    /// A rolled-back batch leaves no index rows behind.
    @Test func failedBatchLeavesNoIndexRows() async throws {
        let database = try await TemporaryVaultDatabase.open()
        defer { Task { await database.close() } }
        let patients = SQLCipherPatientRepository(pool: database.pool)
        let repeated = F.patient("Ana", "Ruiz")
        await expectMedVaultError(.duplicate) { try await patients.create([F.patient("Bea", "Soto"), repeated, repeated]) }
        #expect(try await Self.indexRowCount(database.pool) == 0)
        #expect(try await patients.search("bea").isEmpty)
    }

    /// Query syntax typed by a user (FTS, SQL, range edges) is only ever text: the
    /// results are SearchText's.
    @Test(arguments: [
        "\"jose", "jose\" OR \"ana", "jose OR ana", "jose AND NOT ana", "NEAR(jose ana)", "-jose", "jose -garcia",
        "ana*", "*", "^ana", "tokens:ana", "ana) OR (jose", "'; DROP TABLE patient; --", "j\u{0}ose", "AND", "OR",
        "\u{10FFFF}", "ana\u{10FFFF}", "%", "_na", "an%",
    ])
    func querySyntaxIsNeverInterpreted(query: String) async throws {
        let database = try await TemporaryVaultDatabase.open()
        defer { Task { await database.close() } }
        let patients = SQLCipherPatientRepository(pool: database.pool)
        let people = [F.patient("José", "García"), F.patient("Ana", "Ruiz"), F.patient("Ana", "Or"),
                      F.patient("Near", "And"), F.patient("Tokens", "Not")]
        try await patients.create(people)
        let found = try await patients.search(query, filter: .all, limit: 50)
        let expected = people.filter { SearchText.matches(query: query, in: $0.searchableFields) }
            .sorted { Patient.ordered($0.sortKey, $0.id, before: $1.sortKey, $1.id) }
        #expect(found.map(\.id) == expected.map(\.id))
        #expect(try await patients.count(filter: .all) == people.count)
    }
}
