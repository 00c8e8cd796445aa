import Foundation
import MedVaultCore
import Testing
@testable import MedVaultKeys

@Suite("SealedKeyring: the keyring a device publishes, opaque without the sync secret")
struct SealedKeyringTests {
    @Test("opens with its secret to the same keyring and counter; holds none of the keyring's bytes in the clear")
    func roundTrip() throws {
        let creation = try makeKeyring()
        defer { creation.vaultKey.wipe(); creation.databaseKey.wipe() }
        let secret = SyncSecret.generate()
        let sealed = try SealedKeyring.seal(creation.keyring, counter: 7, secret: secret)
        #expect(SealedKeyring.isSealed(sealed))
        #expect(!SealedKeyring.isSealed(Data(creation.keyring.serialized())))
        let opened = try SealedKeyring(opening: sealed, secret: secret)
        #expect(opened.keyring == creation.keyring)
        #expect(opened.counter == 7)
        #expect(opened.vaultID == creation.keyring.vaultID)
        // The password slot's salt, the keyring magic, any 16-byte run of the file: none is visible.
        let file = creation.keyring.serialized()
        let sealedBytes = Array(sealed)
        // Past the header (magic, version, flags, the vault id, which the sealed header names).
        for start in stride(from: 28, to: file.count - 16, by: 4) {
            #expect(sealedBytes.firstRange(of: file[start..<(start + 16)]) == nil)
        }
        #expect(sealed.count == 8 + 2 + 16 + 8 + 12 + file.count + 16)
    }

    /// `offset`: -1 opens with another secret, -2 changes the tag's last byte, others flip a
    /// bit of the vault id (12), the counter (30), the nonce (40), the ciphertext (60).
    @Test("another secret, a changed counter, vault id, nonce, ciphertext or tag: wrongSyncSecret, never a keyring",
          arguments: [-1, 12, 30, 40, 60, -2])
    func tampering(offset: Int) throws {
        let creation = try makeKeyring()
        defer { creation.vaultKey.wipe(); creation.databaseKey.wipe() }
        let secret = SyncSecret.generate()
        var sealed = try SealedKeyring.seal(creation.keyring, counter: 3, secret: secret)
        var opener = secret
        if offset == -1 {
            opener = SyncSecret.generate()
        } else if offset == -2 {
            sealed[sealed.count - 1] ^= 0x80
        } else {
            sealed[offset] ^= 0x01
        }
        do {
            _ = try SealedKeyring(opening: sealed, secret: opener)
            Issue.record("opened a changed sealed keyring")
        } catch let error as MedVaultError {
            #expect(error.code == .wrongSyncSecret)
        }
    }

    @Test("a later format version is schemaTooNew; short or foreign bytes are corrupted")
    func formatErrors() throws {
        let creation = try makeKeyring()
        defer { creation.vaultKey.wipe(); creation.databaseKey.wipe() }
        let secret = SyncSecret.generate()
        var sealed = try SealedKeyring.seal(creation.keyring, counter: 1, secret: secret)
        sealed[9] = 2
        #expect(throws: MedVaultError(.schemaTooNew, reason: "the sealed keyring's format is newer than this version of MedVault")) {
            _ = try SealedKeyring(opening: sealed, secret: secret)
        }
        let notSealed = MedVaultError(.corrupted, reason: "not a sealed keyring")
        #expect(throws: notSealed) { _ = try SealedKeyring(opening: Data(sealed.prefix(60)), secret: secret) }
        #expect(throws: notSealed) {
            _ = try SealedKeyring(opening: Data(creation.keyring.serialized()), secret: secret)
        }
    }

    @Test("a wiped secret neither seals nor opens: locked")
    func wipedSecret() throws {
        let creation = try makeKeyring()
        defer { creation.vaultKey.wipe(); creation.databaseKey.wipe() }
        let secret = SyncSecret.generate()
        let sealed = try SealedKeyring.seal(creation.keyring, counter: 1, secret: secret)
        secret.wipe()
        #expect(throws: MedVaultError.self) { _ = try SealedKeyring.seal(creation.keyring, counter: 1, secret: secret) }
        do {
            _ = try SealedKeyring(opening: sealed, secret: secret)
            Issue.record("opened with a wiped secret")
        } catch let error as MedVaultError {
            #expect(error.code == .locked)
        }
    }
}
