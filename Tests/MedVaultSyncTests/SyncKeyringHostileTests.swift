import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
@testable import MedVaultSync
import MedVaultSyncWire
import MedVaultTestSupport
import Testing

/// The keyring step of a sync against a server that answers a keyring this device must
/// not take, an older one, an impossible generation, or while the password changes here.
@Suite("Sync keyring: what the server answers cannot stop records or undo a password")
struct SyncKeyringHostileTests {
    /// Whether `password` opens the keyring file of `vault`.
    static func opens(_ vault: Vault, _ password: Password) throws -> Bool {
        do {
            try KeyringFile.read(at: vault.layout.keyring).unlock(password: password).wipe()
            return true
        } catch let error as MedVaultError where error.code == .wrongPassword {
            return false
        }
    }

    @Test("A server keyring that does not parse or is another vault's is not taken; records still sync",
          arguments: [false, true])
    func unreadableKeyringDoesNotStopRecords(anotherVault: Bool) async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(2, in: dir)
            defer { Task { await devices.lockAll() } }
            var bytes = Data([1, 2, 3])
            if anotherVault {
                let other = try await Vault.create(at: dir.file("other"), password: try VaultFixtures.password(),
                                                   options: VaultFixtures.options).vault
                bytes = try Data(contentsOf: other.layout.keyring)
                await other.lock()
            }
            let patient = try await devices.vaults[0].patients.create(ClinicalFixtures.patient("Ana", "Ruiz"))
            _ = try await devices.engines[0].sync()
            let before = try Data(contentsOf: devices.vaults[1].layout.keyring)
            let transport = KeyringOverrideTransport(devices.server, keyring: .replace(bytes))
            let result = try await SyncEngine(vault: devices.vaults[1], transport: transport).sync()
            // Sealed over by this device, which holds the secret; this server answers the
            // compare-and-swap with a conflict (its generation is fake): tried next sync.
            #expect(result.keyring == .notAdopted(.conflict))
            #expect(result.downloaded >= 1)
            #expect(try await devices.vaults[1].patients.get(patient.id).id == patient.id)
            #expect(try Data(contentsOf: devices.vaults[1].layout.keyring) == before)
        }
    }

    @Test("A password changed here while the sync reads the server's keyring is not undone by adopting it; the next sync publishes it")
    func passwordChangedDuringAdoption() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(2, in: dir)
            defer { Task { await devices.lockAll() } }
            let first = try VaultFixtures.password()
            let second = try Password("segunda contraseña")
            let third = try Password("tercera contraseña")
            try await devices.vaults[0].changePassword(from: first, to: second)
            _ = try await devices.engines[0].sync()

            let held = KeyringOverrideTransport(devices.server, keyring: .hold)
            let pass = Task { try await SyncEngine(vault: devices.vaults[1], transport: held).sync() }
            while await held.keyringReads == 0 { try await Task.sleep(for: .milliseconds(5)) }
            try await devices.vaults[1].changePassword(from: first, to: third)
            await held.release()
            #expect(try await pass.value.keyring == .notAdopted(.conflict))
            #expect(try Self.opens(devices.vaults[1], third))

            #expect(try await devices.engines[1].sync().keyring == .published)
            #expect(try await devices.engines[0].sync().keyring == .adopted)
            for vault in devices.vaults {
                #expect(try Self.opens(vault, third))
                #expect(try !Self.opens(vault, second))
            }
        }
    }

    @Test("A server answering an older keyring than the one adopted here gets this device's again; the old password stays out")
    func olderKeyringIsNotAdopted() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(2, in: dir)
            defer { Task { await devices.lockAll() } }
            let first = try VaultFixtures.password()
            let second = try Password("segunda contraseña")
            let credentials = try #require(try await devices.engines[1].credentials())
            let old = try await devices.server.keyring(as: credentials)
            try await devices.vaults[0].changePassword(from: first, to: second)
            _ = try await devices.engines[0].sync()
            #expect(try await devices.engines[1].sync().keyring == .adopted)

            // The server goes back to the first keyring (restored from a backup).
            let stale = KeyringOverrideTransport(devices.server, keyring: .serve(old))
            let result = try await SyncEngine(vault: devices.vaults[1], transport: stale).sync()
            #expect(result.keyring == .published)
            let published = try #require(await stale.published.last)
            #expect(published.expectedGeneration == old.generation)
            let secret = try #require(try await devices.engines[1].syncSecret())
            #expect(try SealedKeyring(opening: published.keyring.keyring, secret: secret).keyring.sharedSlotsDigest
                == (try KeyringFile.read(at: devices.vaults[1].layout.keyring).sharedSlotsDigest))
            #expect(try Self.opens(devices.vaults[1], second))
            #expect(try !Self.opens(devices.vaults[1], first))
        }
    }

    @Test("A keyring generation that cannot grow leaves this device's change unpublished (badResponse); records still sync")
    func generationAtTheLimit() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(2, in: dir)
            defer { Task { await devices.lockAll() } }
            let patient = try await devices.vaults[0].patients.create(ClinicalFixtures.patient("Ana", "Ruiz"))
            _ = try await devices.engines[0].sync()
            try await devices.vaults[1].changePassword(from: try VaultFixtures.password(),
                                                       to: try Password("segunda contraseña"))
            let transport = KeyringOverrideTransport(devices.server, keyring: .relabel(.max))
            let result = try await SyncEngine(vault: devices.vaults[1], transport: transport).sync()
            #expect(result.keyring == .notAdopted(.badResponse))
            #expect(await transport.published.isEmpty)
            #expect(try await devices.vaults[1].patients.get(patient.id).id == patient.id)
        }
    }

    @Test("A device that joins after another device changed the password adopts it instead of publishing its older keyring")
    func joinedDeviceAdoptsNewerKeyring() async throws {
        try await withTemporaryDirectory { dir in
            let devices = try await SyncDevices.make(1, in: dir)
            defer { Task { await devices.lockAll() } }
            let first = try VaultFixtures.password()
            let second = try Password("segunda contraseña")
            let credentials = try #require(try await devices.engines[0].credentials())
            // The new device is made from the keyring as it was…
            let blob = try await devices.server.keyring(as: credentials)
            let joined = try await Vault.join(at: dir.file("late"), keyring: blob.keyring,
                                              syncSecret: try #require(try await devices.engines[0].syncSecret()), password: first,
                                              options: VaultFixtures.options)
            defer { Task { await joined.lock() } }
            // …then the password changes on the first device before the new one joins.
            try await devices.vaults[0].changePassword(from: first, to: second)
            #expect(try await devices.engines[0].sync().keyring == .published)
            try await SyncEngine(vault: joined, transport: devices.server).join()
            #expect(try Self.opens(joined, second))
            #expect(try !Self.opens(joined, first))
            #expect(try await devices.engines[0].sync().keyring == .unchanged)
            #expect(try Self.opens(devices.vaults[0], second))
            #expect(try !Self.opens(devices.vaults[0], first))
        }
    }
}

