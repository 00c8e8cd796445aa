import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultTestSupport
import Testing

/// A vault written by the library before its cryptography moved to libsodium
/// (`Tests/Vectors/crypto-fixture-v1/`, written at commit 7194ae0 by the generator kept
/// beside it; `crypto-fixture-v1.json` holds what it wrote): a keyring with a password, a
/// recovery and a platform slot, a signed session, an audit trail and its checkpoint, and
/// bytes sealed under the vault's sync envelope key. Every format is unchanged, so each
/// opens and verifies on this build.
@Suite("Crypto fixture from before libsodium")
struct CryptoFixtureTests {
    struct Manifest: Decodable {
        struct Slot: Decodable { var id: UUID; var kind: String }
        struct Sync: Decodable {
            var deviceSignature, deviceSignedMessage, deviceSigningPublicKey: String
            var fixedRecordID: UUID
            var recordKeyFixed, recordKeyPatient, sealedAssociatedData, sealedHex, sealedPlaintext: String
        }

        var password, recoveryKey, secretStoreDirectory, signatureContentSHA256, sessionNotes: String
        var vaultID, patientID, sessionID: UUID
        var patientLastName: String
        var auditEntryCountAtLock: Int64
        var slots: [Slot]
        var sync: Sync
    }

    static let vectors = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Vectors")
    static let options = Vault.Options(kdf: .fastForTestsOnly,
                                       passwordPolicy: PasswordPolicy(minimumLength: 1, minimumEstimatedBits: 0))

    static func manifest() throws -> Manifest {
        try JSONDecoder().decode(Manifest.self, from: Data(contentsOf: vectors.appendingPathComponent("crypto-fixture-v1.json")))
    }

    /// A copy of the fixture with a vault folder's modes (git keeps neither; every open
    /// writes an audit entry, so the committed files stay as written).
    static func copy(to folder: URL) throws {
        let manager = FileManager.default
        try manager.copyItem(at: vectors.appendingPathComponent("crypto-fixture-v1"), to: folder)
        for directory in [folder, folder.appendingPathComponent("secrets")] {
            try manager.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.path)
            for name in try manager.contentsOfDirectory(atPath: directory.path) where name != "secrets" {
                try manager.setAttributes([.posixPermissions: 0o600], ofItemAtPath: directory.appendingPathComponent(name).path)
            }
        }
    }

    enum Unlock: String, CaseIterable, Sendable { case password, recoveryKey, platformSecret }

    @Test("Opens by password, recovery key and platform secret; records, the signed session, the audit trail and the sync keys verify", arguments: Unlock.allCases)
    func opensAndVerifies(_ unlock: Unlock) async throws {
        let manifest = try Self.manifest()
        try await withTemporaryDirectory { dir in
            let folder = dir.file("fixture")
            try Self.copy(to: folder)
            let vault: Vault
            switch unlock {
            case .password:
                vault = try await Vault.open(at: folder, password: try Password(manifest.password), options: Self.options)
            case .recoveryKey:
                vault = try await Vault.open(at: folder, recoveryKey: try RecoveryKey(parsing: manifest.recoveryKey),
                                             options: Self.options)
            case .platformSecret:
                let store = try FileSecretStore(directory: folder.appendingPathComponent(manifest.secretStoreDirectory))
                vault = try await Vault.open(at: folder, secretStore: store, options: Self.options)
            }
            #expect(vault.vaultID == manifest.vaultID)
            #expect(Set(await vault.slots.map(\.id)) == Set(manifest.slots.map(\.id)))

            #expect(try await vault.patients.get(manifest.patientID).lastName == manifest.patientLastName)
            let entry = try await vault.sessions.entry(manifest.sessionID)
            #expect(entry.session.notes == manifest.sessionNotes)
            #expect(entry.signature?.contentSHA256.hex == manifest.signatureContentSHA256)
            // Made before professional signing keys: the digest still seals the content.
            #expect(entry.signatureCheck == .sealedOnly)
            // The chain written with the hand-written HMAC, then this open's own entry.
            #expect(try await vault.audit.verify() == .intact(entryCount: manifest.auditEntryCountAtLock + 1))

            let sync = manifest.sync
            try await vault.withSyncKeys { keys in
                #expect(try keys.recordKey(table: "patient", recordID: manifest.patientID) == Hex.bytes(sync.recordKeyPatient))
                #expect(try keys.recordKey(table: "fixture", recordID: sync.fixedRecordID) == Hex.bytes(sync.recordKeyFixed))
                let opened = try keys.open(Hex.bytes(sync.sealedHex), associatedData: Array(sync.sealedAssociatedData.utf8))
                #expect(opened == Array(sync.sealedPlaintext.utf8))
                #expect(try keys.deviceSigningPublicKey() == Hex.bytes(sync.deviceSigningPublicKey))
                // Ed25519 is deterministic: libsodium signs as swift-crypto did, byte for byte.
                #expect(try keys.signForDevice(Array(sync.deviceSignedMessage.utf8)) == Hex.bytes(sync.deviceSignature))
            }
            // Signed by swift-crypto when the fixture was made; checked here by libsodium.
            #expect(SyncDeviceKey.verify(Hex.bytes(sync.deviceSignature), of: Array(sync.deviceSignedMessage.utf8),
                                         by: Hex.bytes(sync.deviceSigningPublicKey)))
            await vault.lock()
        }
    }
}
