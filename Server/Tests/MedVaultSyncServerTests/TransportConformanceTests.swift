import Foundation
@_spi(Sync) import MedVault
import MedVaultCore
import MedVaultSync
import MedVaultSyncWire
import Testing

/// One scenario, two transports: the library's `InMemorySyncTransport` (what app tests and
/// previews sync through) and `HTTPSyncTransport` against this server over real HTTP and
/// PostgreSQL. Each step's outcome — the values returned, or the error's code — is written
/// to a transcript; the two transcripts must be identical, and match what docs/sync-server.md
/// specifies. A rule the in-memory transport keeps differently from the server fails here.
@Suite("Transport conformance: in-memory and HTTP + PostgreSQL", .timeLimit(.minutes(5)))
struct TransportConformanceTests {
    /// A step's outcome: its value's description, or `error <code>`.
    static func outcome(_ body: () async throws -> String) async -> String {
        do {
            return try await body()
        } catch let error as MedVaultError {
            return "error \(error.code.rawValue)"
        } catch {
            return "error (not a MedVaultError)"
        }
    }

    /// The scenario on `transport`, with a fresh vault: its transcript.
    static func transcript(_ transport: any SyncTransport) async throws -> [String] {
        try await TransportVault.with { vault in
            var lines: [String] = []
            func step(_ name: String, _ body: () async throws -> String) async {
                lines.append("\(name): \(await outcome(body))")
            }
            let first = try await vault.register(transport)
            await step("register the vault again") { _ = try await vault.register(transport); return "ok" }
            await step("register another vault with a small-order key and a proof every message satisfies") {
                // The identity point as key, R = identity and S = 0: the Ed25519 equation
                // holds for any message, so only a check that refuses small-order points
                // stops it. Devices refuse it; the server must too.
                let identity = Data([1] + [UInt8](repeating: 0, count: 31))
                let vaultID = UUID(), deviceID = UUID()
                let challenge = try await transport.challenge(SyncChallengeRequest(vaultID: vaultID, deviceID: deviceID))
                _ = try await transport.register(try SyncRegisterRequest(
                    vaultID: vaultID, deviceID: deviceID, verificationKey: identity,
                    keyring: try SyncKeyringBlob(generation: 1, keyring: Data([1])), challenge: challenge.challenge,
                    signature: identity + Data(count: 32)))
                return "ok"
            }
            let second = try await vault.join(transport)
            await step("join the same device again") { _ = try await vault.join(transport, deviceID: second.deviceID); return "ok" }
            await step("join with a proof for another vault") {
                let deviceID = UUID()
                let challenge = try await transport.challenge(SyncChallengeRequest(vaultID: vault.id, deviceID: deviceID))
                let message = SyncDeviceProof.message(.join, challenge: challenge.challenge, vaultID: UUID(), deviceID: deviceID)
                let signature = try await vault.vault.withSyncKeysSPI { Data(try $0.signForDevice(Array(message))) }
                _ = try await transport.join(vaultID: vault.id, try SyncJoinRequest(deviceID: deviceID, challenge: challenge.challenge,
                                                                                   signature: signature))
                return "ok"
            }

            var pushed: [SyncEnvelope] = []
            for batch in 0..<3 {
                var envelopes: [SyncEnvelope] = []
                for index in 0..<9 { envelopes.append(try await vault.seal(batch * 9 + index)) }
                await step("push batch \(batch)") {
                    "\(try await transport.push(SyncPushRequest(envelopes: envelopes), as: first).sequences)"
                }
                pushed += envelopes
            }
            await step("push batch 1 again, by the other device") {
                "\(try await transport.push(SyncPushRequest(envelopes: Array(pushed[9..<18])), as: second).sequences)"
            }
            await step("push an envelope id again with other content") {
                let changed = try SyncEnvelope(id: pushed[0].id, recordKey: pushed[0].recordKey,
                                               ciphertext: pushed[1].ciphertext)
                return "\(try await transport.push(SyncPushRequest(envelopes: [changed]), as: first).sequences)"
            }

            var after: Int64 = 0
            var pulled: [SyncPulledEnvelope] = []
            for page in 0..<4 {
                await step("pull page \(page)") {
                    let response = try await transport.pull(after: after, limit: 10, as: second)
                    pulled += response.envelopes
                    after = response.lastSequence
                    return "\(response.envelopes.map(\.sequence)) last \(response.lastSequence) more \(response.hasMore)"
                }
            }
            lines.append("pulled the pushed envelopes, by the first device: "
                         + "\(pulled.map(\.envelope) == pushed && pulled.allSatisfy { $0.deviceID == first.deviceID })")
            await step("pull with limit 0") { "\(try await transport.pull(after: 0, limit: 0, as: first).envelopes.count)" }
            await step("pull after a negative sequence") {
                "\(try await transport.pull(after: -1, limit: 10, as: first).envelopes.count)"
            }
            await step("pull after a sequence ahead of the log") {
                "\(try await transport.pull(after: 1_000, limit: 10, as: first).envelopes.count)"
            }

            await step("pull with a limit above the protocol's") {
                "\(try await transport.pull(after: 0, limit: SyncProtocolLimits.maximumPullLimit + 1, as: first).envelopes.count)"
            }
            await step("push more envelopes than the protocol allows in one request") {
                let many = try (0...SyncProtocolLimits.maximumEnvelopesPerPush).map { _ in
                    try SyncEnvelope(id: UUID(), recordKey: pushed[0].recordKey, ciphertext: pushed[0].ciphertext)
                }
                return "\(try await transport.push(SyncPushRequest(envelopes: many), as: first).sequences.count)"
            }
            // Pages are cut by bytes too: six envelopes of 900 KiB make a first page of four.
            let large = try (0..<6).map { index in
                try SyncEnvelope(id: UUID(), recordKey: pushed[0].recordKey,
                                 ciphertext: Data(repeating: UInt8(index), count: 900 << 10))
            }
            await step("push six envelopes of 900 KiB") {
                "\(try await transport.push(SyncPushRequest(envelopes: large), as: first).sequences)"
            }
            await step("pull them") {
                let page = try await transport.pull(after: 27, limit: 10, as: second)
                return "\(page.envelopes.map(\.sequence)) more \(page.hasMore), intact \(page.envelopes.map(\.envelope) == Array(large.prefix(page.envelopes.count)))"
            }

            let stranger = SyncCredentials(vaultID: vault.id, deviceID: first.deviceID, deviceToken: "not-a-token")
            await step("push with a wrong token") {
                "\(try await transport.push(SyncPushRequest(envelopes: [pushed[0]]), as: stranger).sequences)"
            }
            await step("pull with a wrong token") { "\(try await transport.pull(after: 0, limit: 1, as: stranger).envelopes.count)" }
            let otherVault = SyncCredentials(vaultID: UUID(), deviceID: first.deviceID, deviceToken: first.deviceToken)
            await step("pull with a token for another vault id") {
                "\(try await transport.pull(after: 0, limit: 1, as: otherVault).envelopes.count)"
            }

            await step("read the keyring") { "generation \(try await transport.keyring(as: second).generation)" }
            let next = try await vault.keyringBlob(2, "keyring two")
            await step("replace the keyring at generation 1") {
                "generation \(try await transport.putKeyring(try SyncKeyringUpdate(expectedGeneration: 1, keyring: next), as: first).generation)"
            }
            await step("replace it again from generation 1") {
                "generation \(try await transport.putKeyring(try SyncKeyringUpdate(expectedGeneration: 1, keyring: next), as: first).generation)"
            }
            await step("read the keyring from the other device") {
                let blob = try await transport.keyring(as: second)
                return "generation \(blob.generation), the new one \(blob.keyring == next.keyring)"
            }
            await step("list the devices") { "\(try await transport.devices(as: first).devices.count) devices" }
            await step("revoke the second device") { try await transport.revoke(device: second.deviceID, as: first); return "ok" }
            await step("pull as the revoked device") { "\(try await transport.pull(after: 0, limit: 1, as: second).envelopes.count)" }
            await step("push as the revoked device") {
                "\(try await transport.push(SyncPushRequest(envelopes: [pushed[0]]), as: second).sequences)"
            }
            await step("the first device still pulls") { "\(try await transport.pull(after: 0, limit: 1, as: first).envelopes.count)" }
            return lines
        }
    }