/// A transport over an `InMemorySyncTransport` whose keyring answers are changed; the
/// keyring updates it is sent are recorded (and, when it serves a keyring of its own,
/// accepted without reaching the server).
actor KeyringOverrideTransport: ForwardingSyncTransport {
    enum Answer: Sendable {
        /// These bytes as the server's next generation (a keyring newer than this device's).
        case replace(Data)
        /// This blob, whatever the server holds; updates are accepted here.
        case serve(SyncKeyringBlob)
        /// The server's keyring under another generation.
        case relabel(Int64)
        /// The server's answer, once ``release()`` is called.
        case hold
    }

    let inner: InMemorySyncTransport
    private let answer: Answer
    private let gate = TestGate()
    private(set) var keyringReads = 0
    private(set) var published: [SyncKeyringUpdate] = []

    init(_ inner: InMemorySyncTransport, keyring answer: Answer) {
        self.inner = inner
        self.answer = answer
    }

    func release() async { await gate.release() }

    func pull(after: Int64, limit: Int, as credentials: SyncCredentials) async throws -> SyncPullResponse {
        try await inner.pull(after: after, limit: limit, as: credentials)
    }

    func keyring(as credentials: SyncCredentials) async throws -> SyncKeyringBlob {
        keyringReads += 1
        let real = try await inner.keyring(as: credentials)
        switch answer {
        case .replace(let bytes): return try SyncKeyringBlob(generation: real.generation + 1, keyring: bytes)
        case .serve(let blob): return blob
        case .relabel(let generation): return try SyncKeyringBlob(generation: generation, keyring: real.keyring)
        case .hold:
            await gate.wait()
            return real
        }
    }

    func putKeyring(_ update: SyncKeyringUpdate, as credentials: SyncCredentials) async throws -> SyncKeyringBlob {
        published.append(update)
        if case .serve = answer { return update.keyring }
        return try await inner.putKeyring(update, as: credentials)
    }
}
