import Foundation
import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultSync

/// `CrashProbe sync-clone`: opens a freshly joined vault, prints "opened", syncs once
/// (pulling everything in pages of 100, applied 1,000 a transaction) and prints "synced", so the
/// clone crash test can kill it while it applies.
func syncClone(folder: String, serverFile: String) async throws {
    let vault = try await Vault.open(at: URL(fileURLWithPath: folder), password: try Password("probe"),
                                     options: Vault.Options(kdf: .fastForTestsOnly, passwordPolicy: PasswordPolicy(minimumLength: 1, minimumEstimatedBits: 0)))
    let server = try InMemorySyncTransport(persistingTo: URL(fileURLWithPath: serverFile))
    let engine = SyncEngine(vault: vault, transport: server, batchSize: 100, envelopesPerApply: 1_000)
    FileHandle.standardOutput.write(Data("opened\n".utf8))
    _ = try await engine.sync()
    FileHandle.standardOutput.write(Data("synced\n".utf8))
    await vault.lock()
}
