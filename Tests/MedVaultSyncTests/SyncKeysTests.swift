import Foundation
import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultTestSupport
import Testing

/// The sync keys: derivation (a vector computed independently by
/// Tests/Scripts/sync_keys_vector.py with Python's hmac and hashlib), sealing, MACs,
/// wiping, and how a vault hands them out.
@Suite("Sync keys")
struct SyncKeysTests {
    static let vaultKeyHex = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
    static let vaultID = UUID(uuidString: "6F1D2C3B-4A59-4837-2615-F4E3D2C1B0A9")!
    static let recordID = UUID(uuidString: "01234567-89AB-CDEF-0123-456789ABCDEF")!
    // python3 Tests/Scripts/sync_keys_vector.py <vaultKeyHex> 6f1d2c3b4a5948372615f4e3d2c1b0a9 \
    //     patient 0123456789abcdef0123456789abcdef
    static let envelopeKeyHex = "846d45051b564b3334b00f1033b812f406249d51fcdc5f430ca766b7174d0e26"
    static let recordKeyHex = "aaf1585952a84c496dddf6c30984df4482a69fe383afe5b0d2e811dfc502d41d"
    static let signingPublicKeyHex = "dbe9f46d83d466115fba358d776d02850832650f229902da55cab96d69137bea"

    static func bytes(_ hex: String) -> [UInt8] {
        stride(from: 0, to: hex.count, by: 2).map { offset in
            let start = hex.index(hex.startIndex, offsetBy: offset)
            return UInt8(hex[start..<hex.index(start, offsetBy: 2)], radix: 16)!
        }
    }

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    static func vectorKeys() throws -> SyncKeys {
        try SyncKeys(vaultKey: SecureBytes(copying: bytes(vaultKeyHex)), vaultID: vaultID)
    }

    @Test("record key and device-signing public key match the independently computed vector")
    func vector() throws {
        let keys = try Self.vectorKeys()
        #expect(Self.hex(try keys.recordKey(table: "patient", recordID: Self.recordID)) == Self.recordKeyHex)
        #expect(Self.hex(try keys.deviceSigningPublicKey()) == Self.signingPublicKeyHex)
    }

    @Test("a device signature verifies under the public key alone, and not for another message or vault")
    func deviceSignature() async throws {
        let keys = try Self.vectorKeys()
        let message = Array("challenge".utf8)
        let signature = try keys.signForDevice(message)
        let publicKey = try keys.deviceSigningPublicKey()
        #expect(signature.count == 64)
        let otherVault = try SyncKeys(vaultKey: SecureBytes(copying: Self.bytes(Self.vaultKeyHex)), vaultID: UUID())
        // Checked by Python's `cryptography`, not by the libsodium that signed.
        let verdicts = try await CryptoReference.answers([
            .ed25519Verify(publicKey: publicKey, message: message, signature: signature),
            .ed25519Verify(publicKey: publicKey, message: Array("challengf".utf8), signature: signature),
            .ed25519Verify(publicKey: publicKey, message: message, signature: try otherVault.signForDevice(message)),
        ])
        #expect(verdicts == [[1], [0], [0]])
    }

    @Test("the envelope key is the vector's: a message sealed by Python's ChaCha20Poly1305 under it opens, and ours is the same bytes")
    func envelopeKeyVector() async throws {
        let keys = try Self.vectorKeys()
        let header = Array("header".utf8)
        let nonce = (0..<12).map { _ in UInt8.random(in: 0...255) }
        let ours = try keys.seal(Array("adiós".utf8), associatedData: header)
        // A seal is nonce ‖ ciphertext ‖ tag.
        let theirs = try await CryptoReference.answers([
            .chachaSeal(key: Self.bytes(Self.envelopeKeyHex), nonce: nonce, associatedData: header, message: Array("hola".utf8)),
            .chachaSeal(key: Self.bytes(Self.envelopeKeyHex), nonce: Array(ours.prefix(12)), associatedData: header,
                        message: Array("adiós".utf8)),
        ])
        #expect(try keys.open(nonce + theirs[0], associatedData: header) == Array("hola".utf8))
        #expect(Array(ours.dropFirst(12)) == theirs[1])
    }

    @Test("sealing uses a fresh nonce; any changed byte, other associated data or another vault's keys fail")
    func sealing() async throws {
        let keys = try Self.vectorKeys()
        let header = Array("header".utf8)
        let plaintext = Array(repeating: UInt8(0x41), count: 100)
        let sealed = try keys.seal(plaintext, associatedData: header)
        #expect(sealed.count == plaintext.count + SyncKeys.sealingOverhead)
        #expect(try keys.seal(plaintext, associatedData: header) != sealed, "a second seal uses another nonce")
        for position in [0, 11, 12, 60, sealed.count - 16, sealed.count - 1] {
            var changed = sealed
            changed[position] ^= 0x01
            await expectMedVaultError(.corrupted) { try keys.open(changed, associatedData: header) }
        }
        await expectMedVaultError(.corrupted) { try keys.open(sealed, associatedData: Array("other".utf8)) }
        await expectMedVaultError(.corrupted) { try keys.open(Array(sealed.prefix(27)), associatedData: header) }
        await expectMedVaultError(.corrupted) { try keys.open(Array(sealed.dropLast()), associatedData: header) }
        let otherVault = try SyncKeys(vaultKey: SecureBytes(copying: Self.bytes(Self.vaultKeyHex)), vaultID: UUID())
        await expectMedVaultError(.corrupted) { try otherVault.open(sealed, associatedData: header) }
    }

