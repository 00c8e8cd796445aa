import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultTestSupport
import Testing

/// `verify()` against an attacker holding the database key: raw SQL on the file
/// (docs/audit.md, "What verify detects").
@Suite("Audit trail: tampering detected by verify()")
struct AuditTamperTests {
    typealias F = AuditFixtures

    /// A vault with 1 unlock + 12 patient entries, its checkpoint at the head (13).
    static func makeTrail(_ directory: TemporaryDirectory) async throws -> Vault {
        let vault = try await ChangeFixtures.makeVault(directory)
        _ = try await F.createPatients(vault, count: 12)
        #expect(try await vault.audit.verify() == .intact(entryCount: 13))
        return vault
    }

    @Test("Editing any column of entry k is reported as edited at k", arguments: [
        "time = time + 1", "device = device + 1", "actor = randomblob(16)", "action = 2",
        "entity_table = 3", "entity_id = randomblob(16)", "mac = randomblob(32)", "time = CAST(time AS TEXT) || 'x'",
        "origin = randomblob(16)",
    ])
    func editedColumn(change: String) async throws {
        try await withTemporaryDirectory { directory in
            let vault = try await Self.makeTrail(directory)
            try await F.tamper(vault, "UPDATE medvault_audit SET \(change) WHERE seq = 7")
            #expect(try await vault.audit.verify() == .tampered(sequence: 7, problem: .edited))
            await vault.lock()
        }
    }

