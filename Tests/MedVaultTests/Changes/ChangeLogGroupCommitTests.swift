import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultTestSupport
import Testing

/// The change log under group commit: each body's entries live in its savepoint, and
/// observers hear once per commit, with the union of the committed bodies' tables.
@Suite("Change log: group commit")
struct ChangeLogGroupCommitTests {
    typealias F = ChangeFixtures
    private struct BodyFailure: Error {}

    static var options: Vault.Options {
        var options = VaultFixtures.options
        var app = AppMigrations()
        app.register("three tables") { db in
            try db.executeScript("""
                CREATE TABLE app_a (id BLOB PRIMARY KEY); CREATE TABLE app_b (id BLOB PRIMARY KEY);
                CREATE TABLE app_c (id BLOB PRIMARY KEY);
                """)
        }
        options.appMigrations = app
        return options
    }

    /// A write body that inserts a row into `table` and logs it, then throws if asked.
    static func logged(_ table: String, fails: Bool = false) -> @Sendable (DatabaseConnection) throws -> Void {
        { db in
            let id = UUID()
            try db.execute("INSERT INTO \(table) (id) VALUES (?)", [id.vaultValue])
            try db.logChange(in: VaultTable(table), id: id, operation: .insert)
            if fails { throw BodyFailure() }
        }
    }

    @Test("Bodies grouped in one commit: a failed body's entries roll back with its savepoint; one notification, the union of the others' tables")
    func groupedBodies() async throws {
        try await withTemporaryDirectory { directory in
            let vault = try await F.makeVault(directory, options: Self.options)
            let pool = vault.database
            let heard = NotificationLog()
            let token = pool.commits.add { tables in heard.append(tables) }
            defer { pool.commits.remove(token) }
            // Hold the writer with a write that logs nothing, and line up three bodies behind it.
            let inWrite = Gate(), release = Gate()
            let holder = Task {
                try await pool.write(duration: .long) { _ in
                    inWrite.open()
                    release.waitBlocking()
                }
            }
            await inWrite.waitUntilOpen()
            var writes: [Task<Void, any Error>] = []
            for (table, fails) in [("app_a", false), ("app_b", true), ("app_c", false)] {
                let before = pool.writerQueueLength
                writes.append(Task { try await pool.write(Self.logged(table, fails: fails)) })
                while pool.writerQueueLength == before { try await Task.sleep(for: .milliseconds(2)) }
            }
            let commitsBefore = pool.writerCommitCount
            release.open()
            try await holder.value
            try await writes[0].value
            await #expect(throws: BodyFailure.self) { try await writes[1].value }
            try await writes[2].value
            #expect(pool.writerCommitCount - commitsBefore == 2)  // the holder's, then the group's
            // The holder logged nothing: no notification for it; the group: one, without app_b.
            #expect(heard.values == [["app_a", "app_c"]])
            let entries = try await F.entries(vault)
            #expect(entries.map(\.table) == ["app_a", "app_c"])
            #expect(entries.map(\.sequence) == [1, 2])
            await vault.lock()
        }
    }
}

/// The table sets a `CommitSignal` listener received, in order.
final class NotificationLog: @unchecked Sendable {
    // Safety of @unchecked Sendable: `received` is read and written only under `lock`.
    private let lock = NSLock()
    private var received: [Set<VaultTable>] = []

    func append(_ tables: Set<VaultTable>) { lock.withLock { received.append(tables) } }
    var values: [Set<VaultTable>] { lock.withLock { received } }
}
