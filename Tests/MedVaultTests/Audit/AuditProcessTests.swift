import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultTestSupport
import Testing

/// The trail across processes, crashes, locking and refused unlocks.
@Suite("Audit trail: processes, crashes, lock and unlock")
struct AuditProcessTests {
    typealias F = AuditFixtures

    @Test("A writer SIGKILLed mid-stream leaves a chain that verifies, one create per committed patient",
          arguments: ["add-patients", "units"])
    func killedWriter(mode: String) async throws {
        try await withTemporaryDirectory { directory in
            let (reopened, _) = try await ChangeFixtures.reopenedAfterKilledWriter(mode, in: directory)
            let entries = try await F.entries(reopened)
            #expect(try await reopened.audit.verify() == .intact(entryCount: Int64(entries.count)))
            let patients = try await ChangeFixtures.ids(in: "patient", of: reopened)
            let created = entries.filter { $0.action == .create && $0.table == .patient }.compactMap(\.entityID)
            #expect(created.count == patients.count && Set(created) == Set(patients))
            await reopened.lock()
        }
    }

    @Test("Two processes writing the same vault at once leave one chain that verifies")
    func twoProcesses() async throws {
        try await withTemporaryDirectory { directory in
            let vault = try await ChangeFixtures.makeVault(directory)
            let child = try ProbeChild(["add-patients", vault.layout.folder.path], outputURL: directory.file("probe.out"))
            #expect(try await child.waitForLines(3))
            // This process writes while the other does: each transaction reads the head fresh.
            let mine = try await F.createPatients(vault, count: 40)
            child.sigkill()
            try await child.waitForExit()
            let entries = try await F.entries(vault)
            let theirs = Set(child.lines.compactMap(UUID.init(uuidString:)))
            let created = Set(entries.filter { $0.action == .create }.compactMap(\.entityID))
            #expect(Set(mine).isSubset(of: created) && theirs.isSubset(of: created))
            #expect(theirs.count >= 3)
            // Two unlocks: this process's and the child's.
            #expect(entries.filter { $0.action == .unlock }.count == 2)
            #expect(try await vault.audit.verify() == .intact(entryCount: Int64(entries.count)))
            await vault.lock()
        }
    }

    @Test("lock() during writes: the writes admitted before it are audited, the chain verifies after reopening")
    func lockDuringWrites() async throws {
        try await withTemporaryDirectory { directory in
            let vault = try await ChangeFixtures.makeVault(directory)
            let writes = Task {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for number in 0..<100 {
                        group.addTask { _ = try? await vault.patients.create(try ChangeFixtures.patient("P", "\(number)")) }
                    }
                    try await group.waitForAll()
                }
            }
            try await Task.sleep(for: .milliseconds(20))
            await vault.lock()
            try await writes.value
            let reopened = try await Vault.open(at: vault.layout.folder, password: try Password("probe"),
                                                options: VaultFixtures.options)
            let entries = try await F.entries(reopened)
            let patients = try await reopened.database.read { db in
                try db.fetchAll("SELECT id FROM patient") { try UUID(row: $0, column: 0) }
            }
            #expect(Set(entries.filter { $0.action == .create }.compactMap(\.entityID)) == Set(patients))
            #expect(try await reopened.audit.verify() == .intact(entryCount: Int64(entries.count)))
            #expect(reopened.database.auditKeys.key?.isWiped == false)
            await reopened.lock()
            #expect(reopened.database.auditKeys.key?.isWiped == true)
        }
    }

    @Test("Refused passwords and recovery keys are counted while locked and moved into the trail by the next unlock")
    func unlockFailures() async throws {
        try await withTemporaryDirectory { directory in
            let created = try await Vault.create(at: directory.url, password: try Password("probe"), options: VaultFixtures.options)
            let folder = created.vault.layout.folder
            let failures = created.vault.layout.unlockFailures
            await created.vault.lock()
            let wrong = await #expect(throws: MedVaultError.self) {
                _ = try await Vault.open(at: folder, password: try Password("wrong"), options: VaultFixtures.options)
            }
            #expect(wrong?.code == .wrongPassword)
            let wrongKey = await #expect(throws: MedVaultError.self) {
                _ = try await Vault.open(at: folder, recoveryKey: RecoveryKey.generate(), options: VaultFixtures.options)
            }
            #expect(wrongKey?.code == .wrongRecoveryKey)
            #expect(UnlockFailureFile.read(at: failures).count == 2)

            let vault = try await Vault.open(at: folder, password: try Password("probe"), options: VaultFixtures.options)
            let entries = try await F.entries(vault)
            #expect(entries.map(\.action) == [.unlock, .unlockFailed, .unlockFailed, .unlock])
            #expect(!FileManager.default.fileExists(atPath: failures.path))
            #expect(try await vault.audit.verify().isIntact)
            await vault.lock()
        }
    }
}
