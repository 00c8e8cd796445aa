import Foundation
import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultSync
import MedVaultSyncWire

/// `CrashProbe sync-attachment`: opens a vault, prints "opened", syncs once through an
/// in-memory server with small limits (pushes of at most 512 KiB, pull pages of at most
/// 256 KiB, one page a transaction: a 3 MiB attachment then takes a dozen pushes and a
/// dozen apply transactions) and prints "synced", so the attachment crash test can kill
/// it while it pushes or applies an attachment's chunks.
///
/// With `pause` `push:N` (or `pull:N`), the probe prints "paused" once N pushes have been
/// answered (or when pull N starts) and then waits until killed: the test kills it at
/// that event instead of guessing the moment from file sizes, which a busy machine
/// turned into a kill after the whole push.
func syncAttachment(folder: String, serverFile: String, pause: String? = nil) async throws {
    let vault = try await Vault.open(at: URL(fileURLWithPath: folder), password: try Password("probe"),
                                     options: Vault.Options(kdf: .fastForTestsOnly, passwordPolicy: PasswordPolicy(minimumLength: 1, minimumEstimatedBits: 0)))
    let inner = try InMemorySyncTransport(persistingTo: URL(fileURLWithPath: serverFile),
                                          maximumPushBytes: syncAttachmentPushBytes,
                                          maximumPullBytes: syncAttachmentPullBytes)
    let parts = pause?.split(separator: ":")
    let server = PausingTransport(inner: inner, pausePushesAfter: parts?.first == "push" ? parts.flatMap { Int($0[1]) } : nil,
                                  pausePullAt: parts?.first == "pull" ? parts.flatMap { Int($0[1]) } : nil)
    let engine = SyncEngine(vault: vault, transport: server, batchSize: 100, envelopesPerApply: 100,
                            maximumPushBytes: syncAttachmentPushBytes)
    FileHandle.standardOutput.write(Data("opened\n".utf8))
    _ = try await engine.sync()
    FileHandle.standardOutput.write(Data("synced\n".utf8))
    await vault.lock()
}

/// The probe's push limit (the test uses the same for the engines it runs itself).
let syncAttachmentPushBytes = 512 << 10
/// The probe's pull page limit.
let syncAttachmentPullBytes = 256 << 10

/// Forwards to the in-memory server; prints "paused" and waits until killed once
/// `pausePushesAfter` pushes were answered, or when pull number `pausePullAt` starts.
final class PausingTransport: SyncTransport, @unchecked Sendable {
    // Safety of @unchecked Sendable: the counters are read and written only under `lock`.
    private let inner: InMemorySyncTransport
    private let pausePushesAfter: Int?
    private let pausePullAt: Int?
    private let lock = NSLock()
    private var pushes = 0
    private var pulls = 0

    init(inner: InMemorySyncTransport, pausePushesAfter: Int?, pausePullAt: Int?) {
        self.inner = inner
        self.pausePushesAfter = pausePushesAfter
        self.pausePullAt = pausePullAt
    }

    private func pauseForever() async -> Never {
        FileHandle.standardOutput.write(Data("paused\n".utf8))
        while true { try? await Task.sleep(for: .seconds(3_600)) }
    }

    func challenge(_ request: SyncChallengeRequest) async throws -> SyncChallenge { try await inner.challenge(request) }
    func register(_ request: SyncRegisterRequest) async throws -> SyncDeviceToken { try await inner.register(request) }
    func join(vaultID: UUID, _ request: SyncJoinRequest) async throws -> SyncDeviceToken {
        try await inner.join(vaultID: vaultID, request)
    }
    func push(_ request: SyncPushRequest, as credentials: SyncCredentials) async throws -> SyncPushResponse {
        let response = try await inner.push(request, as: credentials)
        let count = lock.withLock { pushes += 1; return pushes }
        if count == pausePushesAfter { await pauseForever() }
        return response
    }
    func pull(after: Int64, limit: Int, as credentials: SyncCredentials) async throws -> SyncPullResponse {
        let count = lock.withLock { pulls += 1; return pulls }
        if count == pausePullAt { await pauseForever() }
        return try await inner.pull(after: after, limit: limit, as: credentials)
    }
    func keyring(as credentials: SyncCredentials) async throws -> SyncKeyringBlob { try await inner.keyring(as: credentials) }
    func putKeyring(_ update: SyncKeyringUpdate, as credentials: SyncCredentials) async throws -> SyncKeyringBlob {
        try await inner.putKeyring(update, as: credentials)
    }
    func revoke(device: UUID, as credentials: SyncCredentials) async throws {
        try await inner.revoke(device: device, as: credentials)
    }
}
