import Foundation
import MedVaultCore
import Testing
@testable import MedVaultKeys

@Suite("Keyring changes")
struct KeyringMutationTests {
    let oldPassword = "correct horse battery"

    @Test("changing the password: old fails, new works, recovery still works, vault key unchanged")
    func changePassword() throws {
        let created = try makeKeyring(password: oldPassword)
        let updated = try created.keyring.replacingPassword(Password("new password"), vaultKey: created.vaultKey, kdf: .fastForTestsOnly)
        let reread = try Keyring(serialized: updated.serialized())
        #expect { try reread.unlock(password: Password(oldPassword)) } throws: { ($0 as? MedVaultError)?.code == .wrongPassword }
        #expect(try reread.unlock(password: Password("new password")) == created.vaultKey)
        #expect(try reread.unlock(recoveryKey: created.recoveryKey) == created.vaultKey)
        #expect(try reread.databaseKey(vaultKey: created.vaultKey) == created.databaseKey)
        #expect(reread.slots(ofKind: .password).count == 1)
        #expect(reread.wrappedCurrentKey == created.keyring.wrappedCurrentKey)
    }

    @Test("regenerating the recovery key: the old one stops working, the new one works")
    func regenerateRecovery() throws {
        let created = try makeKeyring()
        let (updated, newKey) = try created.keyring.regeneratingRecoveryKey(vaultKey: created.vaultKey)
        #expect(newKey != created.recoveryKey)
        #expect(updated.slots(ofKind: .recovery).count == 1)
        #expect { try updated.unlock(recoveryKey: created.recoveryKey) } throws: { ($0 as? MedVaultError)?.code == .wrongRecoveryKey }
        #expect(try updated.unlock(recoveryKey: RecoveryKey(parsing: newKey.formatted)) == created.vaultKey)
        #expect(try updated.unlock(password: Password(oldPassword)) == created.vaultKey)
    }

    @Test("removing slots: the last password slot stays, unknown ids are notFound")
    func removeSlots() throws {
        let created = try makeKeyring()
        let keyring = created.keyring
        let passwordSlot = keyring.slots(ofKind: .password)[0]
        #expect(throws: MedVaultError(.invalidArgument, field: "slot", reason: "the last password slot cannot be removed")) {
            _ = try keyring.removingSlot(id: passwordSlot.id, vaultKey: created.vaultKey)
        }
        #expect { try keyring.removingSlot(id: UUID(), vaultKey: created.vaultKey) } throws: {
            ($0 as? MedVaultError)?.code == .notFound
        }
        let recoverySlot = keyring.slots(ofKind: .recovery)[0]
        let withoutRecovery = try keyring.removingSlot(id: recoverySlot.id, vaultKey: created.vaultKey)
        #expect(withoutRecovery.slots.map(\.kind) == [.password])
        #expect { try withoutRecovery.unlock(recoveryKey: created.recoveryKey) } throws: {
            ($0 as? MedVaultError)?.code == .wrongRecoveryKey
        }
        #expect(try withoutRecovery.unlock(password: Password(oldPassword)) == created.vaultKey)
        let (restored, _) = try withoutRecovery.regeneratingRecoveryKey(vaultKey: created.vaultKey)
        #expect(restored.slots.map(\.kind) == [.password, .recovery])
    }

    @Test("rotation: begin records a pending key, complete promotes it, abandon drops it")
    func rotation() throws {
        let created = try makeKeyring()
        let vaultKey = created.vaultKey
        let (begun, newKey) = try created.keyring.beginningRotation(vaultKey: vaultKey)
        let reread = try Keyring(serialized: begun.serialized())
        #expect(reread.hasPendingRotation)
        #expect(try reread.databaseKey(vaultKey: vaultKey) == created.databaseKey)
        #expect(try reread.pendingDatabaseKey(vaultKey: vaultKey) == newKey)
        #expect(newKey != created.databaseKey)
        #expect { try reread.beginningRotation(vaultKey: vaultKey) } throws: { ($0 as? MedVaultError)?.code == .conflict }

        let completed = try reread.completingRotation(vaultKey: vaultKey)
        #expect(!completed.hasPendingRotation)
        #expect(completed.databaseKeyGeneration == 2)
        #expect(try completed.databaseKey(vaultKey: vaultKey) == newKey)
        #expect(try completed.unlock(password: Password(oldPassword)) == vaultKey)
        #expect(try completed.unlock(recoveryKey: created.recoveryKey) == vaultKey)
        #expect { try completed.completingRotation(vaultKey: vaultKey) } throws: {
            ($0 as? MedVaultError)?.code == .invalidArgument && ($0 as? MedVaultError)?.field == "rotation"
        }

        let (again, _) = try completed.beginningRotation(vaultKey: vaultKey)
        let abandoned = try again.abandoningRotation(vaultKey: vaultKey)
        #expect(!abandoned.hasPendingRotation)
        #expect(abandoned.databaseKeyGeneration == 2)
        #expect(try abandoned.databaseKey(vaultKey: vaultKey) == newKey)
        #expect(try abandoned.abandoningRotation(vaultKey: vaultKey) == abandoned)
    }

    @Test("a pending key moved into the current position does not open")
    func pendingIsNotCurrent() throws {
        let created = try makeKeyring()
        let (begun, _) = try created.keyring.beginningRotation(vaultKey: created.vaultKey)
        guard let pending = begun.wrappedPendingKey else {
            Issue.record("no pending key")
            return
        }
        let swapped = Keyring(
            vaultID: begun.vaultID, cipherSettings: begun.cipherSettings, slots: begun.slots,
            databaseKeyGeneration: begun.databaseKeyGeneration, wrappedCurrentKey: pending, wrappedPendingKey: nil,
            authenticationTag: begun.authenticationTag, auditRecord: nil
        )
        #expect { try swapped.databaseKey(vaultKey: created.vaultKey) } throws: { ($0 as? MedVaultError)?.code == .wrongKey }
    }
}

@Suite("Keyring argument checks")
struct KeyringArgumentTests {
    @Test("invalid cipher settings are refused at creation")
    func badCipherSettings() throws {
        var settings = CipherSettings.medVaultDefault
        settings.pageSize = 3000
        #expect { try Keyring.create(password: Password("pw"), kdf: .fastForTestsOnly, cipher: settings) } throws: {
            ($0 as? MedVaultError)?.code == .invalidArgument && ($0 as? MedVaultError)?.field == "cipherSettings"
        }
        settings = .medVaultDefault
        settings.cipher = "aes'; DROP"
        #expect(throws: MedVaultError.self) { try settings.validate() }
        #expect(throws: Never.self) { try CipherSettings.medVaultDefault.validate() }
    }

    @Test("platform slots: empty account refused, at most 32 slots")
    func platformLimits() async throws {
        let created = try makeKeyring()
        let store = InMemorySecretStore()
        await #expect { try await created.keyring.addingPlatformSlot(store: store, account: "", vaultKey: created.vaultKey) } throws: {
            ($0 as? MedVaultError)?.code == .invalidArgument && ($0 as? MedVaultError)?.field == "account"
        }
        var keyring = created.keyring
        while keyring.slots.count < 32 {
            keyring = try await keyring.addingPlatformSlot(store: store, vaultKey: created.vaultKey)
        }
        #expect(try Keyring(serialized: keyring.serialized()) == keyring)
        let full = keyring
        await #expect { try await full.addingPlatformSlot(store: store, vaultKey: created.vaultKey) } throws: {
            ($0 as? MedVaultError)?.code == .invalidArgument
        }
        #expect(await store.accounts.count == 30)
    }
}
