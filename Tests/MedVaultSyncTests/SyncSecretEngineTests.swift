import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
@testable import MedVaultSync
import MedVaultSyncWire
import MedVaultTestSupport
import Testing

/// The keyring the server holds is sealed under the vault's sync secret (issue #31): the
/// server cannot test a password against it, cannot make a device take an older one, and
/// a device joins only with the secret. Devices that synced before the secret existed
/// upgrade through the server.
@Suite("Sync secret: the server holds a sealed keyring and cannot roll it back")
struct SyncSecretEngineTests {
    @Test("Register and a password change publish the keyring sealed: nothing of a device's keyring file but the vault id reaches the server")
    func serverHoldsOnlySealedBytes() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(2, in: dir)
            defer { Task { await devices.lockAll() } }
            let credentials = try #require(try await devices.engines[0].credentials())
            for round in 0..<2 {
                if round == 1 {
                    try await devices.vaults[0].changePassword(from: try VaultFixtures.password(),
                                                               to: try Password("segunda contraseña"))
                    #expect(try await devices.engines[0].sync().keyring == .published)
                }
                let held = Array(try await devices.server.keyring(as: credentials).keyring)
                #expect(SealedKeyring.isSealed(Data(held)))
                let file = try KeyringFile.read(at: devices.vaults[0].layout.keyring).serialized()
                // Past the header (magic, version, flags, the vault id the server knows anyway).
                for start in stride(from: 28, to: file.count - 16, by: 4) {
                    #expect(held.firstRange(of: file[start..<(start + 16)]) == nil)
                }
                let secret = try #require(try await devices.engines[0].syncSecret())
                let opened = try SealedKeyring(opening: Data(held), secret: secret)
                #expect(opened.counter == UInt64(round + 1))
                // Published without this device's audit record: format version 1, which
                // devices of earlier builds read.
                #expect(try KeyringFile.read(at: devices.vaults[0].layout.keyring).formatVersion == 2)
                #expect(opened.keyring.formatVersion == 1 && opened.keyring.auditRecord == nil)
            }
            #expect(try await devices.engines[1].sync().keyring == .adopted)
            #expect(try await devices.engines[1].syncSecret() == devices.engines[0].syncSecret())
        }
    }

    @Test("Joining with another sync secret is wrongSyncSecret, with a keyring in the clear invalidArgument; nothing is left in the folder")
    func joinNeedsTheSecret() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(1, in: dir)
            defer { Task { await devices.lockAll() } }
            let blob = try await devices.server.keyring(as: try #require(try await devices.engines[0].credentials()))
            let folder = dir.file("joining")
            do {
                _ = try await Vault.join(at: folder, keyring: blob.keyring, syncSecret: SyncSecret.generate(),
                                         password: try VaultFixtures.password(), options: VaultFixtures.options)
                Issue.record("joined with another secret")
            } catch let error as MedVaultError {
                #expect(error.code == .wrongSyncSecret)
            }
            let plain = try Data(contentsOf: devices.vaults[0].layout.keyring)
            let secret = try #require(try await devices.engines[0].syncSecret())
            do {
                _ = try await Vault.join(at: folder, keyring: plain, syncSecret: secret,
                                         password: try VaultFixtures.password(), options: VaultFixtures.options)
                Issue.record("joined from a keyring in the clear")
            } catch let error as MedVaultError {
                #expect(error.code == .invalidArgument)
                #expect(error.field == "keyring")
            }
            #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("records.medvault").path))
            #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("records.medvault.keyring").path))
        }
    }

    @Test("A server that serves an older sealed keyring under a higher generation is not followed: the new password stays")
    func relabelledKeyringIsNotAdopted() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(2, in: dir)
            defer { Task { await devices.lockAll() } }
            let first = try VaultFixtures.password()
            let second = try Password("segunda contraseña")
            let credentials = try #require(try await devices.engines[1].credentials())
            let old = try await devices.server.keyring(as: credentials)
            try await devices.vaults[0].changePassword(from: first, to: second)
            #expect(try await devices.engines[0].sync().keyring == .published)
            #expect(try await devices.engines[1].sync().keyring == .adopted)
            let current = try await devices.server.keyring(as: credentials)

            // The old (leaked) password's keyring, relabelled past the server's generation.
            let relabelled = try SyncKeyringBlob(generation: current.generation + 10, keyring: old.keyring)
            for device in 0..<2 {
                let hostile = KeyringOverrideTransport(devices.server, keyring: .serve(relabelled))
                let result = try await SyncEngine(vault: devices.vaults[device], transport: hostile).sync()
                #expect(result.keyring == .published)
                #expect(try SyncKeyringHostileTests.opens(devices.vaults[device], second))
                #expect(try !SyncKeyringHostileTests.opens(devices.vaults[device], first))
            }
        }
    }

    @Test("A device that holds the secret never takes a keyring in the clear: an old keyring file served at a higher generation is sealed over, the new password stays")
    func clearKeyringIsARollback() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(2, in: dir)
            defer { Task { await devices.lockAll() } }
            let first = try VaultFixtures.password()
            let second = try Password("segunda contraseña")
            let oldFile = try Data(contentsOf: devices.vaults[0].layout.keyring)
            try await devices.vaults[0].changePassword(from: first, to: second)
            _ = try await devices.syncAll()
            let credentials = try #require(try await devices.engines[1].credentials())
            let current = try await devices.server.keyring(as: credentials)
            let rollback = try SyncKeyringBlob(generation: current.generation + 10, keyring: oldFile)
            for device in 0..<2 {
                let hostile = KeyringOverrideTransport(devices.server, keyring: .serve(rollback))
                #expect(try await SyncEngine(vault: devices.vaults[device], transport: hostile).sync().keyring == .published)
                #expect(try SyncKeyringHostileTests.opens(devices.vaults[device], second))
                #expect(try !SyncKeyringHostileTests.opens(devices.vaults[device], first))
            }
        }
    }

    @Test("A secret this device made but never saw in use is not shown nor trusted when the server's keyring is sealed under another")
    func unconfirmedSecretIsForgotten() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(2, in: dir)
            defer { Task { await devices.lockAll() } }
            let vaultSecret = try #require(try await devices.engines[0].syncSecret())
            // As after losing the race to seal, or a register that fell back to a join.
            let stray = SyncSecret.generate()
            try await devices.vaults[1].database.write { db in try SyncSecretRecord.setSecret(stray, confirmed: false, db) }
            #expect(try await devices.engines[1].syncSecret() == nil)
            #expect(try await devices.engines[1].sync().keyring == .syncSecretNeeded)
            #expect(try await devices.engines[1].syncSecret() == nil)
            #expect(try await devices.vaults[1].database.read { db in try SyncSecretRecord.secret(db) }?.confirmed == false)
            try await devices.engines[1].adoptSyncSecret(vaultSecret)
            #expect(try await devices.engines[1].syncSecret() == vaultSecret)
            #expect(try await devices.engines[1].sync().keyring == .unchanged)
        }
    }

    @Test("Bytes that look sealed but open under no secret (a token holder's) are sealed over by a device holding the vault's secret; a new device can join again")
    func forgedSealedBytesAreReplaced() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(1, in: dir)
            defer { Task { await devices.lockAll() } }
            let credentials = try #require(try await devices.engines[0].credentials())
            let current = try await devices.server.keyring(as: credentials)
            var generation = current.generation
            // Well-formed but under no secret; too short to be sealed at all; bytes with no magic.
            for length in [600, 10, -1] {
                var forged = length < 0 ? Data() : Data("MVSEALKR".utf8) + Data([0, 1])
                forged.append(Data((0..<max(length, 40)).map { _ in UInt8.random(in: 0...255) }))
                _ = try await devices.server.putKeyring(try SyncKeyringUpdate(
                    expectedGeneration: generation,
                    keyring: try SyncKeyringBlob(generation: generation + 1, keyring: forged)), as: credentials)
                #expect(try await devices.engines[0].sync().keyring == .published, "\(length)")
                generation = try await devices.server.keyring(as: credentials).generation
            }
            let blob = try await devices.server.keyring(as: credentials)
            let joined = try await Vault.join(at: dir.file("late"), keyring: blob.keyring,
                                              syncSecret: try #require(try await devices.engines[0].syncSecret()),
                                              password: try VaultFixtures.password(), options: VaultFixtures.options)
            await joined.lock()
        }
    }

    @Test("A sealed keyring whose counter jumps far past this device's (a secret holder pushing it to its end) is not adopted")
    func counterJumpIsRefused() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(2, in: dir)
            defer { Task { await devices.lockAll() } }
            let secret = try #require(try await devices.engines[0].syncSecret())
            let second = try Password("segunda contraseña")
            try await devices.vaults[0].changePassword(from: try VaultFixtures.password(), to: second)
            let credentials = try #require(try await devices.engines[1].credentials())
            let current = try await devices.server.keyring(as: credentials)
            // A jump past 2^20 is not adopted; a counter past 2^40 does not even open (sealed over).
            for (counter, outcome) in [(UInt64(1 << 21), SyncKeyringOutcome.notAdopted(.corrupted)),
                                       (UInt64(Int64.max) - 1, .published)] {
                let pushed = try SealedKeyring.seal(try KeyringFile.read(at: devices.vaults[0].layout.keyring),
                                                    counter: counter, secret: secret)
                let hostile = KeyringOverrideTransport(devices.server, keyring: .serve(
                    try SyncKeyringBlob(generation: current.generation + 1, keyring: pushed)))
                #expect(try await SyncEngine(vault: devices.vaults[1], transport: hostile).sync().keyring == outcome)
                #expect(try !SyncKeyringHostileTests.opens(devices.vaults[1], second))
                #expect(try await devices.vaults[1].database.read { db in try SyncSecretRecord.keyringCounter(db) } < 1_000)
            }
            // Nor can a new device start from such a keyring.
            let beyond = try SealedKeyring.seal(try KeyringFile.read(at: devices.vaults[0].layout.keyring),
                                                counter: SealedKeyring.maximumCounter + 1, secret: secret)
            await #expect(throws: MedVaultError.self) {
                _ = try await Vault.join(at: dir.file("late"), keyring: beyond, syncSecret: secret,
                                         password: second, options: VaultFixtures.options)
            }
        }
    }

    @Test("Devices that synced before the secret: the first to sync seals the keyring; the other is told, gets the secret, and password changes flow again")
    func upgradeFromAKeyringInTheClear() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(2, in: dir)
            defer { Task { await devices.lockAll() } }
            let credentials = try #require(try await devices.engines[0].credentials())
            // Today's format on both sides: no secret on the devices, the keyring in the clear on the server.
            for vault in devices.vaults {
                try await vault.database.write { db in
                    try db.execute("UPDATE sync_state SET sync_secret = NULL, keyring_counter = 0, sealed_keyring_seen = 0")
                }
            }
            let current = try await devices.server.keyring(as: credentials)
            _ = try await devices.server.putKeyring(try SyncKeyringUpdate(
                expectedGeneration: current.generation,
                keyring: try SyncKeyringBlob(generation: current.generation + 1,
                                             keyring: try Data(contentsOf: devices.vaults[0].layout.keyring))),
                as: credentials)

            // Nothing can check a secret against a keyring still in the clear.
            do {
                try await devices.engines[1].adoptSyncSecret(SyncSecret.generate())
                Issue.record("took a secret with nothing to check it against")
            } catch let error as MedVaultError {
                #expect(error.code == .invalidArgument && error.field == "syncSecret")
            }
            #expect(try await devices.engines[0].sync().keyring == .published)
            let secret = try #require(try await devices.engines[0].syncSecret())
            #expect(SealedKeyring.isSealed(try await devices.server.keyring(as: credentials).keyring))

            let patient = try await devices.vaults[0].patients.create(ClinicalFixtures.patient("Ana", "Ruiz"))
            _ = try await devices.engines[0].sync()
            let told = try await devices.engines[1].sync()
            #expect(told.keyring == .syncSecretNeeded)
            #expect(try await devices.vaults[1].patients.get(patient.id).id == patient.id)
            do {
                try await devices.engines[1].adoptSyncSecret(SyncSecret.generate())
                Issue.record("took a secret that does not open the server's keyring")
            } catch let error as MedVaultError {
                #expect(error.code == .wrongSyncSecret)
            }
            #expect(try await devices.engines[1].syncSecret() == nil)
            try await devices.engines[1].adoptSyncSecret(try SyncSecret(parsing: secret.formatted))
            #expect(try await devices.engines[1].sync().keyring == .unchanged)

            let second = try Password("segunda contraseña")
            try await devices.vaults[1].changePassword(from: try VaultFixtures.password(), to: second)
            #expect(try await devices.engines[1].sync().keyring == .published)
            #expect(try await devices.engines[0].sync().keyring == .adopted)
            #expect(try SyncKeyringHostileTests.opens(devices.vaults[0], second))
        }
    }

    @Test("A synced keyring asking more Argon2 memory than this device accepts: a join is refused before deriving, an adoption is left alone, records still sync")
    func syncedArgon2CostIsCapped() async throws {
        try await withTemporaryDirectory { dir in
            let password = try VaultFixtures.password()
            let created = try await Vault.create(at: dir.file("a"), password: password, options: VaultFixtures.options)
            let server = InMemorySyncTransport()
            let register = SyncEngine(vault: created.vault, transport: server)
            try await register.register()
            let credentials = try #require(try await register.credentials())
            let secret = try #require(try await register.syncSecret())
            await created.vault.lock()
            // A's next password slots cost 64 KiB; B accepts at most 32 KiB from sync.
            let costly = Vault.Options(kdf: try .forTestsOnly(memoryKiB: 64, iterations: 1, parallelism: 1))
            let a = try await Vault.open(at: dir.file("a"), password: password, options: costly)
            defer { Task { await a.lock() } }
            let capped = Vault.Options(kdf: .fastForTestsOnly, passwordPolicy: PasswordPolicy(minimumLength: 1, minimumEstimatedBits: 0), maximumSyncedArgon2MemoryKiB: 32)
            let b = try await Vault.join(at: dir.file("b"), keyring: try await server.keyring(as: credentials).keyring,
                                         syncSecret: secret, password: password, options: capped)
            defer { Task { await b.lock() } }
            let engineA = SyncEngine(vault: a, transport: server)
            let engineB = SyncEngine(vault: b, transport: server)
            try await engineB.join()

            let second = try Password("segunda contraseña")
            try await a.changePassword(from: password, to: second)
            let patient = try await a.patients.create(ClinicalFixtures.patient("Ana", "Ruiz"))
            #expect(try await engineA.sync().keyring == .published)
            let result = try await engineB.sync()
            #expect(result.keyring == .notAdopted(.invalidArgument))
            #expect(try await b.patients.get(patient.id).id == patient.id)
            #expect(try SyncKeyringHostileTests.opens(b, password))
            #expect(try !SyncKeyringHostileTests.opens(b, second))

            // A new device with the same cap cannot even start from the costlier keyring.
            let folder = dir.file("c")
            do {
                _ = try await Vault.join(at: folder, keyring: try await server.keyring(as: credentials).keyring,
                                         syncSecret: secret, password: second, options: capped)
                Issue.record("joined from a keyring above the cap")
            } catch let error as MedVaultError {
                #expect(error.code == .invalidArgument)
                #expect(error.field == "keyring")
            }
            #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("records.medvault").path))
        }
    }

    @Test("A join proof made for another server's origin (a relaying server) is refused; the same device joins through the server's own origin")
    func relayedProofIsRefused() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(1, in: dir)
            defer { Task { await devices.lockAll() } }
            let blob = try await devices.server.keyring(as: try #require(try await devices.engines[0].credentials()))
            let joining = try await Vault.join(at: dir.file("joining"), keyring: blob.keyring,
                                               syncSecret: try #require(try await devices.engines[0].syncSecret()),
                                               password: try VaultFixtures.password(), options: VaultFixtures.options)
            defer { Task { await joining.lock() } }
            // The device believes it talks to the relay, which passes the real server's challenge on.
            let relay = RelayingTransport(inner: devices.server)
            do {
                try await SyncEngine(vault: joining, transport: relay).join()
                Issue.record("a proof bound to the relay's origin was accepted")
            } catch let error as MedVaultError {
                #expect(error.code == .unauthorized)
            }
            #expect(await relay.joinOrigins == ["https://relay.example"])
            try await SyncEngine(vault: joining, transport: devices.server).join()
        }
    }
}

/// A server that relays every call to another one, under its own origin.
actor RelayingTransport: ForwardingSyncTransport {
    let inner: InMemorySyncTransport
    private(set) var joinOrigins: [String?] = []

    init(inner: InMemorySyncTransport) { self.inner = inner }

    nonisolated var proofOrigin: String? { "https://relay.example" }

    func pull(after: Int64, limit: Int, as credentials: SyncCredentials) async throws -> SyncPullResponse {
        try await inner.pull(after: after, limit: limit, as: credentials)
    }

    func join(vaultID: UUID, _ request: SyncJoinRequest) async throws -> SyncDeviceToken {
        joinOrigins.append(request.origin)
        return try await inner.join(vaultID: vaultID, request)
    }
}
