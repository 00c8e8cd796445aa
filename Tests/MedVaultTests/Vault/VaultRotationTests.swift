import CSQLCipher
import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultTestSupport
import Testing

@Suite("Vault: database key rotation")
struct VaultRotationTests {
    @Test("After a rotation the old database key no longer opens the file and every record reads back")
    func rotationReplacesTheKey() async throws {
        try await withTemporaryDirectory { dir in
            let password = try VaultFixtures.password()
            let created = try await Vault.create(at: dir.url, password: password, options: VaultFixtures.options)
            try await VaultFixtures.insertRawPatients(created.vault, count: 1500)
            let oldKey = try VaultFixtures.databaseKey(in: dir.url, password: password)
            let phases = ProgressLog()
            try await created.vault.rotateDatabaseKey { progress in
                switch progress.phase {
                case .pendingKeyRecorded: phases.append(0)
                case .copying: phases.append(1)
                case .verifying: phases.append(4)
                case .databaseReplaced: phases.append(2)
                case .finished: phases.append(3)
                }
            }
            #expect(phases.values.first == 0)
            #expect(phases.values.contains(1))
            // Verifying the copy is reported as its own phase, after the copying.
            #expect(Array(phases.values.suffix(3)) == [4, 2, 3])
            // The vault keeps working through and after the rotation.
            #expect(try await VaultFixtures.patientCount(created.vault) == 1500)
            #expect(try await created.vault.info().databaseKeyGeneration == 2)
            await created.vault.lock()

            let layout = VaultLayout(folder: dir.url)
            let oldOpen = await #expect(throws: MedVaultError.self) {
                _ = try await VaultDatabase.open(at: layout.database, key: oldKey, mode: .openExisting)
            }
            #expect(oldOpen?.code == .wrongKey)
            let newKey = try VaultFixtures.databaseKey(in: dir.url, password: password)
            #expect(newKey != oldKey)
            let raw = try await VaultDatabase.open(at: layout.database, key: newKey, mode: .openExisting,
                                                  migrator: MedVaultSchema.migrator)
            #expect(try await raw.read { db in try db.fetchOne("SELECT count(*) FROM patient") { row in row.int64(at: 0) } } == 1500)
            await raw.close()
            let reopened = try await Vault.open(at: dir.url, password: password, options: VaultFixtures.options)
            #expect(try await reopened.verify().problemsBesidesTestKDF.isEmpty)
            await reopened.lock()
        }
    }

    @Test("A process killed at each step of a rotation leaves a vault that opens with every record",
          arguments: [("pendingKeyRecorded", UInt64(1)), ("copying", UInt64(1)), ("databaseReplaced", UInt64(2))])
    func killedRotationRecovers(phase: String, generationAfter: UInt64) async throws {
        let probe = try #require(StorageFixtures.productPath("CrashProbe"), "CrashProbe is built with the tests")
        try await withTemporaryDirectory { dir in
            let password = try Password("probe")
            let created = try await Vault.create(at: dir.url, password: password, options: VaultFixtures.options)
            try await VaultFixtures.insertRawPatients(created.vault, count: 3000)
            await created.vault.lock()

            let process = TestProcess()
            process.executableURL = URL(fileURLWithPath: probe)
            process.arguments = ["rotate", dir.url.path, phase]
            let run = try await process.runCapturingOutput(timeout: .seconds(120))
            let message = run.errorText
            #expect(!run.timedOut, "the probe hung at \(phase)")
            #expect(process.terminationReason == .uncaughtSignal, "the probe did not die at \(phase): \(message)")

            let keyring = try KeyringFile.read(at: VaultLayout(folder: dir.url).keyring)
            #expect(keyring.hasPendingRotation, "the pending key is recorded before any step that can crash")

            let vault = try await Vault.open(at: dir.url, password: password, options: VaultFixtures.options)
            #expect(try await VaultFixtures.patientCount(vault) == 3000)
            let info = try await vault.info()
            #expect(info.databaseKeyGeneration == generationAfter)
            #expect(try await vault.verify().problemsBesidesTestKDF.isEmpty)
            #expect(!FileManager.default.fileExists(atPath: DatabaseKeyChange.copyURL(for: vault.layout.database).path))
            // And a new rotation works from there.
            try await vault.rotateDatabaseKey()
            #expect(try await VaultFixtures.patientCount(vault) == 3000)
            await vault.lock()
        }
    }
}
