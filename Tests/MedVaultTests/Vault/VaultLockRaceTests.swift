import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultTestSupport
import Testing

/// `lock()` fired at many points during each key operation: afterwards the vault opens
/// with the old or the new secret (matching whether the operation reported success),
/// and with the recovery key, every time.
@Suite("Vault: lock() in the middle of key operations")
struct VaultLockRaceTests {
    /// Real (OWASP-floor) Argon2id cost, so that lock() lands inside a derivation.
    static let realKDF = Argon2Parameters.productionFloor
    static let delays: [Duration] = [0, 1, 3, 8, 15, 25, 40, 60, 90, 130, 180].map { .milliseconds($0) }
    /// Fractions of an uninterrupted run's duration at which lock() fires: from before
    /// the operation starts to well after it ends, whatever the machine's load.
    /// The last one, infinity, fires lock() only once the operation has returned, so
    /// that a completed operation is seen even on a machine slower than at the baseline.
    static let fractions: [Double] = [0, 0.05, 0.15, 0.3, 0.5, 0.7, 0.9, .infinity]

    /// Sleeps `fraction` × `baseline`, or until `task` has finished for infinity.
    static func wait<Value>(_ fraction: Double, of baseline: Duration, or task: Task<Value, any Error>) async throws {
        if fraction.isInfinite {
            _ = await task.result
        } else {
            try await Task.sleep(for: baseline * fraction)
        }
    }

    /// How long `operation` takes here and now, uninterrupted.
    static func duration(of operation: () async throws -> Void) async throws -> Duration {
        let clock = ContinuousClock()
        let start = clock.now
        try await operation()
        return clock.now - start
    }

    static func opens(_ folder: URL, password: Password) async -> Bool {
        guard let vault = try? await Vault.open(at: folder, password: password, options: Vault.Options(kdf: realKDF)) else {
            return false
        }
        await vault.lock()
        return true
    }

    static func opens(_ folder: URL, recoveryKey: RecoveryKey) async -> Bool {
        guard let vault = try? await Vault.open(at: folder, recoveryKey: recoveryKey, options: VaultFixtures.options) else {
            return false
        }
        await vault.lock()
        return true
    }

    static func expectLockedFailure<Value>(_ result: Result<Value, any Error>) {
        if case .failure(let error) = result {
            #expect((error as? MedVaultError)?.code == .locked, "a key operation stopped by lock() fails with locked, got \(error)")
        }
    }

    @Test("changePassword: lock() at any point leaves the old or the new password working, and the recovery key")
    func lockDuringPasswordChange() async throws {
        var outcomes: Set<Bool> = []
        let baseline = try await withTemporaryDirectory { dir in
            let password = try Password("baseline password")
            let vault = try await Vault.create(at: dir.url, password: password, options: Vault.Options(kdf: Self.realKDF)).vault
            let duration = try await Self.duration { try await vault.changePassword(from: password, to: try Password("another password")) }
            await vault.lock()
            return duration
        }
        for delay in Self.fractions {
            try await withTemporaryDirectory { dir in
                let old = try Password("old password \(delay)")
                let new = try Password("new password \(delay)")
                let created = try await Vault.create(at: dir.url, password: old, options: Vault.Options(kdf: Self.realKDF))
                let vault = created.vault
                let change = Task { try await vault.changePassword(from: old, to: new) }
                try await Self.wait(delay, of: baseline, or: change)
                await vault.lock()
                let result = await change.result
                let newOpens = await Self.opens(dir.url, password: new)
                let oldOpens = await Self.opens(dir.url, password: old)
                outcomes.insert((try? result.get()) != nil)
                switch result {
                case .success:
                    #expect(newOpens && !oldOpens, "after a reported change only the new password opens (delay \(delay))")
                case .failure:
                    Self.expectLockedFailure(result)
                    #expect(oldOpens && !newOpens, "after a stopped change only the old password opens (delay \(delay))")
                }
                #expect(await Self.opens(dir.url, recoveryKey: created.recoveryKey), "recovery key (delay \(delay))")
            }
        }
        // The delays cover both a change stopped by lock() and one that finished first.
        #expect(outcomes == [true, false])
    }

