import Foundation
import MedVaultCore
import Testing
@testable import MedVaultKeys

@Suite("Platform slots")
struct PlatformSlotTests {
    static func stores() throws -> [any SecretStore] {
        [InMemorySecretStore(), try FileSecretStore(directory: makeTemporaryDirectory().appendingPathComponent("secrets"))]
    }

    @Test("add, unlock, remove a platform slot", arguments: try stores())
    func addAndRemove(store: any SecretStore) async throws {
        let created = try makeKeyring()
        let keyring = try await created.keyring.addingPlatformSlot(store: store, vaultKey: created.vaultKey)
        let slot = try #require(keyring.slots.last)
        #expect(slot.kind == .platform)
        let reread = try Keyring(serialized: keyring.serialized())
        #expect(try await reread.unlock(platformSlot: slot.id, store: store) == created.vaultKey)
        #expect(try await reread.unlock(using: store) == created.vaultKey)
        #expect(try reread.unlock(password: Password("correct horse battery")) == created.vaultKey)

        let removed = try reread.removingSlot(id: slot.id, vaultKey: created.vaultKey)
        try await store.delete(account: try #require(slot.account))
        #expect(removed.slots.map(\.kind) == [.password, .recovery])
        await #expect { try await removed.unlock(platformSlot: slot.id, store: store) } throws: {
            ($0 as? MedVaultError)?.code == .notFound
        }
        await #expect { try await reread.unlock(platformSlot: slot.id, store: store) } throws: {
            ($0 as? MedVaultError)?.code == .notFound
        }
        await #expect { try await reread.unlock(using: store) } throws: { ($0 as? MedVaultError)?.code == .notFound }
    }

    @Test("unlocking with a store asks it once for the slot's secret")
    func oneLoadPerUnlock() async throws {
        let created = try makeKeyring()
        let store = CountingSecretStore()
        let keyring = try await created.keyring.addingPlatformSlot(store: store, vaultKey: created.vaultKey)
        let before = await store.loads
        #expect(try await keyring.unlock(using: store) == created.vaultKey)
        #expect(await store.loads - before == 1)
    }

    @Test("a replaced store secret is wrongKey", arguments: try stores())
    func wrongSecret(store: any SecretStore) async throws {
        let created = try makeKeyring()
        let keyring = try await created.keyring.addingPlatformSlot(store: store, account: "clinic", vaultKey: created.vaultKey)
        let slot = try #require(keyring.slots.last)
        #expect(slot.account == "clinic")
        try await store.store(SecureBytes.random(count: 32), account: "clinic")
        await #expect { try await keyring.unlock(platformSlot: slot.id, store: store) } throws: {
            ($0 as? MedVaultError)?.code == .wrongKey
        }
    }

    @Test("stores keep, replace and delete secrets", arguments: try stores())
    func storeBasics(store: any SecretStore) async throws {
        #expect(try await store.load(account: "a") == nil)
        try await store.store(SecureBytes(copying: [1, 2, 3]), account: "a")
        #expect(try await store.load(account: "a") == SecureBytes(copying: [1, 2, 3]))
        try await store.store(SecureBytes(copying: [4]), account: "a")
        #expect(try await store.load(account: "a") == SecureBytes(copying: [4]))
        try await store.delete(account: "a")
        try await store.delete(account: "a")
        #expect(try await store.load(account: "a") == nil)
    }

    @Test("file store: mode 0600, names that cannot escape the folder")
    func fileStore() throws {
        let directory = try makeTemporaryDirectory().appendingPathComponent("secrets")
        let store = try FileSecretStore(directory: directory)
        try store.store(SecureBytes.random(count: 32), account: "../../etc/passwd")
        let url = store.url(for: "../../etc/passwd")
        #expect(url.deletingLastPathComponent().standardizedFileURL.path == directory.standardizedFileURL.path)
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).count == 1)
    }
}

/// An in-memory store that counts its loads (each a keychain query on a device).
private actor CountingSecretStore: SecretStore {
    private let inner = InMemorySecretStore()
    private(set) var loads = 0

    func store(_ secret: SecureBytes, account: String) async throws { try await inner.store(secret, account: account) }

    func load(account: String) async throws -> SecureBytes? {
        loads += 1
        return try await inner.load(account: account)
    }

    func delete(account: String) async throws { await inner.delete(account: account) }
}
