import Foundation
import MedVault
import MedVaultCore
import MedVaultSync

/// `CrashProbe seal-steps <folder>`: seals the vault's pending changes three records a
/// step, one write transaction each, printing "step" after each commit and "finished"
/// when nothing waits, so the seal crash test can kill it between and inside steps.
/// After each "step" it waits for a line on its standard input (or its end) before the
/// next step: it never runs ahead of the test's kill.
func sealSteps(folder: String) async throws {
    let vault = try await Vault.open(at: URL(fileURLWithPath: folder), password: try Password("probe"),
                                     options: Vault.Options(kdf: .fastForTestsOnly, passwordPolicy: PasswordPolicy(minimumLength: 1, minimumEstimatedBits: 0)))
    guard let device = try await SyncEngine(vault: vault, transport: InMemorySyncTransport()).credentials()?.deviceID else {
        throw MedVaultError(.invalidArgument, reason: "the vault is not registered for sync")
    }
    let database = vault.database
    try await vault.withSyncKeyChain { chain in
        var finished = false
        while !finished {
            finished = try await database.write(duration: .long) { db in
                try PendingChangeSealer.sealStep(keys: chain.current, localDevice: device, limit: 3, db).finished
            }
            FileHandle.standardOutput.write(Data((finished ? "finished\n" : "step\n").utf8))
            // Paused between steps until the test says go on (a line, or the end of the
            // input): the test kills it there or inside the next step, never after it ran on.
            if !finished { _ = readLine() }
        }
    }
}
