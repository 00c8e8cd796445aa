import Foundation
import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultSync

/// `CrashProbe sync-attachment`: opens a vault, prints "opened", syncs once through an
/// in-memory server with small limits (pushes of at most 512 KiB, pull pages of at most
/// 256 KiB, one page a transaction: a 3 MiB attachment then takes a dozen pushes and a
/// dozen apply transactions) and prints "synced", so the attachment crash test can kill
/// it while it pushes or applies an attachment's chunks.
func syncAttachment(folder: String, serverFile: String) async throws {
    let vault = try await Vault.open(at: URL(fileURLWithPath: folder), password: try Password("probe"),
                                     options: Vault.Options(kdf: .fastForTestsOnly))
    let server = try InMemorySyncTransport(persistingTo: URL(fileURLWithPath: serverFile),
                                           maximumPushBytes: syncAttachmentPushBytes,
                                           maximumPullBytes: syncAttachmentPullBytes)
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
