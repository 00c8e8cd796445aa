import Foundation
@_spi(Sync) import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultSync
import MedVaultSyncWire
import Testing

/// A real vault (fast test KDF) whose sync keys seal, sign and open, driving the server
/// through a transport (`HTTPSyncTransport`, or `InMemorySyncTransport` in the transport
/// conformance suite): what a device does, minus the sync engine.
struct TransportVault: Sendable {
    /// A marker that appears in every field a device fills; no request body the
    /// transport sends, and nothing in PostgreSQL, may contain it.
    static let marker = "ZQXMARKERJ7"

    let vault: Vault
    let folder: URL

    var id: UUID { vault.vaultID }

    static func make() async throws -> TransportVault {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("medvault-e2e-\(UUID().uuidString)")
        let creation = try await Vault.create(at: folder, password: try Password("contraseña \(marker)"),
                                              options: Vault.Options(kdf: .fastForTestsOnly, passwordPolicy: PasswordPolicy(minimumLength: 1, minimumEstimatedBits: 0)))
        return TransportVault(vault: creation.vault, folder: folder)
    }

    /// Runs `body` with a new vault, locked and deleted afterwards, also on failure.
    static func with<T: Sendable>(_ body: (TransportVault) async throws -> T) async throws -> T {
        let vault = try await make()
        do {
            let result = try await body(vault)
            await vault.close()
            return result
        } catch {
            await vault.close()
            throw error
        }
    }

    func close() async {
        await vault.lock()
        try? FileManager.default.removeItem(at: folder)
    }

    /// Registers the vault with a new first device; returns its credentials.
    func register(_ transport: any SyncTransport, keyringText: String = "keyring \(marker)") async throws -> SyncCredentials {
        let deviceID = UUID()
        let challenge = try await transport.challenge(SyncChallengeRequest(vaultID: id, deviceID: deviceID)).challenge
        let message = SyncDeviceProof.message(.register, challenge: challenge, vaultID: id, deviceID: deviceID)
        let request = try await vault.withSyncKeysSPI { keys in
            try SyncRegisterRequest(
                vaultID: id, deviceID: deviceID, verificationKey: Data(try keys.deviceSigningPublicKey()),
                keyring: try SyncKeyringBlob(generation: 1, keyring: try Self.sealKeyring(keyringText, keys)),
                challenge: challenge, signature: Data(try keys.signForDevice(Array(message))))
        }
        let token = try await transport.register(request)
        return SyncCredentials(vaultID: id, deviceID: deviceID, deviceToken: token.deviceToken)
    }

    /// Joins the vault with a new device (`deviceID`, or a fresh one).
    func join(_ transport: any SyncTransport, deviceID: UUID = UUID()) async throws -> SyncCredentials {
        let challenge = try await transport.challenge(SyncChallengeRequest(vaultID: id, deviceID: deviceID)).challenge
        let message = SyncDeviceProof.message(.join, challenge: challenge, vaultID: id, deviceID: deviceID)
        let signature = try await vault.withSyncKeysSPI { Data(try $0.signForDevice(Array(message))) }
        let token = try await transport.join(vaultID: id, try SyncJoinRequest(deviceID: deviceID, challenge: challenge,
                                                                                signature: signature))
        return SyncCredentials(vaultID: id, deviceID: deviceID, deviceToken: token.deviceToken)
    }

    /// Seals a patient record whose every field holds the marker, the way the sealer
    /// of `MedVaultSync` lays an envelope out (docs/sync.md).
    func seal(_ index: Int, id envelopeID: UUID = UUID()) async throws -> SyncEnvelope {
        let recordID = UUID()
        let plaintext = Data("""
            {"table":"patient","recordID":"\(recordID.uuidString)","operation":"insert","index":\(index),\
            "state":{"firstName":"\(Self.marker)-first","lastName":"\(Self.marker)-last","notes":"\(Self.marker)"}}
            """.utf8)
        return try await vault.withSyncKeysSPI { keys in
            let recordKey = try keys.recordKey(table: "patient", recordID: recordID)
            let sealed = try keys.seal(Array(plaintext), associatedData: associatedData(envelopeID, recordKey))
            return try SyncEnvelope(id: envelopeID, recordKey: Data(recordKey), ciphertext: Data(sealed))
        }
    }

    /// Opens an envelope of this vault; its `index`.
    func open(_ envelope: SyncEnvelope) async throws -> Int {
        let plaintext = try await vault.withSyncKeysSPI { keys in
            try keys.open(Array(envelope.ciphertext), associatedData: associatedData(envelope.id, Array(envelope.recordKey)))
        }
        struct Opened: Decodable { let index: Int }
        return try JSONDecoder().decode(Opened.self, from: Data(plaintext)).index
    }

    private func associatedData(_ envelopeID: UUID, _ recordKey: [UInt8]) -> [UInt8] {
        var bytes = Array("MedVault sync envelope v1".utf8)
        withUnsafeBytes(of: id.uuid) { bytes += $0 }
        withUnsafeBytes(of: envelopeID.uuid) { bytes += $0 }
        return bytes + recordKey
    }

    private static func sealKeyring(_ text: String, _ keys: SyncKeys) throws -> Data {
        Data(try keys.seal(Array(text.utf8), associatedData: Array("MedVault e2e keyring".utf8)))
    }

    /// A keyring blob of `generation` holding `text`, sealed.
    func keyringBlob(_ generation: Int64, _ text: String) async throws -> SyncKeyringBlob {
        let sealed = try await vault.withSyncKeysSPI { try Self.sealKeyring(text, $0) }
        return try SyncKeyringBlob(generation: generation, keyring: sealed)
    }
}

/// A transport of a test server; retries fast so a test never waits long.
func makeTransport(_ baseURL: URL, attempts: Int = 3, maximumDelay: Duration = .milliseconds(200),
                   timeout: Duration = .seconds(30)) throws -> HTTPSyncTransport {
    var configuration = HTTPSyncTransport.Configuration(baseURL: baseURL, timeout: timeout)
    configuration.retryPolicy = HTTPSyncRetryPolicy(maximumAttempts: attempts, initialDelay: .milliseconds(50),
                                                    maximumDelay: maximumDelay)
    return try HTTPSyncTransport(configuration: configuration)
}

/// The `MedVaultError` `body` throws (recorded as an issue when it throws nothing or
/// something else).
func transportError(_ body: () async throws -> some Any) async -> MedVaultError? {
    do {
        _ = try await body()
        Issue.record("expected an error")
        return nil
    } catch let error as MedVaultError {
        return error
    } catch {
        Issue.record("not a MedVaultError: \(type(of: error))")
        return nil
    }
}
