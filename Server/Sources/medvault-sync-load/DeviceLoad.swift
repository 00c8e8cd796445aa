import Crypto
import Foundation
import MedVaultCore
import MedVaultSync
import MedVaultSyncWire

/// The device load: simulated devices (five per vault, like the devices of a small
/// clinic) each in a closed loop — seal and push a batch, pull everything new — through
/// the library's `HTTPSyncTransport`, one per device, with retries off so that every
/// failed request counts as an error. With several server instances, the devices are
/// spread across them in turn (each vault's devices on different instances).
struct DeviceLoad {
    let baseURLs: [URL]
    let devices: Int
    let duration: Duration
    let envelopesPerPush: Int
    let plaintextBytes: Int

    /// What every device measured, merged.
    struct Result: Sendable {
        var pushMilliseconds: [Double] = []
        var pullMilliseconds: [Double] = []
        var errors: [String: Int] = [:]
        var pushedEnvelopes = 0
        var pulledEnvelopes = 0
        var seconds = 0.0

        mutating func merge(_ other: Result) {
            pushMilliseconds += other.pushMilliseconds
            pullMilliseconds += other.pullMilliseconds
            errors.merge(other.errors, uniquingKeysWith: +)
            pushedEnvelopes += other.pushedEnvelopes
            pulledEnvelopes += other.pulledEnvelopes
        }

        var requests: Int { pushMilliseconds.count + pullMilliseconds.count + errors.values.reduce(0, +) }
    }

    func run() async throws -> Result {
        var fleet: [SimulatedDevice] = []
        let vaultCount = max(1, (devices + 4) / 5)
        for vaultIndex in 0..<vaultCount {
            let vault = SimulatedVault()
            let size = min(5, devices - vaultIndex * 5)
            guard size > 0 else { break }
            let first = try await SimulatedDevice.register(vault, transport: try makeTransport(fleet.count))
            fleet.append(first)
            for _ in 1..<size {
                fleet.append(try await SimulatedDevice.join(vault, transport: try makeTransport(fleet.count)))
            }
        }
        let deadline = ContinuousClock.now + duration
        let started = ContinuousClock.now
        let load = self
        var total = try await withThrowingTaskGroup(of: Result.self) { group in
            for device in fleet { group.addTask { try await load.loop(device, until: deadline) } }
            return try await group.reduce(into: Result()) { $0.merge($1) }
        }
        let elapsed = ContinuousClock.now - started
        total.seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return total
    }

    /// The transport of the `index`th device, on the instance its turn gives.
    private func makeTransport(_ index: Int) throws -> HTTPSyncTransport {
        var configuration = HTTPSyncTransport.Configuration(baseURL: baseURLs[index % baseURLs.count], timeout: .seconds(30))
        configuration.retryPolicy = .never
        return try HTTPSyncTransport(configuration: configuration)
    }

    private func loop(_ device: SimulatedDevice, until deadline: ContinuousClock.Instant) async throws -> Result {
        var result = Result()
        var cursor: Int64 = 0
        while ContinuousClock.now < deadline {
            let envelopes = try (0..<envelopesPerPush).map { _ in try device.vault.seal(byteCount: plaintextBytes) }
            let pushStart = ContinuousClock.now
            do {
                _ = try await device.transport.push(SyncPushRequest(envelopes: envelopes), as: device.credentials)
                result.pushMilliseconds.append(milliseconds(since: pushStart))
                result.pushedEnvelopes += envelopes.count
            } catch {
                result.errors["push " + Self.code(error), default: 0] += 1
            }
            var more = true
            while more && ContinuousClock.now < deadline {
                let pullStart = ContinuousClock.now
                do {
                    let page = try await device.transport.pull(after: cursor, limit: 200, as: device.credentials)
                    result.pullMilliseconds.append(milliseconds(since: pullStart))
                    result.pulledEnvelopes += page.envelopes.count
                    cursor = max(cursor, page.lastSequence)
                    more = page.hasMore
                } catch {
                    result.errors["pull " + Self.code(error), default: 0] += 1
                    more = false
                }
            }
        }
        return result
    }

    private static func code(_ error: any Error) -> String {
        (error as? MedVaultError).map { "\($0.code)" } ?? "\(type(of: error))"
    }
}

func milliseconds(since start: ContinuousClock.Instant) -> Double {
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) * 1_000 + Double(elapsed.components.attoseconds) / 1e15
}

/// A vault as the server sees it: an Ed25519 key pair and sealing keys no request carries.
struct SimulatedVault: Sendable {
    let id = UUID()
    let signingKey = Curve25519.Signing.PrivateKey()
    let envelopeKey = SymmetricKey(size: .bits256)

    /// An envelope of `byteCount` plaintext bytes, sealed (ChaCha20-Poly1305). The
    /// plaintext is zeros: its ciphertext is as random as any under a fresh nonce, and
    /// drawing it a byte at a time (a `getrandom` call per byte) took about a
    /// tenth of the two cores during the load (perf), CPU the server shares.
    func seal(byteCount: Int) throws -> SyncEnvelope {
        let envelopeID = UUID()
        let recordKey = Data(SHA256.hash(data: Data(envelopeID.uuidString.utf8)))
        let plaintext = Data(count: byteCount)
        let sealed = try ChaChaPoly.seal(plaintext, using: envelopeKey, authenticating: recordKey)
        return try SyncEnvelope(id: envelopeID, recordKey: recordKey, ciphertext: sealed.combined)
    }
}

/// One simulated device: its vault, its transport and its token.
struct SimulatedDevice: Sendable {
    let vault: SimulatedVault
    let transport: HTTPSyncTransport
    let credentials: SyncCredentials

    static func register(_ vault: SimulatedVault, transport: HTTPSyncTransport) async throws -> SimulatedDevice {
        let deviceID = UUID()
        let challenge = try await transport.challenge(SyncChallengeRequest(vaultID: vault.id, deviceID: deviceID))
        let message = SyncDeviceProof.message(.register, challenge: challenge.challenge, vaultID: vault.id,
                                              deviceID: deviceID)
        let keyring = try ChaChaPoly.seal(Data("keyring".utf8), using: vault.envelopeKey).combined
        let token = try await transport.register(try SyncRegisterRequest(
            vaultID: vault.id, deviceID: deviceID, verificationKey: vault.signingKey.publicKey.rawRepresentation,
            keyring: try SyncKeyringBlob(generation: 1, keyring: keyring), challenge: challenge.challenge,
            signature: try vault.signingKey.signature(for: message)))
        return SimulatedDevice(vault: vault, transport: transport,
                               credentials: SyncCredentials(vaultID: vault.id, deviceID: deviceID,
                                                            deviceToken: token.deviceToken))
    }

    static func join(_ vault: SimulatedVault, transport: HTTPSyncTransport) async throws -> SimulatedDevice {
        let deviceID = UUID()
        let challenge = try await transport.challenge(SyncChallengeRequest(vaultID: vault.id, deviceID: deviceID))
        let message = SyncDeviceProof.message(.join, challenge: challenge.challenge, vaultID: vault.id, deviceID: deviceID)
        let token = try await transport.join(vaultID: vault.id, try SyncJoinRequest(
            deviceID: deviceID, challenge: challenge.challenge, signature: try vault.signingKey.signature(for: message)))
        return SimulatedDevice(vault: vault, transport: transport,
                               credentials: SyncCredentials(vaultID: vault.id, deviceID: deviceID,
                                                            deviceToken: token.deviceToken))
    }
}
