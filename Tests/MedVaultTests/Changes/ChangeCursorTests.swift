import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultTestSupport
import Testing

/// Reading the log page by page with an opaque, persistable cursor, and pruning it.
@Suite("Change log: cursors, pages and pruning")
struct ChangeCursorTests {
    typealias F = ChangeFixtures

    @Test("Pages follow each other without overlap; a cursor survives JSON and reads the same page")
    func paging() async throws {
        try await withTemporaryDirectory { directory in
            let vault = try await F.makeVault(directory)
            try await F.createPatients(vault, count: 5)
            let first = try await vault.changes(after: nil, limit: 2)
            #expect(first.entries.map(\.sequence) == [1, 2])
            #expect(first.hasMore)
            let data = try JSONEncoder().encode(first.next)
            let decoded = try JSONDecoder().decode(ChangeCursor.self, from: data)
            #expect(decoded == first.next)
            let second = try await vault.changes(after: decoded, limit: 2)
            #expect(second.entries.map(\.sequence) == [3, 4])
            let third = try await vault.changes(after: second.next, limit: 2)
            #expect(third.entries.map(\.sequence) == [5])
            #expect(!third.hasMore)
            let empty = try await vault.changes(after: third.next, limit: 2)
            #expect(empty.entries.isEmpty && !empty.hasMore && empty.next == third.next)
            #expect(try await vault.latestChangeCursor() == third.next)
            await vault.lock()
        }
    }

    @Test("A cursor of another vault, one ahead of the log, a negative one, and a bad limit are refused")
    func refusedCursors() async throws {
        try await withTemporaryDirectory { directory in
            let vault = try await F.makeVault(directory)
            let other = try await F.makeVault(directory, name: "other")
            try await F.createPatients(other, count: 2)
            let foreign = try await other.latestChangeCursor()
            await expectMedVaultError(.invalidArgument) { try await vault.changes(after: foreign) }
            await expectMedVaultError(.invalidArgument) { try await vault.pruneChanges(through: foreign) }
            // The same vault's cursor, from a time its log was longer (an older copy restored since).
            let ahead = try JSONDecoder().decode(ChangeCursor.self, from: Data(#"{"v":"\#(vault.vaultID.uuidString)","s":7}"#.utf8))
            await expectMedVaultError(.invalidArgument) { try await vault.changes(after: ahead) }
            await expectMedVaultError(.invalidArgument) { try await vault.pruneChanges(through: ahead) }
            #expect(throws: DecodingError.self) {
                try JSONDecoder().decode(ChangeCursor.self, from: Data(#"{"v":"\#(vault.vaultID.uuidString)","s":-1}"#.utf8))
            }
            await expectMedVaultError(.invalidArgument) { try await vault.changes(limit: 0) }
            await expectMedVaultError(.invalidArgument) { try await vault.changes(limit: 10_001) }
            await vault.lock()
            await other.lock()
            await expectMedVaultError(.locked) { try await vault.changes() }
        }
    }

    @Test("Pruning deletes through the cursor only, keeps the newest entry; sequences and the clock continue; an older cursor is told it missed entries")
    func pruning() async throws {
        try await withTemporaryDirectory { directory in
            let vault = try await F.makeVault(directory)
            try await F.createPatients(vault, count: 4)
            let page = try await vault.changes(after: nil, limit: 3)
            #expect(try await vault.pruneChanges(through: page.next) == 3)
            #expect(try await F.entries(vault, after: page.next).0.map(\.sequence) == [4])
            // A reader still at the start would silently miss entries 1-3: refused.
            await expectMedVaultError(.notFound) { try await vault.changes(after: nil) }
            // Pruning through the newest entry keeps it: the sequence and the clock go on from it.
            let all = try await vault.latestChangeCursor()
            #expect(try await vault.pruneChanges(through: all) == 0)
            #expect(try await F.entries(vault, after: page.next).0.map(\.sequence) == [4])
            let reopened = try await F.reopen(vault)
            // The clock as if the kept entry had been stamped a day ahead.
            let ahead = (Int64(Date().timeIntervalSince1970 * 1000) + 86_400_000) << 16
            try await reopened.database.write { db in
                try db.execute("UPDATE medvault_change SET hlc = ?", [.integer(ahead)])
            }
            try await F.createPatients(reopened, count: 1)
            let after = try await F.entries(reopened, after: all).0
            #expect(after.map(\.sequence) == [5])
            #expect(after.map(\.timestamp.rawValue) == [ahead + 1])
            #expect(try await reopened.pruneChanges(through: reopened.latestChangeCursor()) == 1)
            #expect(try await F.entries(reopened, after: all).0.map(\.sequence) == [5])
            await reopened.lock()
        }
    }
}
