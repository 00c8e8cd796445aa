import Foundation
import MedVaultCore
import Testing
@testable import MedVaultKeys

/// The keyrings of a vault's devices: a database key each, shared password and recovery slots.
@Suite("Device keyrings")
struct DeviceKeyringTests {
    @Test("A new device's keyring: the same vault key and shared slots, a database key of its own at generation 1, no platform slot")
    func newDevice() async throws {
        let created = try makeKeyring()
        let first = try await created.keyring.addingPlatformSlot(store: InMemorySecretStore(), vaultKey: created.vaultKey)
        let (device, databaseKey) = try first.forNewDevice(vaultKey: created.vaultKey)
        #expect(device.vaultID == first.vaultID && device.cipherSettings == first.cipherSettings)
        #expect(device.slots == first.slots.filter { $0.kind != .platform })
        #expect(device.sharedSlotsDigest == first.sharedSlotsDigest)
        #expect(try device.unlock(password: Password("correct horse battery")) == created.vaultKey)
        #expect(try device.databaseKey(vaultKey: created.vaultKey) == databaseKey)
        #expect(bytes(of: databaseKey) != bytes(of: created.databaseKey))
        #expect(device.databaseKeyGeneration == 1 && !device.hasPendingRotation)
        let reread = try Keyring(serialized: device.serialized())
        #expect(reread == device)
        #expect(throws: MedVaultError.self) { try first.forNewDevice(vaultKey: SecureBytes.random(count: 32)) }
    }

    @Test("Merging takes the other's shared slots and keeps this device's database key, rotation and platform slots")
    func merging() async throws {
        let created = try makeKeyring()
        let store = InMemorySecretStore()
        let (device, deviceKey) = try created.keyring.forNewDevice(vaultKey: created.vaultKey)
        let withSlot = try await device.addingPlatformSlot(store: store, vaultKey: created.vaultKey)
        let rotating = try withSlot.beginningRotation(vaultKey: created.vaultKey).keyring
        #expect(try rotating.mergingSharedSlots(of: created.keyring, vaultKey: created.vaultKey) == rotating,
                "same shared slots: unchanged")

        let changed = try created.keyring.replacingPassword(Password("otra contraseña"), vaultKey: created.vaultKey,
                                                            kdf: .fastForTestsOnly)
        let merged = try rotating.mergingSharedSlots(of: changed, vaultKey: created.vaultKey)
        #expect(merged.sharedSlotsDigest == changed.sharedSlotsDigest && merged.sharedSlotsDigest != rotating.sharedSlotsDigest)
        #expect(merged.slots(ofKind: .platform) == rotating.slots(ofKind: .platform))
        #expect(merged.wrappedCurrentKey == rotating.wrappedCurrentKey && merged.wrappedPendingKey == rotating.wrappedPendingKey)
        #expect(try merged.databaseKey(vaultKey: created.vaultKey) == deviceKey)
        #expect(try merged.unlock(password: Password("otra contraseña")) == created.vaultKey)
        #expect(throws: MedVaultError.self) { try merged.unlock(password: Password("correct horse battery")) }
        #expect(try await merged.unlock(using: store) == created.vaultKey)
    }

    @Test("Merging refuses another vault's keyring and one whose authentication fails")
    func mergingRefusals() throws {
        let created = try makeKeyring()
        let other = try makeKeyring()
        let foreign = #expect(throws: MedVaultError.self) {
            try created.keyring.mergingSharedSlots(of: other.keyring, vaultKey: created.vaultKey)
        }
        #expect(foreign?.code == .corrupted)
        let forged = tampered(created.keyring, slots: Array(created.keyring.slots.reversed()))
        let altered = #expect(throws: MedVaultError.self) {
            try created.keyring.mergingSharedSlots(of: forged, vaultKey: created.vaultKey)
        }
        #expect(altered?.code == .corrupted)
    }
}
