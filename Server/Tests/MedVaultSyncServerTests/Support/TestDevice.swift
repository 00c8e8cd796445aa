import Crypto
import Foundation
import MedVaultSyncWire
import Testing

/// What the devices of one vault share: the vault id and the keys every device derives
/// from the vault key (here random), none of which the server ever receives.
struct TestVault: Sendable {
    let id: UUID
    let signingKey: Curve25519.Signing.PrivateKey
    let envelopeKey = SymmetricKey(size: .bits256)
    let recordKeyKey = SymmetricKey(size: .bits256)

    init(id: UUID = UUID(), signingKey: Curve25519.Signing.PrivateKey = Curve25519.Signing.PrivateKey()) {
        self.id = id
        self.signingKey = signingKey
    }

    /// The record key of a record (HMAC of its name).
    func recordKey(_ name: String) -> Data {
        Data(HMAC<SHA256>.authenticationCode(for: Data(name.utf8), using: recordKeyKey))
    }

    /// Seals `plaintext` into an envelope, with the vault id, envelope id and record key
    /// as associated data (the layout of docs/sync.md).
    func seal(_ plaintext: String, record: String, id: UUID = UUID()) throws -> SyncEnvelope {
        let recordKey = recordKey(record)
        let sealed = try ChaChaPoly.seal(Data(plaintext.utf8), using: envelopeKey,
                                         authenticating: associatedData(id: id, recordKey: recordKey))
        return try SyncEnvelope(id: id, recordKey: recordKey, ciphertext: sealed.combined)
    }

    /// Opens an envelope sealed by ``seal(_:record:id:)``.
    func open(_ envelope: SyncEnvelope) throws -> String {
        let box = try ChaChaPoly.SealedBox(combined: envelope.ciphertext)
        let data = try ChaChaPoly.open(box, using: envelopeKey,
                                       authenticating: associatedData(id: envelope.id, recordKey: envelope.recordKey))
        return String(decoding: data, as: UTF8.self)
    }

    private func associatedData(id: UUID, recordKey: Data) -> Data {
        var data = Data("MedVault sync envelope v1".utf8)
        withUnsafeBytes(of: self.id.uuid) { data.append(contentsOf: $0) }
        withUnsafeBytes(of: id.uuid) { data.append(contentsOf: $0) }
        data.append(recordKey)
        return data
    }

    /// A keyring blob: sealed bytes, as a real keyring's wrapped slots are opaque.
    func sealedKeyring(_ text: String) throws -> Data {
        try ChaChaPoly.seal(Data(text.utf8), using: envelopeKey).combined
    }

    /// The text of a ``sealedKeyring(_:)``.
    func openKeyring(_ sealed: Data) throws -> String {
        String(decoding: try ChaChaPoly.open(ChaChaPoly.SealedBox(combined: sealed), using: envelopeKey), as: UTF8.self)
    }
}

/// One device of a ``TestVault`` talking to a server.
struct TestDevice: Sendable {
    let vault: TestVault
    let id: UUID
    let token: String
    let client: HTTPTestClient

    /// Registers `vault` with a first device.
    static func register(_ vault: TestVault, client: HTTPTestClient, keyring: Data? = nil,
                         deviceID: UUID = UUID()) async throws -> TestDevice {
        let response = try await registerResponse(vault, client: client, keyring: keyring, deviceID: deviceID)
        try #require(response.status == 201, "register: \(response.status) \(response.text)")
        return TestDevice(vault: vault, id: deviceID, token: try response.decode(SyncDeviceToken.self).deviceToken,
                          client: client)
    }

    /// The server's answer to registering `vault`, with `headers` added to the request.
    static func registerResponse(_ vault: TestVault, client: HTTPTestClient, keyring: Data? = nil,
                                 deviceID: UUID = UUID(), headers: [String: String] = [:]) async throws -> HTTPTestResponse {
        try await client.send("POST", "/v1/vaults", body: try JSONEncoder().encode(
            try registerRequest(vault, client: client, keyring: keyring, deviceID: deviceID)), headers: headers)
    }

