import Foundation
@testable import MedVault
import MedVaultCore
@testable import MedVaultKeys
import MedVaultTestSupport
import Testing

/// The keyring's record of the trail (keyring format version 2) against an attacker
/// holding the database key and the files but not the vault key (docs/audit.md, "The
/// keyring's record"): a trail emptied with its checkpoint, an older checkpoint put back
/// with the trail cut to match, a restore's checkpoint copied from another restore.
@Suite("Audit trail: its absence and its past, recorded in the keyring")
struct AuditAnchorTests {
    typealias F = AuditFixtures

    static func key(_ vault: Vault) throws -> AuditKey { try #require(vault.database.auditKeys.key) }

    static func record(_ vault: Vault) throws -> AuditAnchor.Reading {
        try AuditAnchor.read(try KeyringFile.read(at: vault.layout.keyring), key: try key(vault))
    }

    static func reopen(_ folder: URL) async throws -> Vault {
        try await Vault.open(at: folder, password: try Password("probe"), options: VaultFixtures.options)
    }

    @Test("A new vault's keyring records its trail (version 2); the record follows the checkpoint and survives key operations")
    func recordFollowsTheHead() async throws {
        try await withTemporaryDirectory { directory in
            let vault = try await AuditTamperTests.makeTrail(directory)
            #expect(try KeyringFile.read(at: vault.layout.keyring).formatVersion == 2)
            guard case .valid(let anchor) = try Self.record(vault), let trail = anchor.trail else {
                Issue.record("no record in the keyring")
                return
            }
            #expect(trail.sequence == 13 && anchor.pendingRestore == nil)
            try await vault.changePassword(from: try Password("probe"), to: try Password("probe two"))
            guard case .valid(let after) = try Self.record(vault), let moved = after.trail else {
                Issue.record("the password change dropped the record")
                return
            }
            #expect(moved.first == trail.first && moved.sequence == 14)
            #expect(try await vault.audit.verify() == .intact(entryCount: 14))
            await vault.lock()
        }
    }

    @Test("A trail emptied with its checkpoint deleted is reported as emptied, also after the next unlock starts a new one")
    func emptiedTrail() async throws {
        try await withTemporaryDirectory { directory in
            let vault = try await AuditTamperTests.makeTrail(directory)
            try await F.tamper(vault, "DELETE FROM medvault_audit")
            try FileManager.default.removeItem(at: vault.layout.auditCheckpoint)
            #expect(try await vault.audit.verify() == .tampered(sequence: 1, problem: .emptied))
            // At rest: the next unlock writes entry 1 of a new trail; it stays reported.
            await vault.lock()
            let reopened = try await Self.reopen(vault.layout.folder)
            #expect(try await F.entries(reopened).count == 1)
            #expect(try await reopened.audit.verify() == .tampered(sequence: 1, problem: .emptied))
            await reopened.lock()
            let again = try await Self.reopen(vault.layout.folder)
            #expect(try await again.audit.verify() == .tampered(sequence: 1, problem: .emptied))
            await again.lock()
        }
    }

    @Test("An older checkpoint put back with the trail cut to match is reported as rolled back, and no later checkpoint launders it")
    func replayedCheckpoint() async throws {
        try await withTemporaryDirectory { directory in
            let vault = try await AuditTamperTests.makeTrail(directory)
            let older = try Data(contentsOf: vault.layout.auditCheckpoint)
            _ = try await F.createPatients(vault, count: 5)
            #expect(try await vault.audit.verify() == .intact(entryCount: 18))
            try await F.tamper(vault, "DELETE FROM medvault_audit WHERE seq > 13")
            try older.write(to: vault.layout.auditCheckpoint)
            #expect(try await vault.audit.verify() == .tampered(sequence: 14, problem: .rolledBack))
            // New entries (an unlock at rest, writes, checkpoints) neither hide it nor move the record.
            await vault.lock()
            let reopened = try await Self.reopen(vault.layout.folder)
            _ = try await F.createPatients(reopened, count: 6)
            try await reopened.audit.checkpoint()
            #expect(try await reopened.audit.verify() == .tampered(sequence: 18, problem: .rolledBack))
            guard case .valid(let anchor) = try Self.record(reopened) else {
                Issue.record("the record no longer authenticates")
                return
            }
            #expect(anchor.trail?.sequence == 18)
            await reopened.lock()
        }
    }

    @Test("A checkpoint never moves past a tail cut and written on again: it stays reported")
    func checkpointDoesNotLaunderARewrittenTail() async throws {
        try await withTemporaryDirectory { directory in
            let vault = try await AuditTamperTests.makeTrail(directory)
            let saved = try Data(contentsOf: vault.layout.auditCheckpoint)
            try await F.tamper(vault, "DELETE FROM medvault_audit WHERE seq > 10")
            _ = try await F.createPatients(vault, count: 5)
            try await vault.audit.checkpoint()
            #expect(try Data(contentsOf: vault.layout.auditCheckpoint) == saved)
            #expect(try await vault.audit.verify() == .tampered(sequence: 13, problem: .badCheckpoint))
            await vault.lock()
        }
    }

    @Test("A restore's checkpoint is honoured once; copied back later, or from another restore, it records nothing and is reported")
    func reusedRestoreCheckpoint() async throws {
        try await withTemporaryDirectory { directory in
            let vault = try await AuditTamperTests.makeTrail(directory)
            try await vault.backup(to: directory.file("backup"))
            await vault.lock()
            for name in ["restored", "other"] {
                try await Vault.restore(from: directory.file("backup"), to: directory.file(name),
                                        password: try Password("probe"), options: VaultFixtures.options)
            }
            let restoredFolder = directory.file("restored")
            let checkpointURL = VaultLayout(folder: restoredFolder).auditCheckpoint
            let ownRestore = try Data(contentsOf: checkpointURL)
            let otherRestore = try Data(contentsOf: VaultLayout(folder: directory.file("other")).auditCheckpoint)
            #expect(ownRestore != otherRestore, "every restore's checkpoint carries its own id")

            let restored = try await Self.reopen(restoredFolder)
            #expect(try await restored.audit.verify().isIntact)
            var count = try await F.entries(restored).count
            await restored.lock()

            for copied in [ownRestore, otherRestore] {
                try copied.write(to: checkpointURL)
                let reopened = try await Self.reopen(restoredFolder)
                let entries = try await F.entries(reopened)
                // Only this unlock's entry: no second restore recorded.
                #expect(entries.count == count + 1)
                #expect(entries.last?.action == .unlock)
                #expect(try await reopened.audit.verify() == .tampered(sequence: 0, problem: .reusedRestoreCheckpoint))
                await reopened.lock()
                #expect(try Data(contentsOf: checkpointURL) == copied, "a reused restore checkpoint was overwritten")
                count = try await withIntactCheckpoint(restoredFolder)
            }
        }
    }

    @Test("A restore's pending record pasted into the live keyring is no blank cheque: an emptied trail is still reported")
    func pastedPendingRecord() async throws {
        try await withTemporaryDirectory { directory in
            let vault = try await AuditTamperTests.makeTrail(directory)
            try await vault.backup(to: directory.file("backup"))
            _ = try await F.createPatients(vault, count: 3)
            await vault.lock()
            try await Vault.restore(from: directory.file("backup"), to: directory.file("other"),
                                    password: try Password("probe"), options: VaultFixtures.options)
            // The restored folder's record (a restore pending, never unlocked) into the live keyring.
            let pending = try [UInt8](Data(contentsOf: VaultLayout(folder: directory.file("other")).keyring))
            let liveURL = vault.layout.keyring
            var live = try [UInt8](Data(contentsOf: liveURL))
            let size = AuditAnchor.byteCount
            live.replaceSubrange((live.count - 32 - size)..<(live.count - 32),
                                 with: pending[(pending.count - 32 - size)..<(pending.count - 32)])
            let body = Array(live.dropLast(32))
            try Data(body + KeyringCodec.checksum(body)).write(to: liveURL)
            let reopened = try await Self.reopen(vault.layout.folder)
            try await F.tamper(reopened, "DELETE FROM medvault_audit")
            try FileManager.default.removeItem(at: reopened.layout.auditCheckpoint)
            #expect(try await reopened.audit.verify() == .tampered(sequence: 1, problem: .emptied))
            await reopened.lock()
            let again = try await Self.reopen(vault.layout.folder)
            #expect(try await again.audit.verify() == .tampered(sequence: 1, problem: .emptied))
            await again.lock()
        }
    }

    /// Puts a checkpoint of the current head back (what verify() of the unlocked vault
    /// writes once the trail is intact again): the next case starts clean.
    /// - Returns: The trail's entry count then.
    private func withIntactCheckpoint(_ folder: URL) async throws -> Int {
        try FileManager.default.removeItem(at: VaultLayout(folder: folder).auditCheckpoint)
        let vault = try await Self.reopen(folder)
        try await vault.audit.checkpoint(creating: true)
        #expect(try await vault.audit.verify().isIntact)
        let count = try await F.entries(vault).count
        await vault.lock()
        return count
    }

    @Test("A damaged record in the keyring leaves the vault opening and is reported as badCheckpoint, never rewritten")
    func damagedRecord() async throws {
        try await withTemporaryDirectory { directory in
            let vault = try await AuditTamperTests.makeTrail(directory)
            let url = vault.layout.keyring
            await vault.lock()
            var bytes = try [UInt8](Data(contentsOf: url))
            let recordStart = bytes.count - 32 - AuditAnchor.byteCount
            bytes[recordStart + 40] ^= 1
            let resealed = Array(bytes.dropLast(32))
            try Data(resealed + KeyringCodec.checksum(resealed)).write(to: url)
            let reopened = try await Self.reopen(vault.layout.folder)
            #expect(try await reopened.audit.verify() == .tampered(sequence: 0, problem: .badCheckpoint))
            _ = try await F.createPatients(reopened, count: 2)
            try await reopened.audit.checkpoint()
            #expect(try Self.record(reopened) == .invalid)
            await reopened.lock()
        }
    }

    @Test("A version-1 keyring (a vault of the previous version) gets its record at the first unlock, from the trail it has")
    func upgradeRecordsTheTrail() async throws {
        try await withTemporaryDirectory { directory in
            let vault = try await AuditTamperTests.makeTrail(directory)
            let folder = vault.layout.folder
            await vault.lock()
            // Back to what the previous version wrote: the same keyring without the record.
            let current = try KeyringFile.read(at: VaultLayout(folder: folder).keyring)
            let vaultKey = try current.unlock(password: try Password("probe"))
            defer { vaultKey.wipe() }
            let version1 = try Keyring.assemble(
                vaultID: current.vaultID, cipherSettings: current.cipherSettings, slots: current.slots,
                generation: current.databaseKeyGeneration, current: current.wrappedCurrentKey, pending: nil,
                vaultKey: vaultKey)
            #expect(version1.formatVersion == 1)
            try KeyringFile.write(version1, to: VaultLayout(folder: folder).keyring)

            let reopened = try await Self.reopen(folder)
            guard case .valid(let anchor) = try Self.record(reopened), let trail = anchor.trail else {
                Issue.record("no record after the upgrade")
                return
            }
            #expect(trail.sequence == 14)
            #expect(try await reopened.audit.verify() == .intact(entryCount: 14))
            await reopened.lock()
        }
    }
}