    @Test("record keys: one per (table, id) in a vault, unrelated across vaults, tables and ids")
    func recordKeys() throws {
        let keys = try Self.vectorKeys()
        let other = try SyncKeys(vaultKey: SecureBytes.random(count: 32), vaultID: Self.vaultID)
        let key = try keys.recordKey(table: "patient", recordID: Self.recordID)
        #expect(try keys.recordKey(table: "patient", recordID: Self.recordID) == key)
        #expect(try keys.recordKey(table: "medication", recordID: Self.recordID) != key)
        #expect(try keys.recordKey(table: "patient", recordID: UUID()) != key)
        #expect(try other.recordKey(table: "patient", recordID: Self.recordID) != key)
        // The length prefix keeps ("ab", id) and ("a", "b"‖id) apart.
        #expect(try keys.recordKey(table: "patientx", recordID: Self.recordID) != key)
    }

    @Test("a wiped key set and a vault key of the wrong length are refused")
    func wipedAndInvalid() async throws {
        let keys = try Self.vectorKeys()
        keys.wipe()
        await expectMedVaultError(.locked) { try keys.seal([1], associatedData: []) }
        await expectMedVaultError(.locked) { try keys.open(Array(repeating: 0, count: 40), associatedData: []) }
        await expectMedVaultError(.locked) { try keys.recordKey(table: "patient", recordID: Self.recordID) }
        await expectMedVaultError(.locked) { try keys.signForDevice([1]) }
        await expectMedVaultError(.locked) { try keys.deviceSigningPublicKey() }
        await expectMedVaultError(.invalidArgument) {
            try SyncKeys(vaultKey: SecureBytes(copying: [UInt8](repeating: 1, count: 16)), vaultID: Self.vaultID)
        }
        let wipedVaultKey = SecureBytes.random(count: 32)
        wipedVaultKey.wipe()
        await expectMedVaultError(.locked) { try SyncKeys(vaultKey: wipedVaultKey, vaultID: Self.vaultID) }
    }

    @Test("a vault derives its sync keys once, keeps them while unlocked, and wipes them at lock")
    func fromVault() async throws {
        try await withTemporaryDirectory { dir in
            let password = try VaultFixtures.password()
            let created = try await Vault.create(at: dir.url, password: password, options: VaultFixtures.options)
            let vault = created.vault
            let first = try await vault.withSyncKeys { try $0.recordKey(table: "patient", recordID: Self.recordID) }
            // Key operations leave the vault key, hence the sync keys, unchanged: a new
            // password, a new recovery key, a new database key.
            try await vault.changePassword(from: password, to: try VaultFixtures.password("otra contraseña"))
            _ = try await vault.regenerateRecoveryKey()
            try await vault.rotateDatabaseKey()
            #expect(try await vault.withSyncKeys { try $0.recordKey(table: "patient", recordID: Self.recordID) }
                    == first)
            // Kept between calls, and wiped by lock(): keys a caller still holds stop
            // working the moment the vault locks.
            let held = try await vault.withSyncKeys { $0 }
            #expect(try held.recordKey(table: "patient", recordID: Self.recordID) == first)
            await vault.lock()
            await expectMedVaultError(.locked) { try held.recordKey(table: "patient", recordID: Self.recordID) }
            await expectMedVaultError(.locked) { try await vault.withSyncKeys { _ in 1 } }

            // The same vault reopened derives the same keys.
            let reopened = try await Vault.open(at: dir.url, password: try VaultFixtures.password("otra contraseña"),
                                                options: VaultFixtures.options)
            #expect(try await reopened.withSyncKeys { try $0.recordKey(table: "patient", recordID: Self.recordID) }
                    == first)
            await reopened.lock()
        }
    }

    @Test("Kept sync keys follow the stored epoch keys: a new epoch, or another key for the same epoch, is derived at the next request")
    func keptKeysFollowStoredEpochKeys() async throws {
        try await withTemporaryDirectory { dir in
            let vault = try await Vault.create(at: dir.url, password: try VaultFixtures.password(),
                                               options: VaultFixtures.options).vault
            func authority() async throws -> (epoch: UInt32, key: [UInt8]) {
                try await vault.withSyncKeyChain { chain in (chain.epoch, try chain.current.deviceSigningPublicKey()) }
            }
            let epochZero = try await authority()
            #expect(epochZero.epoch == 0)
            #expect(try await authority() == epochZero)

            let first = SecureBytes(copying: [UInt8](repeating: 1, count: SyncKeys.epochKeyLength))
            let second = SecureBytes(copying: [UInt8](repeating: 2, count: SyncKeys.epochKeyLength))
            try await vault.database.write { db in try SyncEpochRecord.addEpochKeys([1: first], db) }
            let epochOne = try await authority()
            #expect(epochOne.epoch == 1 && epochOne.key != epochZero.key)
            #expect(try await authority() == epochOne)
            // The same epoch with another key (a reset vault registered again): not the kept chain.
            try await vault.database.write { db in try SyncEpochRecord.replaceEpochKeys([1: second], db) }
            let replaced = try await authority()
            #expect(replaced.epoch == 1 && replaced.key != epochOne.key)

            // A kept chain someone wiped is derived again, not handed out broken.
            try await vault.withSyncKeyChain { chain in chain.wipe() }
            #expect(try await authority() == replaced)
            // lock() wipes the kept chain and every one it replaced, still held or not.
            let current = try await vault.withSyncKeyChain { $0 }
            try await vault.database.write { db in try SyncEpochRecord.replaceEpochKeys([1: first], db) }
            let newer = try await vault.withSyncKeyChain { $0 }
            #expect(!current.wasWiped && !newer.wasWiped)
            await vault.lock()
            #expect(current.wasWiped && newer.wasWiped)
        }
    }
}
