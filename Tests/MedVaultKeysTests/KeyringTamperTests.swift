import Foundation
import MedVaultCore
import Testing
@testable import MedVaultKeys

@Suite("Keyring tampering")
struct KeyringTamperTests {
    func code(of body: () throws -> Void) -> MedVaultError.Code? {
        do {
            try body()
            return nil
        } catch let error as MedVaultError {
            return error.code
        } catch {
            return MedVaultError.Code(rawValue: "unexpected")
        }
    }

    @Test("every flipped bit anywhere in the file is corrupted, and the file is not changed")
    func flippedBits() throws {
        let directory = try makeTemporaryDirectory()
        let url = directory.appendingPathComponent("vault.keyring")
        let created = try makeKeyring()
        var pending = try created.keyring.beginningRotation(vaultKey: created.vaultKey).keyring
        pending = try pending.addingPlatformSlotSync(vaultKey: created.vaultKey)
        let original = pending.serialized()
        try KeyringFile.write(pending, to: url)
        var undetected: [Int] = []
        for bit in 0..<(original.count * 8) {
            var bytes = original
            bytes[bit / 8] ^= UInt8(1 << (bit % 8))
            if code(of: { _ = try Keyring(serialized: bytes) }) != .corrupted { undetected.append(bit) }
        }
        #expect(undetected.isEmpty, "bits not reported as corrupted: \(undetected)")
        // Through the file as well, for one bit in every byte.
        for byte in 0..<original.count {
            var bytes = original
            bytes[byte] ^= UInt8(1 << (byte % 8))
            try Data(bytes).write(to: url)
            #expect(code { _ = try KeyringFile.read(at: url) } == .corrupted, "byte \(byte)")
            #expect(try Data(contentsOf: url) == Data(bytes))
        }
    }

    @Test("empty, truncated, garbage and foreign files are corrupted; a missing file is fileNotFound")
    func unreadable() throws {
        let directory = try makeTemporaryDirectory()
        let url = directory.appendingPathComponent("vault.keyring")
        let original = try makeKeyring().keyring.serialized()
        let cases: [[UInt8]] = [
            [],
            Array(original.prefix(10)),
            Array(original.dropLast()),
            original + [0],
            (0..<600).map { _ in UInt8.random(in: 0...255) },
            Array("SQLite format 3\0".utf8) + [UInt8](repeating: 0, count: 100),
        ]
        for bytes in cases {
            try Data(bytes).write(to: url)
            #expect(code { _ = try KeyringFile.read(at: url) } == .corrupted)
        }
        #expect(code { _ = try KeyringFile.read(at: directory.appendingPathComponent("missing")) } == .fileNotFound)
    }

    @Test("a newer format version with a valid checksum is schemaTooNew")
    func newerVersion() throws {
        var bytes = try makeKeyring().keyring.serialized()
        bytes[9] = 3
        let resealed = Array(bytes.dropLast(32))
        let checksum = KeyringCodec.checksum(resealed)
        #expect(code { _ = try Keyring(serialized: resealed + checksum) } == .schemaTooNew)
    }

    @Test("a downgraded KDF parameter re-encoded with a valid checksum does not open: wrongPassword")
    func downgrade() throws {
        let created = try makeKeyring()
        let keyring = created.keyring
        let slot = keyring.slots[0]
        guard case .argon2id(let parameters, let salt) = slot.derivation else {
            Issue.record("no Argon2 slot")
            return
        }
        #expect(parameters.memoryKiB == 8)
        // Raise then lower the costs: any edit of the parameters breaks the seal.
        let edited = try Argon2Parameters(memoryKiB: 16, iterations: 1, parallelism: 1)
        let downgraded = KeySlot(id: slot.id, kind: .password, derivation: .argon2id(edited, salt: salt), wrapped: slot.wrapped)
        let bytes = tampered(keyring, slots: [downgraded] + keyring.slots.dropFirst()).serialized()
        let decoded = try Keyring(serialized: bytes)
        #expect(code { _ = try decoded.unlock(password: Password("correct horse battery")) } == .wrongPassword)
        // Editing the salt, the slot id or the kind has the same effect.
        let otherSalt = KeySlot(id: slot.id, kind: .password, derivation: .argon2id(parameters, salt: salt.reversed()), wrapped: slot.wrapped)
        let otherID = KeySlot(id: UUID(), kind: .password, derivation: slot.derivation, wrapped: slot.wrapped)
        for edit in [otherSalt, otherID] {
            let decoded = try Keyring(serialized: tampered(keyring, slots: [edit] + keyring.slots.dropFirst()).serialized())
            #expect(code { _ = try decoded.unlock(password: Password("correct horse battery")) } == .wrongPassword)
        }
        // The recovery key still opens it, and then the authentication tag exposes the edit.
        let decodedAgain = try Keyring(serialized: bytes)
        #expect(code { _ = try decodedAgain.unlock(recoveryKey: created.recoveryKey) } == .corrupted)
    }