    /// What docs/sync-server.md specifies, step by step: both transports must produce exactly this.
    static let expected = [
        "register the vault again: error conflict",
        "register another vault with a small-order key and a proof every message satisfies: error unauthorized",
        "join the same device again: error conflict",
        "join with a proof for another vault: error unauthorized",
        "push batch 0: [1, 2, 3, 4, 5, 6, 7, 8, 9]",
        "push batch 1: [10, 11, 12, 13, 14, 15, 16, 17, 18]",
        "push batch 2: [19, 20, 21, 22, 23, 24, 25, 26, 27]",
        "push batch 1 again, by the other device: [10, 11, 12, 13, 14, 15, 16, 17, 18]",
        "push an envelope id again with other content: error conflict",
        "pull page 0: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] last 10 more true",
        "pull page 1: [11, 12, 13, 14, 15, 16, 17, 18, 19, 20] last 20 more true",
        "pull page 2: [21, 22, 23, 24, 25, 26, 27] last 27 more false",
        "pull page 3: [] last 27 more false",
        "pulled the pushed envelopes, by the first device: true",
        "pull with limit 0: error validation",
        "pull after a negative sequence: error validation",
        "pull after a sequence ahead of the log: 0",
        "pull with a limit above the protocol's: 27",
        "push more envelopes than the protocol allows in one request: error limitExceeded",
        "push six envelopes of 900 KiB: [28, 29, 30, 31, 32, 33]",
        "pull them: [28, 29, 30, 31] more true, intact true",
        "push with a wrong token: error unauthorized",
        "pull with a wrong token: error unauthorized",
        "pull with a token for another vault id: error notFound",
        "read the keyring: generation 1",
        "replace the keyring at generation 1: generation 2",
        "replace it again from generation 1: error conflict",
        "read the keyring from the other device: generation 2, the new one true",
        "list the devices: 2 devices",
        "revoke the second device: ok",
        "pull as the revoked device: error unauthorized",
        "push as the revoked device: error unauthorized",
        "the first device still pulls: 1",
    ]

    @Test("Register, join, push, re-pushes, pulls, refusals, the keyring and revocation: the protocol's outcome on both transports, step by step")
    func sameOutcomes() async throws {
        let inMemory = try await Self.transcript(InMemorySyncTransport())
        let http = try await TestServer.with { server in try await Self.transcript(try makeTransport(server.baseURL)) }
        for (name, transcript) in [("in-memory", inMemory), ("HTTP", http)] {
            #expect(transcript.count == Self.expected.count, "\(name)")
            for (index, (line, expected)) in zip(transcript, Self.expected).enumerated() {
                #expect(line == expected, "\(name), step \(index)")
            }
        }
    }
}
