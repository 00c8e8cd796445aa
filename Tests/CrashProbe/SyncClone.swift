import Foundation
import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultSync

/// `CrashProbe sync-clone`: opens a freshly joined vault, prints "opened", syncs once
/// (pulling everything in pages of 100, applied 1,000 a transaction) and prints "synced", so the
/// clone crash test can kill it while it applies. While it syncs, it prints "applied <cursor>"
/// each time an apply transaction commits (read on a reader connection): the event the test
/// kills it after, whatever the machine's speed.
func syncClone(folder: String, serverFile: String) async throws {
    let vault = try await Vault.open(at: URL(fileURLWithPath: folder), password: try Password("probe"),
                                     options: Vault.Options(kdf: .fastForTestsOnly, passwordPolicy: PasswordPolicy(minimumLength: 1, minimumEstimatedBits: 0)))
    let server = try InMemorySyncTransport(persistingTo: URL(fileURLWithPath: serverFile))
    let engine = SyncEngine(vault: vault, transport: server, batchSize: 100, envelopesPerApply: 1_000)
    FileHandle.standardOutput.write(Data("opened\n".utf8))
    let watcher = Task {
        var reported: Int64 = 0
        while !Task.isCancelled {
            let cursor = try await vault.database.read { db in
                try db.fetchOne("SELECT pulled_through FROM sync_state WHERE singleton = 1") { $0.int64(at: 0) } ?? 0
            }
            if cursor > reported {
                reported = cursor
                FileHandle.standardOutput.write(Data("applied \(cursor)\n".utf8))
            }
            // A poll interval in the probe, not a deadline: the test waits for the line
            // this prints. A starved poll reports a later cursor; the test still kills
            // after a committed transaction, and counts a round that finished as not mid-clone.
            try await Task.sleep(for: .milliseconds(1))
        }
    }
    defer { watcher.cancel() }
    _ = try await engine.sync()
    FileHandle.standardOutput.write(Data("synced\n".utf8))
    await vault.lock()
}