    @Test("a slot copied from another vault (same password) does not open")
    func copiedSlot() throws {
        let victim = try makeKeyring()
        let attacker = try makeKeyring()
        let foreign = attacker.keyring.slots[0]
        let bytes = tampered(victim.keyring, slots: [foreign] + victim.keyring.slots.dropFirst()).serialized()
        let decoded = try Keyring(serialized: bytes)
        #expect(code { _ = try decoded.unlock(password: Password("correct horse battery")) } == .wrongPassword)
        let foreignRecovery = attacker.keyring.slots[1]
        let recoveryBytes = tampered(victim.keyring, slots: [victim.keyring.slots[0], foreignRecovery]).serialized()
        #expect(code { _ = try Keyring(serialized: recoveryBytes).unlock(recoveryKey: attacker.recoveryKey) } == .wrongRecoveryKey)
    }

    @Test("header edits outside the slots (cipher settings, generation) are corrupted at unlock")
    func headerEdits() throws {
        let created = try makeKeyring()
        var settings = CipherSettings.medVaultDefault
        settings.pageSize = 1024
        let editedSettings = try Keyring(serialized: tampered(created.keyring, cipherSettings: settings).serialized())
        #expect(code { _ = try editedSettings.unlock(password: Password("correct horse battery")) } == .corrupted)
        let editedGeneration = try Keyring(serialized: tampered(created.keyring, generation: 7).serialized())
        #expect(code { _ = try editedGeneration.unlock(password: Password("correct horse battery")) } == .corrupted)
        // With only a vault key in hand nothing in the file validates, which reads as a wrong key.
        #expect(code { _ = try editedGeneration.databaseKey(vaultKey: created.vaultKey) } == .wrongKey)
        // A slot removed behind the owner's back is detected too.
        let removed = try Keyring(serialized: tampered(created.keyring, slots: [created.keyring.slots[0]]).serialized())
        #expect(code { _ = try removed.unlock(password: Password("correct horse battery")) } == .corrupted)
    }

    @Test("failed unlocks never modify the keyring file")
    func failuresLeaveFileAlone() throws {
        let directory = try makeTemporaryDirectory()
        let url = directory.appendingPathComponent("vault.keyring")
        let created = try makeKeyring()
        try KeyringFile.write(created.keyring, to: url)
        let before = try Data(contentsOf: url)
        let keyring = try KeyringFile.read(at: url)
        _ = code { _ = try keyring.unlock(password: Password("nope")) }
        _ = code { _ = try keyring.unlock(recoveryKey: RecoveryKey.generate()) }
        _ = code { _ = try RecoveryKey(parsing: "0000000-0000000") }
        _ = code { _ = try keyring.databaseKey(vaultKey: SecureBytes.random(count: 32)) }
        #expect(try Data(contentsOf: url) == before)
    }
}

extension Keyring {
    /// Adds a platform slot backed by a throwaway store, synchronously (tests only).
    func addingPlatformSlotSync(vaultKey: SecureBytes) throws -> Keyring {
        let kek = SecureBytes.random(count: 32)
        let slot = try Keyring.makeSlot(
            kind: .platform, derivation: .storedSecret(account: "test.account"), kek: try KeyWrap.key(kek),
            vaultID: vaultID, vaultKey: vaultKey
        )
        return try with(slots: slots + [slot], pending: .none, vaultKey: vaultKey)
    }
}