    /// A register request for `vault` with a fresh challenge, signed by its key.
    static func registerRequest(_ vault: TestVault, client: HTTPTestClient, keyring: Data? = nil,
                                deviceID: UUID = UUID()) async throws -> SyncRegisterRequest {
        let challenge = try await challenge(vault: vault.id, device: deviceID, client: client)
        let message = SyncDeviceProof.message(.register, challenge: challenge, vaultID: vault.id, deviceID: deviceID)
        return try SyncRegisterRequest(
            vaultID: vault.id, deviceID: deviceID, verificationKey: vault.signingKey.publicKey.rawRepresentation,
            keyring: try SyncKeyringBlob(generation: 1, keyring: try keyring ?? vault.sealedKeyring("keyring 1")),
            challenge: challenge, signature: try vault.signingKey.signature(for: message))
    }

    /// Joins `vault` with a new device.
    static func join(_ vault: TestVault, client: HTTPTestClient) async throws -> TestDevice {
        let deviceID = UUID()
        let response = try await joinResponse(vault, deviceID: deviceID, client: client)
        try #require(response.status == 201, "join: \(response.status) \(response.text)")
        return TestDevice(vault: vault, id: deviceID, token: try response.decode(SyncDeviceToken.self).deviceToken,
                          client: client)
    }

    static func joinResponse(_ vault: TestVault, deviceID: UUID, client: HTTPTestClient,
                             signingKey: Curve25519.Signing.PrivateKey? = nil) async throws -> HTTPTestResponse {
        let challenge = try await challenge(vault: vault.id, device: deviceID, client: client)
        let message = SyncDeviceProof.message(.join, challenge: challenge, vaultID: vault.id, deviceID: deviceID)
        let request = try SyncJoinRequest(deviceID: deviceID, challenge: challenge,
                                          signature: try (signingKey ?? vault.signingKey).signature(for: message))
        return try await client.send("POST", "/v1/vaults/\(vault.id)/devices", json: request)
    }

    static func challenge(vault: UUID, device: UUID, client: HTTPTestClient) async throws -> Data {
        let response = try await client.send("POST", "/v1/challenges",
                                             json: SyncChallengeRequest(vaultID: vault, deviceID: device))
        try #require(response.status == 201, "challenge: \(response.status) \(response.text)")
        return try response.decode(SyncChallenge.self).challenge
    }

    func push(_ envelopes: [SyncEnvelope]) async throws -> HTTPTestResponse {
        try await client.send("POST", "/v1/vaults/\(vault.id)/envelopes", token: token,
                              json: SyncPushRequest(envelopes: envelopes))
    }

    func pushOK(_ envelopes: [SyncEnvelope]) async throws -> [Int64] {
        let response = try await push(envelopes)
        try #require(response.status == 200, "push: \(response.status) \(response.text)")
        return try response.decode(SyncPushResponse.self).sequences
    }

    /// Pushes until the server answers 200, retrying transport errors and 503 (a server
    /// restarting): what a sync client does.
    func pushRetrying(_ envelopes: [SyncEnvelope], attempts: Int = 100) async throws -> [Int64] {
        for _ in 1..<attempts {
            if let response = try? await push(envelopes), response.status == 200 {
                return try response.decode(SyncPushResponse.self).sequences
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        return try await pushOK(envelopes)
    }

    func pull(after: Int64 = 0, limit: Int? = nil) async throws -> HTTPTestResponse {
        let query = "after=\(after)" + (limit.map { "&limit=\($0)" } ?? "")
        return try await client.send("GET", "/v1/vaults/\(vault.id)/envelopes?\(query)", token: token)
    }

    func pullOK(after: Int64 = 0, limit: Int? = nil) async throws -> SyncPullResponse {
        let response = try await pull(after: after, limit: limit)
        try #require(response.status == 200, "pull: \(response.status) \(response.text)")
        return try response.decode(SyncPullResponse.self)
    }

    /// Every envelope of the vault, page by page.
    func pullAll(pageSize: Int = 100) async throws -> [SyncPulledEnvelope] {
        var all: [SyncPulledEnvelope] = []
        var after: Int64 = 0
        while true {
            let page = try await pullOK(after: after, limit: pageSize)
            all += page.envelopes
            after = page.lastSequence
            if !page.hasMore { return all }
        }
    }
}
