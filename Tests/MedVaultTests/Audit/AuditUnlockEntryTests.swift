import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultTestSupport
import Testing

/// The unlock entry is committed at open without a sync of its own (W2): it is in the
/// trail when open returns, survives the process being killed, and is synced before the
/// checkpoint file names it; unlocks that carry more than that entry commit durably.
@Suite("Audit trail: the unlock entry's commit")
struct AuditUnlockEntryTests {
    typealias F = AuditFixtures

    private static func checkpointSequence(_ vault: Vault) throws -> Int64? {
        let key = try #require(vault.database.auditKeys.key)
        guard case .valid(let saved) = try AuditCheckpoint.read(at: vault.layout.auditCheckpoint, key: key) else { return nil }
        return saved.sequence
    }

    @Test("An open commits the unlock entry unsynced; the audit checkpoint syncs it before naming it as the head")
    func unlockEntryIsSyncedBeforeItsCheckpoint() async throws {
        try await withTemporaryDirectory { directory in
            let created = try await ChangeFixtures.makeVault(directory)
            // Creation starts a new trail: its entries commit durably and are checkpointed at once.
            #expect(try await created.database.hasDeferredCommits == false)
            let vault = try await ChangeFixtures.reopen(created)
            #expect(try await F.entries(vault).map(\.action) == [.unlock, .unlock])
            #expect(try await vault.database.hasDeferredCommits)
            // The checkpoint still names the creation's head, not the unsynced entry.
            #expect(try Self.checkpointSequence(vault) == 1)
            try await vault.audit.checkpoint()
            #expect(try await vault.database.hasDeferredCommits == false)
            #expect(try Self.checkpointSequence(vault) == 2)
            #expect(try await vault.audit.verify() == .intact(entryCount: 2))
            await vault.lock()
        }
    }

    @Test("verify() syncs the unlock entry before it moves the checkpoint to it")
    func verifySyncsFirst() async throws {
        try await withTemporaryDirectory { directory in
            let vault = try await ChangeFixtures.reopen(try await ChangeFixtures.makeVault(directory))
            #expect(try await vault.database.hasDeferredCommits)
            #expect(try await vault.audit.verify() == .intact(entryCount: 2))
            #expect(try await vault.database.hasDeferredCommits == false)
            #expect(try Self.checkpointSequence(vault) == 2)
            await vault.lock()
        }
    }

    @Test("An unlock that moves refused attempts into the trail commits durably (their count file is then cleared)")
    func unlockWithFailuresCommitsDurably() async throws {
        try await withTemporaryDirectory { directory in
            let created = try await ChangeFixtures.makeVault(directory)
            let folder = created.layout.folder
            await created.lock()
            await #expect(throws: MedVaultError.self) {
                _ = try await Vault.open(at: folder, password: try Password("wrong"), options: VaultFixtures.options)
            }
            let vault = try await Vault.open(at: folder, password: try Password("probe"), options: VaultFixtures.options)
            #expect(try await F.entries(vault).map(\.action) == [.unlock, .unlockFailed, .unlock])
            #expect(try await vault.database.hasDeferredCommits == false)
            await vault.lock()
        }
    }

    @Test("A process SIGKILLed right after its open returned leaves its unlock entry in a trail that verifies")
    func unlockEntrySurvivesSIGKILL() async throws {
        try await withTemporaryDirectory { directory in
            let created = try await ChangeFixtures.makeVault(directory)
            let folder = created.layout.folder
            await created.lock()
            let child = try ProbeChild(["hold", folder.path], outputURL: directory.file("hold.txt"))
            try #require(try await child.waitForLines(1), "the hold probe did not open the vault")
            child.sigkill()
            try await child.waitForExit()
            let vault = try await Vault.open(at: folder, password: try Password("probe"), options: VaultFixtures.options)
            // The creation's, the killed child's, and this one.
            #expect(try await F.entries(vault).map(\.action) == [.unlock, .unlock, .unlock])
            #expect(try await vault.audit.verify() == .intact(entryCount: 3))
            await vault.lock()
        }
    }
}
