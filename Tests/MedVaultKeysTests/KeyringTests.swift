import CArgon2
import Foundation
import MedVaultCore
import Testing
@testable import MedVaultKeys

@Suite("Keyring")
struct KeyringTests {
    @Test("create gives a password slot, a recovery slot and distinct random keys")
    func create() throws {
        let created = try makeKeyring()
        let keyring = created.keyring
        #expect(keyring.formatVersion == 1)
        #expect(keyring.slots.map(\.kind) == [.password, .recovery])
        #expect(keyring.databaseKeyGeneration == 1)
        #expect(!keyring.hasPendingRotation)
        #expect(keyring.cipherSettings == .medVaultDefault)
        #expect(created.vaultKey.count == 32 && created.databaseKey.count == 32)
        #expect(created.vaultKey != created.databaseKey)
        #expect(keyring.slots[0].argon2Parameters == .fastForTestsOnly)
        guard case .argon2id(_, let salt) = keyring.slots[0].derivation else {
            Issue.record("password slot without Argon2id")
            return
        }
        #expect(salt.count >= 16)
    }

    @Test("password, recovery key and vault key all lead to the same database key")
    func unlockPaths() throws {
        let created = try makeKeyring()
        let keyring = created.keyring
        let byPassword = try keyring.unlock(password: Password("correct horse battery"))
        let byRecovery = try keyring.unlock(recoveryKey: RecoveryKey(parsing: created.recoveryKey.formatted))
        #expect(byPassword == created.vaultKey)
        #expect(byRecovery == created.vaultKey)
        #expect(try keyring.databaseKey(vaultKey: byPassword) == created.databaseKey)
        #expect(try keyring.pendingDatabaseKey(vaultKey: byPassword) == nil)
    }

    @Test("a wrong password is wrongPassword")
    func wrongPassword() throws {
        let keyring = try makeKeyring().keyring
        #expect { try keyring.unlock(password: Password("correct horse batterY")) } throws: { error in
            (error as? MedVaultError)?.code == .wrongPassword
        }
    }

    @Test("a well-formed recovery key of another vault is wrongRecoveryKey")
    func wrongRecoveryKey() throws {
        let keyring = try makeKeyring().keyring
        #expect { try keyring.unlock(recoveryKey: RecoveryKey.generate()) } throws: { error in
            (error as? MedVaultError)?.code == .wrongRecoveryKey
        }
    }

    @Test("a vault key of another vault is wrongKey")
    func wrongVaultKey() throws {
        let keyring = try makeKeyring().keyring
        let other = try makeKeyring()
        #expect { try keyring.databaseKey(vaultKey: other.vaultKey) } throws: { error in
            (error as? MedVaultError)?.code == .wrongKey
        }
        #expect { try keyring.replacingPassword(Password("x"), vaultKey: other.vaultKey, kdf: .fastForTestsOnly) } throws: { error in
            (error as? MedVaultError)?.code == .wrongKey
        }
    }

    @Test("serialisation round-trips exactly")
    func roundTrip() throws {
        let keyring = try makeKeyring().keyring
        let bytes = keyring.serialized()
        let decoded = try Keyring(serialized: bytes)
        #expect(decoded == keyring)
        #expect(decoded.serialized() == bytes)
        #expect(Array(bytes.prefix(8)) == Array("MVKEYRNG".utf8))
        #expect(Array(bytes[8..<12]) == [0, 1, 0, 0])
        #expect(bytes.count == 438, "docs/keyring-format.md gives this size")
    }

    @Test("a dedicated unlock at the default parameters (64 MiB, t = 3, p = 4)")
    func defaultParameters() throws {
        let created = try Keyring.create(password: Password("a real password"))
        #expect(created.keyring.slots[0].argon2Parameters == .recommended)
        let decoded = try Keyring(serialized: created.keyring.serialized())
        let started = ContinuousClock.now
        let vaultKey = try decoded.unlock(password: Password("a real password"))
        let elapsed = ContinuousClock.now - started
        #expect(vaultKey == created.vaultKey)
        // The same work through bare libargon2, to see what unlock adds on top.
        let password = Array("a real password".utf8)
        let salt = [UInt8](repeating: 1, count: 16)
        var output = [UInt8](repeating: 0, count: 32)
        let bareStart = ContinuousClock.now
        #expect(argon2id_hash_raw(3, 65_536, 4, password, password.count, salt, salt.count, &output, 32) == 0)
        let bare = ContinuousClock.now - bareStart
        print("unlock at 64 MiB, t=3, p=4: \(elapsed); bare libargon2: \(bare)")
    }
}
