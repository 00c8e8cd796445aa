import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
@testable import MedVaultSync
import MedVaultSyncWire
import MedVaultTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A device killed with SIGKILL while it pushes a large attachment's chunks, and another
/// while it applies them (CrashProbe `sync-attachment`: pushes of at most 512 KiB, pull
/// pages of at most 256 KiB applied one a transaction). The next sync completes the
/// attachment with the right bytes, once.
@Suite("Sync engine: killed while an attachment travels")
struct SyncAttachmentCrashTests {
    typealias F = SyncAttachmentFixtures

    @Test("SIGKILL mid-push and mid-apply of a 3 MiB attachment: the next syncs resume where the kills left off, the server holds each envelope once, and the other device reads the exact bytes")
    func killedWhileAttachmentTravels() async throws {
        try await withTemporaryDirectory { dir in
            let serverFile = dir.file("server.json")
            let password = try Password("probe")
            let options = Vault.Options(kdf: .fastForTestsOnly, passwordPolicy: PasswordPolicy(minimumLength: 1, minimumEstimatedBits: 0))
            let folderA = dir.file("device-a"), folderB = dir.file("device-b")
            let first = try await Vault.create(at: folderA, password: password, options: options).vault
            var setup = try Self.server(serverFile)
            let engineA = SyncEngine(vault: first, transport: setup)
            try await engineA.register()
            let blob = try await setup.keyring(as: try #require(try await engineA.credentials()))
            let second = try await Vault.join(at: folderB, keyring: blob.keyring,
                                              syncSecret: try #require(try await engineA.syncSecret()), password: password, options: options)
            try await SyncEngine(vault: second, transport: setup).join()
            await second.lock()

            let session = try await F.session(on: first)
            let content = F.content(3 * 1024 * 1024 + 123, seed: 11)
            let attachment = try await F.attach(content, to: session, on: first)
            await first.lock()
            // 49 chunks, then patient, session and attachment.
            let total = 49 + 3

            // 1. Killed while pushing: once two pushes were answered (the probe pauses there).
            let pusher = try ProbeChild(["sync-attachment", folderA.path, serverFile.path, "push:2"],
                                        outputURL: dir.file("push.out"))
            #expect(try await pusher.waitForLines(2, timeoutSeconds: 120), "the probe never pushed twice: \(pusher.lines)")
            pusher.sigkill()
            pusher.process.waitUntilExit()
            setup = try Self.server(serverFile)
            let storedAtKill = await setup.envelopeCount(vaultID: first.vaultID)
            #expect(!pusher.lines.contains("synced"), "the kill came after the whole push")
            #expect(storedAtKill > 0 && storedAtKill < total, "\(storedAtKill) of \(total) envelopes stored at the kill")

            let reopenedA = try await Vault.open(at: folderA, password: password, options: options)
            let resumedA = try await Self.engine(reopenedA, setup).sync()
            #expect(resumedA.errors.isEmpty)
            #expect(await setup.envelopeCount(vaultID: first.vaultID) == total, "each envelope stored once")
            await reopenedA.lock()

            // 2. Killed while applying.
            let pullerOut = dir.file("pull.out")
            // The probe pauses when its fifth pull starts: earlier pages were applied, or are
            // being applied, in transactions of their own.
            let puller = try ProbeChild(["sync-attachment", folderB.path, serverFile.path, "pull:5"], outputURL: pullerOut)
            #expect(try await puller.waitForLines(2, timeoutSeconds: 120), "the probe never reached its fifth pull: \(puller.lines)")
            puller.sigkill()
            puller.process.waitUntilExit()
            #expect(!puller.lines.contains("synced"), "the kill came after the whole pull")

            let reopenedB = try await Vault.open(at: folderB, password: password, options: options)
            let cursor = try await reopenedB.database.read { db in try SyncStateStore.state(db).pulledThrough }
            let staged = try await F.staged(reopenedB)
            // Sequences: patient 1, session 2, chunks 3…51, the attachment 52.
            #expect(cursor > 2 && cursor < Int64(total), "cursor \(cursor) after the kill")
            #expect(staged.chunks == cursor - 2, "exactly the chunks of the applied pages are staged")
            #expect(await SyncFixtures.errorCode { _ = try await reopenedB.attachments.get(attachment.id) } == .notFound)

            let resumedB = try await Self.engine(reopenedB, try Self.server(serverFile)).sync()
            #expect(resumedB.errors.isEmpty && resumedB.conflicts == 0)
            #expect(resumedB.downloaded == total - Int(cursor))
            #expect(try await F.read(attachment.id, on: reopenedB) == content)
            #expect(try await F.chunkRows(attachment.id, on: reopenedB) == 49)
            #expect(try await F.staged(reopenedB) == (0, 0))
            await reopenedB.lock()
        }
    }

    /// The probe's server, as the probe opens it.
    static func server(_ file: URL) throws -> InMemorySyncTransport {
        try InMemorySyncTransport(persistingTo: file, maximumPushBytes: 512 << 10, maximumPullBytes: 256 << 10)
    }

    static func engine(_ vault: Vault, _ server: InMemorySyncTransport) -> SyncEngine {
        SyncEngine(vault: vault, transport: server, batchSize: 100, envelopesPerApply: 100, maximumPushBytes: 512 << 10)
    }
}
