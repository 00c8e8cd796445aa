import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One vault, two processes (issue #12): this test process holds a `Vault` while a
/// child process (`medvault` or `CrashProbe`) uses the same folder.
@Suite("Vault: several processes on one vault", .serialized)
struct VaultProcessTests {
    @Test("A password changed by another process survives this process regenerating the recovery key")
    func passwordChangedElsewhereSurvivesRecoveryKeyRegeneration() async throws {
        try await withTemporaryDirectory { dir in
            let old = CLIHarness.password
            let new = CLIHarness.otherPassword
            let created = try await Vault.create(at: dir.url, password: try Password(old), options: VaultFixtures.options)
            let vault = created.vault
            // The child changes the password while this process has the vault open with
            // the keyring it read before.
            let passwd = try await CLIHarness.run(["passwd", dir.url.path, "--password-stdin"], input: "\(old)\n\(new)\n")
            #expect(passwd.status == 0, "passwd failed: \(passwd.standardError)")
            let recoveryKey = try await vault.regenerateRecoveryKey()
            await vault.lock()

            let withNew = try await Vault.open(at: dir.url, password: try Password(new), options: VaultFixtures.options)
            await withNew.lock()
            let withKey = try await Vault.open(at: dir.url, recoveryKey: recoveryKey, options: VaultFixtures.options)
            await withKey.lock()
            let oldPassword = await #expect(throws: MedVaultError.self, "the replaced password opens the vault again") {
                _ = try await Vault.open(at: dir.url, password: try Password(old), options: VaultFixtures.options)
            }
            #expect(oldPassword?.code == .wrongPassword)
            let oldKey = await #expect(throws: MedVaultError.self, "the replaced recovery key opens the vault") {
                _ = try await Vault.open(at: dir.url, recoveryKey: created.recoveryKey, options: VaultFixtures.options)
            }
            #expect(oldKey?.code == .wrongRecoveryKey)
        }
    }

    @Test("Rotation while another process holds the vault open is refused with vaultInUse and changes no byte; it succeeds once the other process closed it")
    func rotationRefusedWhileAnotherProcessHoldsTheVault() async throws {
        try await withTemporaryDirectory { dir in
            let password = try Password("probe")
            let created = try await Vault.create(at: dir.url, password: password, options: VaultFixtures.options)
            try await VaultFixtures.insertRawPatients(created.vault, count: 50)
            await created.vault.lock()
            let child = try ProbeChild(["hold", dir.url.path], outputURL: dir.file("hold-output.txt"))
            try #require(try await child.waitForLines(1), "the hold probe did not open the vault")
            #expect(child.lines == ["open"])

            let vault = try await Vault.open(at: dir.url, password: password, options: VaultFixtures.options)
            let layout = vault.layout
            let keyringBefore = try #require(StorageFixtures.bytes(layout.keyring))
            let databaseBefore = try #require(StorageFixtures.bytes(layout.database))
            let refusal = await #expect(throws: MedVaultError.self, "rotation while another process has the vault open") {
                try await vault.rotateDatabaseKey()
            }
            #expect(refusal?.code == .vaultInUse)
            #expect(StorageFixtures.bytes(layout.keyring) == keyringBefore, "a refused rotation changed the keyring")
            #expect(StorageFixtures.bytes(layout.database) == databaseBefore, "a refused rotation changed the database")
            #expect(!FileManager.default.fileExists(atPath: DatabaseKeyChange.copyURL(for: layout.database).path))
            #expect(try await vault.info().databaseKeyGeneration == 1)
            #expect(try await VaultFixtures.patientCount(vault) == 50, "the vault stays usable after the refusal")

            try child.closeInput()
            try await child.waitForExit()
            #expect(child.lines == ["open", "locked"])
            try await vault.rotateDatabaseKey()
            #expect(try await vault.info().databaseKeyGeneration == 2)
            #expect(try await VaultFixtures.patientCount(vault) == 50)
            await vault.lock()
        }
    }

    @Test("A writer in another process killed with SIGKILL around a refused rotation (20 rounds): the rotation then succeeds and no acknowledged patient is lost")
    func writerKilledAroundRefusedRotation() async throws {
        var random = SeededGenerator.fromEnvironment()
        let seed = random.seed
        let replay = random
        try await replay.reportingSeed { try await withTemporaryDirectory { dir in
            let password = try Password("probe")
            let created = try await Vault.create(at: dir.url, password: password, options: VaultFixtures.options)
            await created.vault.lock()
            let vault = try await Vault.open(at: dir.url, password: password, options: VaultFixtures.options)
            var generation: UInt64 = 1
            var acknowledged: Set<UUID> = []
            var refused = 0
            for round in 1...20 {
                let context = "seed \(seed), round \(round)"
                let child = try ProbeChild(["add-patients", dir.url.path], outputURL: dir.file("writer-\(round).txt"))
                try #require(try await child.waitForLines(1), "\(context): the writer did not start writing")
                // The kill lands at a random moment before, during or after the attempt.
                let killAfter = Int.random(in: 0...30, using: &random)
                let attemptAfter = Int.random(in: 0...15, using: &random)
                async let killed: Void = Self.sigkill(child.process.processIdentifier, afterMilliseconds: killAfter)
                try await Task.sleep(for: .milliseconds(attemptAfter))
                let keyringBefore = StorageFixtures.bytes(vault.layout.keyring)
                do {
                    try await vault.rotateDatabaseKey()
                    generation += 1 // the writer had died already
                } catch let error as MedVaultError where error.code == .vaultInUse {
                    refused += 1
                    #expect(StorageFixtures.bytes(vault.layout.keyring) == keyringBefore,
                            "\(context): a refused rotation changed the keyring")
                }
                await killed
                try await child.waitForExit()
                #expect(child.process.terminationReason == .uncaughtSignal, "\(context): the writer was not killed")
                try await vault.rotateDatabaseKey()
                generation += 1

                let printed = child.lines.compactMap { UUID(uuidString: $0) }
                #expect(printed.count == child.lines.count, "\(context): the writer printed something else")
                acknowledged.formUnion(printed)
                let stored = try await Self.patientIDs(vault)
                let lost = acknowledged.subtracting(stored)
                #expect(lost.isEmpty, "\(context): \(lost.count) acknowledged patients lost")
                #expect(try await vault.info().databaseKeyGeneration == generation, "\(context)")
            }
            #expect(refused > 0, "seed \(seed): every rotation attempt came after the kill; nothing was refused")
            await vault.lock()

            let reopened = try await Vault.open(at: dir.url, password: password, options: VaultFixtures.options)
            #expect(acknowledged.subtracting(try await Self.patientIDs(reopened)).isEmpty, "seed \(seed)")
            #expect(try await reopened.info().databaseKeyGeneration == generation, "seed \(seed)")
            let verification = try await reopened.verify()
            #expect(verification.problemsBesidesTestKDF.isEmpty, "seed \(seed): \(verification.problems)")
            await reopened.lock()
        } }
    }

    static func sigkill(_ pid: Int32, afterMilliseconds delay: Int) async {
        try? await Task.sleep(for: .milliseconds(delay))
        _ = kill(pid, SIGKILL)
    }

    static func patientIDs(_ vault: Vault) async throws -> Set<UUID> {
        Set(try await vault.patients.list(filter: .all, limit: 100_000).patients.map(\.id))
    }
}
