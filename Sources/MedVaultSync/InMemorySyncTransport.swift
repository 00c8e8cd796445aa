import Foundation
import MedVaultCore
import MedVaultSyncWire

/// A sync server held in memory: the semantics of `docs/sync-server.md` without HTTP or
/// PostgreSQL, for tests and app previews.
///
/// Several engines (devices) share one instance. It keeps, per vault, the Ed25519
/// verification key, the devices and their tokens (as SHA-256), the envelopes under
/// dense increasing sequences, and the keyring with its generation:
/// - challenges are single use, bound to a vault and a device, and consumed by the
///   first attempt to answer them;
/// - pushes are all or nothing and idempotent by envelope id (same id and bytes: the
///   first sequence again; other bytes: `conflict`, nothing stored);
/// - pulls return envelopes after a sequence, oldest first, with `hasMore`, a page
///   stopping at its envelope count or byte limit ("4 MiB"), as the server's;
/// - a push body over the byte limit (8 MiB) fails with `limitExceeded`, as the server's 413;
/// - the keyring is replaced only by a compare-and-swap on its generation;
/// - a revoked device's token is `unauthorized` on every route; a token of one vault
///   gets `notFound` on another vault.
///
/// Fault injection (`failNextCalls(_:with:)`, `dropNextPushResponse()`, `tamper`) lets
/// this package's tests play an unreachable server, a connection lost after the server
/// stored a push, or a server that alters bytes; it has `package` access, so an app
/// that links the library cannot reach it;
/// ``init(persistingTo:maximumPushBytes:maximumPullBytes:)`` saves the state to a file so that a process killed mid-sync
/// and the next one share a server.
///
/// ```swift
/// let server = InMemorySyncTransport()
/// let engineA = SyncEngine(vault: vaultA, transport: server)
/// try await engineA.register()
/// ```
public actor InMemorySyncTransport: SyncTransport {
    /// The most envelopes one push may carry: the protocol's default
    /// (`SyncProtocolLimits.maximumEnvelopesPerPush`).
    public static let maximumPushEnvelopes = SyncProtocolLimits.maximumEnvelopesPerPush
    /// The most envelopes one pull returns (`SyncProtocolLimits.maximumPullLimit`).
    public static let maximumPullLimit = SyncProtocolLimits.maximumPullLimit
    /// The default push body limit, in bytes (`SyncProtocolLimits.maximumPushBytes`).
    public static let defaultMaximumPushBytes = SyncProtocolLimits.maximumPushBytes
    /// The default pull page size, in ciphertext bytes (`SyncProtocolLimits.maximumPullBytes`).
    public static let defaultMaximumPullBytes = SyncProtocolLimits.maximumPullBytes

    /// The largest push body accepted, in bytes (the JSON `SyncWireJSON` writes):
    /// a larger push fails with `limitExceeded` and stores nothing, as the server's 413.
    public let maximumPushBytes: Int
    /// A pull page stops once its ciphertexts reach this many bytes (it always holds at
    /// least one envelope), as the server's.
    public let maximumPullBytes: Int

    struct StoredEnvelope: Codable {
        let sequence: Int64
        let deviceID: UUID
        let envelope: SyncEnvelope
        /// The signed push that stored it: an index into ``VaultState/signatures``.
        var signature: Int?
    }

    struct Device: Codable {
        var tokenHash: Data
        var revoked: Bool
        /// Its certificate of the vault's current epoch.
        var certificate: SyncDeviceCertificate?
        /// Unix seconds of its enrolment; of its last authenticated call; its sealed name.
        var registeredAt: Int64?
        var lastSeenAt: Int64?
        var sealedName: Data?
        /// Its place in the order of enrolment.
        var order: Int?
    }

    private struct Binding: Codable, Equatable {
        var vaultID: UUID
        var deviceID: UUID
    }

    struct VaultState: Codable {
        var verificationKey: Data
        var devices: [UUID: Device] = [:]
        var envelopes: [StoredEnvelope] = []
        var sequenceByEnvelopeID: [UUID: Int64] = [:]
        var keyring: SyncKeyringBlob
        /// The current sync epoch (`nil`: 0), its sealed keys, each started epoch's
        /// packages and starter's certificate.
        var epoch: UInt32?
        var epochKeys: Data?
        var packages: [UInt32: [UUID: SyncRekeyPackage]]?
        var signers: [UInt32: SyncDeviceCertificate]?
        /// The signatures of signed pushes, in arrival order.
        var signatures: [SyncPushSignature]?
    }

    private struct Snapshot: Codable {
        var vaults: [UUID: VaultState]
        var challenges: [Data: Binding]
    }

    var vaults: [UUID: VaultState] = [:]
    private var challenges: [Data: Binding] = [:]
    /// Pairings by id (kept in memory only, as short-lived as the server's).
    var pairings: [UUID: SyncPairingState] = [:]
    /// Where the state is saved after every change, if anywhere.
    private let file: URL?
    private var failuresLeft = 0
    private var failureCode = MedVaultError.Code.offline
    private var dropPushResponses = 0
    private var pushFailure: (after: Int, code: MedVaultError.Code)?
    private var bytesSeen: [Data] = []
    private var recordsBytes = false
    private var pushSizes: [Int] = []

    /// The origin this server answers to: devices bind their register and join proofs to
    /// it (``proofOrigin``), and a proof bound to another origin is refused, as by a
    /// server configured with `MEDVAULT_SYNC_ORIGIN`.
    public static let origin = "https://sync.in-memory.invalid"

    /// ``origin``: what the engine binds its proofs to when it syncs through this transport.
    public nonisolated var proofOrigin: String? { Self.origin }

    /// An empty server.
    ///
    /// - Parameters:
    ///   - maximumPushBytes: The push body limit (the server's default 8 MiB).
    ///   - maximumPullBytes: The pull page limit in ciphertext bytes (the server's 4 MiB).
    public init(maximumPushBytes: Int = InMemorySyncTransport.defaultMaximumPushBytes,
                maximumPullBytes: Int = InMemorySyncTransport.defaultMaximumPullBytes) {
        file = nil
        self.maximumPushBytes = maximumPushBytes
        self.maximumPullBytes = maximumPullBytes
    }

    /// A server whose state is saved to `file` (atomically, after every change) and read
    /// back from it when it exists: one process after another can play the same server,
    /// as the crash tests do when a killed device resumes. Not for two processes at once.
    ///
    /// - Parameters:
    ///   - file: Where the state is saved.
    ///   - maximumPushBytes: The push body limit (the server's default 8 MiB).
    ///   - maximumPullBytes: The pull page limit in ciphertext bytes (the server's 4 MiB).
    /// - Throws: `corrupted` when the file is not a saved state; file errors.
    public init(persistingTo file: URL, maximumPushBytes: Int = InMemorySyncTransport.defaultMaximumPushBytes,
                maximumPullBytes: Int = InMemorySyncTransport.defaultMaximumPullBytes) throws {
        self.file = file
        self.maximumPushBytes = maximumPushBytes
        self.maximumPullBytes = maximumPullBytes
        guard let data = try? Data(contentsOf: file) else { return }
        do {
            let snapshot = try JSONDecoder().decode(Snapshot.self, from: data)
            vaults = snapshot.vaults
            challenges = snapshot.challenges
        } catch {
            throw MedVaultError(.corrupted, reason: "the saved sync server state is not readable")
        }
    }

    /// Saves the state when the server persists (see ``init(persistingTo:)``).
    func save() throws {
        guard let file else { return }
        let data = try JSONEncoder().encode(Snapshot(vaults: vaults, challenges: challenges))
        try data.write(to: file, options: .atomic)
    }

    // MARK: - Fault injection and inspection (tests)

    /// Makes the next `count` calls fail with `code` (default `offline`) before doing
    /// anything.
    package func failNextCalls(_ count: Int, with code: MedVaultError.Code = .offline) {
        failuresLeft = count
        failureCode = code
    }

    /// Makes the next push store its envelopes and then fail with `offline`, as a
    /// connection lost before the answer arrived.
    package func dropNextPushResponse() {
        dropPushResponses += 1
    }

    /// Lets `accepted` more pushes through, then makes the next one fail with `code`
    /// before it stores anything.
    package func failPush(after accepted: Int, with code: MedVaultError.Code = .offline) {
        pushFailure = (accepted, code)
    }

    /// Starts keeping a copy of every request body handed to the server (the JSON an
    /// HTTP transport would send), for tests that scan them.
    public func recordRequestBytes() {
        recordsBytes = true
    }

    /// The request bodies kept since ``recordRequestBytes()``.
    public func recordedRequestBytes() -> [Data] { bytesSeen }

    /// The body size in bytes of every push received (accepted or refused), in order.
    public func pushBodySizes() -> [Int] { pushSizes }

    /// How many envelopes the server holds for `vaultID`.
    public func envelopeCount(vaultID: UUID) -> Int { vaults[vaultID]?.envelopes.count ?? 0 }

    /// Replaces the stored ciphertext of envelope `sequence` of `vaultID` with
    /// `transform(ciphertext)`: a test plays a server (or a network) that alters bytes.
    package func tamper(vaultID: UUID, sequence: Int64, _ transform: @Sendable (Data) -> Data) throws {
        guard var vault = vaults[vaultID], let index = vault.envelopes.firstIndex(where: { $0.sequence == sequence }) else {
            throw MedVaultError(.notFound, reason: "no such envelope")
        }
        let stored = vault.envelopes[index]
        vault.envelopes[index] = StoredEnvelope(
            sequence: stored.sequence, deviceID: stored.deviceID,
            envelope: try MedVaultError.fromWire {
                try SyncEnvelope(id: stored.envelope.id, recordKey: stored.envelope.recordKey,
                                 ciphertext: transform(stored.envelope.ciphertext), epoch: stored.envelope.epoch)
            },
            signature: stored.signature)
        vaults[vaultID] = vault
        try save()
    }

    // MARK: - SyncTransport

    public func challenge(_ request: SyncChallengeRequest) async throws -> SyncChallenge {
        try enter(request)
        let binding = Binding(vaultID: request.vaultID, deviceID: request.deviceID)
        challenges = challenges.filter { $0.value != binding }
        let bytes = Data((0..<SyncDeviceProof.challengeLength).map { _ in UInt8.random(in: 0...255) })
        challenges[bytes] = binding
        try save()
        return try MedVaultError.fromWire {
            try SyncChallenge(challenge: bytes, expiresInSeconds: 120)
        }
    }

    public func register(_ request: SyncRegisterRequest) async throws -> SyncDeviceToken {
        try enter(request)
        try consumeChallenge(request.challenge, vaultID: request.vaultID, deviceID: request.deviceID)
        try verify(.register, key: request.verificationKey, challenge: request.challenge, vaultID: request.vaultID,
                   deviceID: request.deviceID, signature: request.signature, origin: request.origin)
        guard vaults[request.vaultID] == nil else {
            throw MedVaultError(.conflict, reason: "the vault is already registered")
        }
        if let certificate = request.certificate {
            try Self.check(certificate, vaultID: request.vaultID, epoch: request.epoch ?? 0, key: request.verificationKey)
        }
        var vault = VaultState(verificationKey: request.verificationKey, keyring: request.keyring,
                               epoch: request.epoch, epochKeys: request.epochKeys)
        let token = Self.newToken()
        vault.devices[request.deviceID] = Device(tokenHash: Self.hash(token), revoked: false,
                                                 certificate: request.certificate, registeredAt: Self.seconds(),
                                                 order: vault.devices.count)
        vaults[request.vaultID] = vault
        try save()
        return SyncDeviceToken(deviceToken: token)
    }

    public func join(vaultID: UUID, _ request: SyncJoinRequest) async throws -> SyncDeviceToken {
        try enter(request)
        try consumeChallenge(request.challenge, vaultID: vaultID, deviceID: request.deviceID)
        guard var vault = vaults[vaultID] else { throw Self.forbidden }
        try verify(.join, key: vault.verificationKey, challenge: request.challenge, vaultID: vaultID,
                   deviceID: request.deviceID, signature: request.signature, origin: request.origin)
        // From epoch 1, as the server: a certificate of the current epoch or no join.
        if (vault.epoch ?? 0) > 0 || request.certificate != nil {
            guard let certificate = request.certificate else { throw Self.forbidden }
            try Self.check(certificate, vaultID: vaultID, epoch: vault.epoch ?? 0, key: vault.verificationKey)
        }
        guard vault.devices[request.deviceID] == nil else {
            throw MedVaultError(.conflict, reason: "the device id is already used in this vault")
        }
        let token = Self.newToken()
        vault.devices[request.deviceID] = Device(tokenHash: Self.hash(token), revoked: false,
                                                 certificate: request.certificate, registeredAt: Self.seconds(),
                                                 order: vault.devices.count)
        vaults[vaultID] = vault
        try save()
        return SyncDeviceToken(deviceToken: token)
    }

    public func push(_ request: SyncPushRequest, as credentials: SyncCredentials) async throws -> SyncPushResponse {
        try enter(request)
        if let failure = pushFailure {
            pushFailure = failure.after > 0 ? (failure.after - 1, failure.code) : nil
            if failure.after == 0 { throw MedVaultError(failure.code, reason: "the sync server refused the push") }
        }
        let size = try SyncWireJSON.encoder().encode(request).count
        pushSizes.append(size)
        guard size <= maximumPushBytes else {
            throw MedVaultError(.limitExceeded, reason: "a push body is larger than the server accepts")
        }
        var (sequences, added, batchIDs) = try plan(request, as: credentials)
        if !added.isEmpty, let vault = vaults[credentials.vaultID], (vault.epoch ?? 0) > 0 || request.signature != nil {
            try Self.check(request.signature, of: request.envelopes, vault: vault, vaultID: credentials.vaultID,
                           device: credentials.deviceID)
        }
        if let signature = request.signature, !added.isEmpty {
            // Read, then written: one statement doing both would access `vaults` twice at once.
            let signatures = (vaults[credentials.vaultID]?.signatures ?? []) + [signature]
            vaults[credentials.vaultID]?.signatures = signatures
            for position in added.indices { added[position].signature = signatures.count - 1 }
        }
        // Appended in place: a copy of the vault's state alive here would make every
        // push copy all the envelopes stored so far.
        vaults[credentials.vaultID]?.envelopes += added
        vaults[credentials.vaultID]?.sequenceByEnvelopeID.merge(batchIDs) { first, _ in first }
        try save()
        if dropPushResponses > 0 {
            dropPushResponses -= 1
            throw MedVaultError(.offline, reason: "the connection to the sync server was lost")
        }
        return SyncPushResponse(sequences: sequences)
    }

    /// A push's sequences and new envelopes, checked against what the vault holds.
    private func plan(_ request: SyncPushRequest, as credentials: SyncCredentials) throws
        -> (sequences: [Int64], added: [StoredEnvelope], batchIDs: [UUID: Int64]) {
        let vault = try authenticate(credentials)
        guard request.envelopes.count <= Self.maximumPushEnvelopes else {
            throw MedVaultError(.limitExceeded, reason: "a push carries at most 500 envelopes")
        }
        var sequences: [Int64] = []
        var next = vault.envelopes.last?.sequence ?? 0
        var added: [StoredEnvelope] = []
        var batchIDs: [UUID: Int64] = [:]
        for envelope in request.envelopes {
            if let sequence = vault.sequenceByEnvelopeID[envelope.id] ?? batchIDs[envelope.id] {
                let stored = vault.envelopes.first { $0.sequence == sequence }?.envelope
                    ?? added.first { $0.sequence == sequence }?.envelope
                guard stored?.recordKey == envelope.recordKey, stored?.ciphertext == envelope.ciphertext else {
                    throw MedVaultError(.conflict, reason: "another envelope already has this id")
                }
                sequences.append(sequence)
                continue
            }
            // As the server: a new envelope is of the vault's current epoch.
            guard envelope.epoch == vault.epoch ?? 0 else {
                throw envelope.epoch < vault.epoch ?? 0
                    ? MedVaultError(.conflict, reason: "the vault moved to a newer sync epoch")
                    : MedVaultError(.validation, reason: "the sync server refused the request as malformed")
            }
            next += 1
            added.append(StoredEnvelope(sequence: next, deviceID: credentials.deviceID, envelope: envelope))
            batchIDs[envelope.id] = next
            sequences.append(next)
        }
        return (sequences, added, batchIDs)
    }

    public func pull(after: Int64, limit: Int, as credentials: SyncCredentials) async throws -> SyncPullResponse {
        try enter(nil)
        let vault = try authenticate(credentials)
        guard after >= 0, limit >= 1 else {
            throw MedVaultError(.validation, field: after < 0 ? "after" : "limit", reason: "out of range")
        }
        let limit = min(limit, Self.maximumPullLimit)
        // Sequences are dense from 1: envelope n sits at index n - 1.
        let start = Int(min(after, Int64(vault.envelopes.count)))
        var envelopes: [SyncPulledEnvelope] = []
        var bytes = 0
        var signatures: [SyncPushSignature] = []
        var signatureIndex: [Int: Int] = [:]
        // As the server: the page stops at `limit` envelopes or once the next would
        // take its ciphertexts past the byte limit (at least one envelope).
        for stored in vault.envelopes[start...] {
            let size = stored.envelope.ciphertext.count
            if envelopes.count == limit || (!envelopes.isEmpty && bytes + size > maximumPullBytes) { break }
            bytes += size
            var index: Int?
            if let stored = stored.signature, let signature = vault.signatures?[stored] {
                index = signatureIndex[stored] ?? signatures.count
                if signatureIndex[stored] == nil {
                    signatureIndex[stored] = signatures.count
                    signatures.append(signature)
                }
            }
            envelopes.append(SyncPulledEnvelope(sequence: stored.sequence, deviceID: stored.deviceID,
                                                envelope: stored.envelope, signature: index))
        }
        return SyncPullResponse(envelopes: envelopes, lastSequence: envelopes.last?.sequence ?? after,
                                hasMore: start + envelopes.count < vault.envelopes.count,
                                signatures: signatures.isEmpty ? nil : signatures)
    }

    public func keyring(as credentials: SyncCredentials) async throws -> SyncKeyringBlob {
        try enter(nil)
        let vault = try authenticate(credentials)
        guard let epoch = vault.epoch, epoch > 0 else { return vault.keyring }
        return try MedVaultError.fromWire {
            try SyncKeyringBlob(generation: vault.keyring.generation, keyring: vault.keyring.keyring, epoch: epoch)
        }
    }

    public func putKeyring(_ update: SyncKeyringUpdate, as credentials: SyncCredentials) async throws -> SyncKeyringBlob {
        try enter(update)
        var vault = try authenticate(credentials)
        guard vault.keyring.generation == update.expectedGeneration else {
            throw MedVaultError(.conflict, reason: "the keyring's generation moved; read it again")
        }
        vault.keyring = update.keyring
        vaults[credentials.vaultID] = vault
        try save()
        return update.keyring
    }

    public func revoke(device: UUID, as credentials: SyncCredentials) async throws {
        try enter(nil)
        var vault = try authenticate(credentials)
        guard device != credentials.deviceID else {
            throw MedVaultError(.validation, field: "device", reason: "a device is revoked by another device")
        }
        guard (vault.epoch ?? 0) == 0 else {
            throw MedVaultError(.unauthorized, reason: "in a vault with sync epochs a revocation starts a new epoch")
        }
        guard let entry = vault.devices[device] else {
            throw MedVaultError(.notFound, reason: "the vault has no such device")
        }
        var revoked = entry
        revoked.revoked = true
        vault.devices[device] = revoked
        vaults[credentials.vaultID] = vault
        try save()
    }

    public func devices(as credentials: SyncCredentials) async throws -> SyncDeviceList {
        try enter(nil)
        let vault = try authenticate(credentials)
        let ordered = vault.devices.sorted { ($0.value.order ?? 0, $0.key.uuidString) < ($1.value.order ?? 0, $1.key.uuidString) }
        return SyncDeviceList(devices: ordered.map { id, device in
            SyncDeviceInfo(deviceID: id, registeredAt: device.registeredAt ?? 0, lastSeenAt: device.lastSeenAt,
                           revoked: device.revoked, sealedName: device.sealedName, certificate: device.certificate)
        }, epoch: vault.epoch ?? 0)
    }

    public func setName(_ update: SyncDeviceNameUpdate, as credentials: SyncCredentials) async throws {
        try enter(update)
        var vault = try authenticate(credentials)
        vault.devices[credentials.deviceID]?.sealedName = update.sealedName
        vaults[credentials.vaultID] = vault
        try save()
    }

    static func seconds() -> Int64 { Int64(Date().timeIntervalSince1970.rounded(.down)) }

    // MARK: - Checks

    static let forbidden = MedVaultError(.unauthorized, reason: "the proof of the vault key was refused")

    /// Counts a call against the injected faults and keeps its body when asked.
    func enter(_ body: (any Encodable)?) throws {
        if failuresLeft > 0 {
            failuresLeft -= 1
            throw MedVaultError(failureCode, reason: "the sync server could not be reached")
        }
        if recordsBytes, let body {
            bytesSeen.append(try SyncWireJSON.encoder().encode(body))
        }
    }

    func authenticate(_ credentials: SyncCredentials) throws -> VaultState {
        guard let vault = vaults[credentials.vaultID] else {
            throw MedVaultError(.notFound, reason: "no such vault")
        }
        guard let device = vault.devices[credentials.deviceID], !device.revoked,
              Self.constantTimeEqual(device.tokenHash, Self.hash(credentials.deviceToken)) else {
            // A token of another vault: as the server, `notFound` only for a vault id
            // the token does not belong to; a wrong, unknown or revoked token here.
            if vaults.values.contains(where: { $0.devices.values.contains { $0.tokenHash == Self.hash(credentials.deviceToken) } }),
               vault.devices[credentials.deviceID] == nil {
                throw MedVaultError(.notFound, reason: "no such vault")
            }
            throw MedVaultError(.unauthorized, reason: "the device token is unknown or revoked")
        }
        // Last seen, as the server keeps it (to the call; not saved to the file on its own).
        vaults[credentials.vaultID]?.devices[credentials.deviceID]?.lastSeenAt = Self.seconds()
        return vaults[credentials.vaultID] ?? vault
    }

    private func consumeChallenge(_ challenge: Data, vaultID: UUID, deviceID: UUID) throws {
        let bound = challenges.removeValue(forKey: challenge)
        try save()
        guard bound == Binding(vaultID: vaultID, deviceID: deviceID) else {
            throw Self.forbidden
        }
    }

    /// Checks a proof: bound to this server's ``origin`` when it names one (a proof for
    /// another origin is refused), or the unbound message of earlier builds.
    private func verify(_ purpose: SyncDeviceProof.Purpose, key: Data, challenge: Data, vaultID: UUID,
                        deviceID: UUID, signature: Data, origin: String?) throws {
        if let origin, origin != Self.origin { throw Self.forbidden }
        let message = SyncDeviceProof.message(purpose, challenge: challenge, vaultID: vaultID, deviceID: deviceID,
                                              boundTo: origin)
        guard SyncDeviceProof.isValidSignature(signature, of: message, by: key) else {
            throw Self.forbidden
        }
    }

    private static func newToken() -> String {
        let bytes = Data((0..<32).map { _ in UInt8.random(in: 0...255) })
        return bytes.base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    private static func hash(_ token: String) -> Data { Data(SHA256Digest.of(Data(token.utf8)).bytes) }

    private static func constantTimeEqual(_ lhs: Data, _ rhs: Data) -> Bool {
        guard lhs.count == rhs.count else { return false }
        return zip(lhs, rhs).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