    @Test("regenerateRecoveryKey: lock() at any point leaves the old or the new recovery key working, and the password")
    func lockDuringRecoveryKeyRegeneration() async throws {
        for delay in Self.delays.prefix(6) {
            try await withTemporaryDirectory { dir in
                let password = try VaultFixtures.password()
                let created = try await Vault.create(at: dir.url, password: password, options: VaultFixtures.options)
                let vault = created.vault
                let regenerate = Task { try await vault.regenerateRecoveryKey() }
                try await Task.sleep(for: delay)
                await vault.lock()
                let result = await regenerate.result
                let oldOpens = await Self.opens(dir.url, recoveryKey: created.recoveryKey)
                switch result {
                case .success(let newKey):
                    #expect(await Self.opens(dir.url, recoveryKey: newKey))
                    #expect(!oldOpens)
                case .failure:
                    Self.expectLockedFailure(result)
                    #expect(oldOpens)
                }
                let reopened = try await Vault.open(at: dir.url, password: password, options: VaultFixtures.options)
                await reopened.lock()
            }
        }
    }

    @Test("addPlatformSlot and removeSlot: lock() at any point leaves a keyring that opens with password and recovery key")
    func lockDuringSlotChanges() async throws {
        for delay in Self.delays.prefix(6) {
            try await withTemporaryDirectory { dir in
                let password = try VaultFixtures.password()
                let created = try await Vault.create(at: dir.url, password: password, options: VaultFixtures.options)
                let store = InMemorySecretStore()
                let add = Task { try await created.vault.addPlatformSlot(store: store) }
                try await Task.sleep(for: delay)
                await created.vault.lock()
                let added = await add.result
                if case .success = added {
                    let viaStore = try await Vault.open(at: dir.url, secretStore: store, options: VaultFixtures.options)
                    await viaStore.lock()
                } else {
                    Self.expectLockedFailure(added)
                }
                #expect(await Self.opens(dir.url, recoveryKey: created.recoveryKey))

                // Removal of the platform slot, when it was added.
                guard case .success(let slotID) = added else { return }
                let vault = try await Vault.open(at: dir.url, password: password, options: VaultFixtures.options)
                let remove = Task { try await vault.removeSlot(id: slotID) }
                try await Task.sleep(for: delay)
                await vault.lock()
                let removed = await remove.result
                let storeOpens = (try? await Vault.open(at: dir.url, secretStore: store, options: VaultFixtures.options)) != nil
                switch removed {
                case .success: #expect(!storeOpens)
                case .failure:
                    Self.expectLockedFailure(removed)
                    #expect(storeOpens)
                }
                let again = try await Vault.open(at: dir.url, password: password, options: VaultFixtures.options)
                await again.lock()
                #expect(await Self.opens(dir.url, recoveryKey: created.recoveryKey))
            }
        }
    }

    @Test("rotateDatabaseKey: lock() at any point leaves a vault that opens with every record")
    func lockDuringRotation() async throws {
        var outcomes: Set<Bool> = []
        let baseline = try await withTemporaryDirectory { dir in
            let created = try await Vault.create(at: dir.url, password: try VaultFixtures.password(), options: VaultFixtures.options)
            try await VaultFixtures.insertRawPatients(created.vault, count: 3000)
            let duration = try await Self.duration { try await created.vault.rotateDatabaseKey() }
            await created.vault.lock()
            return duration
        }
        for delay in Self.fractions {
            try await withTemporaryDirectory { dir in
                let password = try VaultFixtures.password()
                let created = try await Vault.create(at: dir.url, password: password, options: VaultFixtures.options)
                try await VaultFixtures.insertRawPatients(created.vault, count: 3000)
                let vault = created.vault
                let rotate = Task { try await vault.rotateDatabaseKey() }
                try await Self.wait(delay, of: baseline, or: rotate)
                await vault.lock()
                let result = await rotate.result
                let reopened = try await Vault.open(at: dir.url, password: password, options: VaultFixtures.options)
                #expect(try await VaultFixtures.patientCount(reopened) == 3000)
                let info = try await reopened.info()
                outcomes.insert((try? result.get()) != nil)
                switch result {
                case .success: #expect(info.databaseKeyGeneration == 2)
                case .failure:
                    Self.expectLockedFailure(result)
                    #expect(info.databaseKeyGeneration == 1)
                }
                #expect(try await reopened.verify().problemsBesidesTestKDF.isEmpty)
                await reopened.lock()
                #expect(await Self.opens(dir.url, recoveryKey: created.recoveryKey))
            }
        }
        #expect(outcomes == [true, false])
    }
}