    @Test("An entry re-MACed with another key (someone without the vault key) is reported as edited")
    func forgedMAC() async throws {
        try await withTemporaryDirectory { directory in
            let vault = try await Self.makeTrail(directory)
            let row = try await vault.database.read { db in
                try db.fetchOne(AuditTrailReader.selectForVerify + " LIMIT 1", [.integer(4)]) { AuditTrailReader.columns($0) }
            }
            let previous = try await vault.database.read { db in
                try db.fetchOne("SELECT mac FROM medvault_audit WHERE seq = 4") { [UInt8]($0.blob(at: 0)) }
            }
            var columns = try #require(row).0
            columns.entityID = UUID().vaultValue
            let wrongKey = try AuditKey(vaultKey: SecureBytes.random(count: 32), vaultID: vault.vaultID)
            let forged = try AuditChain.mac(wrongKey, previous: try #require(previous), columns)
            try await F.tamper(vault, "UPDATE medvault_audit SET entity_id = ?, mac = ? WHERE seq = 5",
                               [columns.entityID, .blob(Data(forged))])
            #expect(try await vault.audit.verify() == .tampered(sequence: 5, problem: .edited))
            await vault.lock()
        }
    }

    @Test("Deleting entry k is reported as missing at k; renumbering the rest after it as edited at k")
    func deletedEntry() async throws {
        try await withTemporaryDirectory { directory in
            let vault = try await Self.makeTrail(directory)
            try await F.tamper(vault, "DELETE FROM medvault_audit WHERE seq = 6")
            #expect(try await vault.audit.verify() == .tampered(sequence: 6, problem: .missing))
            try await F.tamper(vault, "UPDATE medvault_audit SET seq = seq - 1 WHERE seq > 6")
            #expect(try await vault.audit.verify() == .tampered(sequence: 6, problem: .edited))
            await vault.lock()
        }
    }

    @Test("Swapping two entries is reported as reordered at the first of them")
    func swappedEntries() async throws {
        try await withTemporaryDirectory { directory in
            let vault = try await Self.makeTrail(directory)
            try await F.tamper(vault, "UPDATE medvault_audit SET seq = -1 WHERE seq = 4")
            try await F.tamper(vault, "UPDATE medvault_audit SET seq = 4 WHERE seq = 9")
            try await F.tamper(vault, "UPDATE medvault_audit SET seq = 9 WHERE seq = -1")
            #expect(try await vault.audit.verify() == .tampered(sequence: 4, problem: .reordered))
            await vault.lock()
        }
    }

    @Test("Deleting the last m entries is reported as truncated after the new head", arguments: [1, 2, 12])
    func truncatedTail(count: Int) async throws {
        try await withTemporaryDirectory { directory in
            let vault = try await Self.makeTrail(directory)
            try await F.tamper(vault, "DELETE FROM medvault_audit WHERE seq > ?", [.integer(Int64(13 - count))])
            #expect(try await vault.audit.verify() == .tampered(sequence: Int64(14 - count), problem: .truncated))
            await vault.lock()
        }
    }

    @Test("A tail truncated and then written on again no longer matches the checkpoint")
    func truncatedThenExtended() async throws {
        try await withTemporaryDirectory { directory in
            let vault = try await Self.makeTrail(directory)
            try await F.tamper(vault, "DELETE FROM medvault_audit WHERE seq > 10")
            _ = try await F.createPatients(vault, count: 3)
            #expect(try await vault.audit.verify() == .tampered(sequence: 13, problem: .badCheckpoint))
            await vault.lock()
        }
    }

    @Test("A deleted, edited or foreign checkpoint file is reported as badCheckpoint and never overwritten")
    func badCheckpointFile() async throws {
        try await withTemporaryDirectory { directory in
            let vault = try await Self.makeTrail(directory)
            let url = vault.layout.auditCheckpoint
            let original = try Data(contentsOf: url)
            var edited = original
            edited[12] ^= 1
            try edited.write(to: url)
            #expect(try await vault.audit.verify() == .tampered(sequence: 0, problem: .badCheckpoint))
            _ = try await F.createPatients(vault, count: 1)
            try await vault.audit.checkpoint()
            #expect(try Data(contentsOf: url) == edited)

            try FileManager.default.removeItem(at: url)
            #expect(try await vault.audit.verify() == .tampered(sequence: 0, problem: .badCheckpoint))
            try await vault.audit.checkpoint()
            #expect(!FileManager.default.fileExists(atPath: url.path))

            // Another vault's checkpoint does not authenticate under this vault's key.
            let other = try await ChangeFixtures.makeVault(directory, name: "other")
            try FileManager.default.copyItem(at: other.layout.auditCheckpoint, to: url)
            #expect(try await vault.audit.verify() == .tampered(sequence: 0, problem: .badCheckpoint))
            await other.lock()
            await vault.lock()
        }
    }

    @Test("An intact trail verifies after reopening, and verify() moves the checkpoint to the head")
    func intactAfterReopen() async throws {
        try await withTemporaryDirectory { directory in
            let vault = try await Self.makeTrail(directory)
            let reopened = try await ChangeFixtures.reopen(vault)
            #expect(try await reopened.audit.verify() == .intact(entryCount: 14))
            let reading = try AuditCheckpoint.read(at: reopened.layout.auditCheckpoint, key: try #require(reopened.database.auditKeys.key))
            guard case .valid(let checkpoint) = reading else { Issue.record("no valid checkpoint"); return }
            #expect(checkpoint.sequence == 14)
            await reopened.lock()
        }
    }
}

/// A checkpoint path that is not a regular file never blocks an unlock.
@Suite("Audit trail: hostile checkpoint paths")
struct AuditCheckpointPathTests {
    @Test("A checkpoint replaced by a folder, a link or a FIFO: the vault still opens, verify() reports badCheckpoint, nothing is written there",
          arguments: ["folder", "link", "fifo"])
    func hostileCheckpoint(kind: String) async throws {
        try await withTemporaryDirectory { directory in
            let vault = try await ChangeFixtures.makeVault(directory)
            let url = vault.layout.auditCheckpoint
            await vault.lock()
            let moved = directory.file("moved-checkpoint")
            try FileManager.default.moveItem(at: url, to: moved)
            switch kind {
            case "folder": try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
            case "link": try FileManager.default.createSymbolicLink(at: url, withDestinationURL: moved)
            default: #expect(mkfifo(url.path, 0o600) == 0)
            }
            let reopened = try await Vault.open(at: vault.layout.folder, password: try Password("probe"),
                                                options: VaultFixtures.options)
            #expect(try await reopened.audit.verify() == .tampered(sequence: 0, problem: .badCheckpoint))
            await reopened.lock()
            let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
            let type = attributes[.type] as? FileAttributeType
            #expect(type != .typeRegular)
            // The link's target was not written through it.
            #expect(try Data(contentsOf: moved).count == 81)
        }
    }
}
