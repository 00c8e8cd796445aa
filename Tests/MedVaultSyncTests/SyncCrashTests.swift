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

/// A device killed with SIGKILL while it syncs (CrashProbe `sync-loop`, against an
/// in-memory server saved to a file so the next process finds it): the next sync
/// completes, nothing is lost, nothing is listed as a conflict. `MEDVAULT_SYNC_KILL_ROUNDS`
/// sets the rounds (default 30).
@Suite("Sync engine: killed while syncing")
struct SyncCrashTests {
    static let rounds = ProcessInfo.processInfo.environment["MEDVAULT_SYNC_KILL_ROUNDS"].flatMap(Int.init) ?? 30

    @Test("SIGKILL at random points of seal, push, pull and apply: the next sync completes, every committed record reaches the other device, no duplicate, no conflict")
    func killedWhileSyncing() async throws {
        var random = SeededGenerator.fromEnvironment()
        try await random.reportingSeed {
            try await withTemporaryDirectory { dir in
                try await Self.run(dir: dir, random: &random)
            }
        }
    }

    private static func run(dir: TemporaryDirectory, random: inout SeededGenerator) async throws {
        let serverFile = dir.file("server.json")
        let password = try Password("probe")
        let options = Vault.Options(kdf: .fastForTestsOnly, passwordPolicy: PasswordPolicy(minimumLength: 1, minimumEstimatedBits: 0))
        let folderA = dir.file("device-a")
        let first = try await Vault.create(at: folderA, password: password, options: options).vault
        let setup = try InMemorySyncTransport(persistingTo: serverFile)
        let engineA = SyncEngine(vault: first, transport: setup)
        try await engineA.register()
        let blob = try await setup.keyring(as: try #require(try await engineA.credentials()))
        let secret = try #require(try await engineA.syncSecret())
        await first.lock()
        let deviceB = try await Vault.join(at: dir.file("device-b"), keyring: blob.keyring, syncSecret: secret,
                                           password: password, options: options)
        defer { Task { await deviceB.lock() } }
        try await SyncEngine(vault: deviceB, transport: setup).join()

        var committedOnA: Set<UUID> = []
        var committedOnB: Set<UUID> = []
        var killedMidSync = 0
        for round in 0..<rounds {
            // Something for A to pull and apply while it may be killed.
            let serverForB = try InMemorySyncTransport(persistingTo: serverFile)
            committedOnB.insert(try await deviceB.patients.create(ClinicalFixtures.patient("B\(round)", "Kill")).id)
            _ = try await SyncEngine(vault: deviceB, transport: serverForB).sync()

            let child = try ProbeChild(["sync-loop", folderA.path, serverFile.path], outputURL: dir.file("out-\(round)"))
            #expect(try await child.waitForLines(1), "round \(round): the probe never committed")
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...40, using: &random)))
            kill(child.process.processIdentifier, SIGKILL)
            child.process.waitUntilExit()
            let lines = child.lines
            for line in lines where line.hasPrefix("created ") {
                committedOnA.insert(try #require(UUID(uuidString: String(line.dropFirst(8)))))
            }
            if lines.last?.hasPrefix("created ") == true { killedMidSync += 1 }

            // The next sync of both devices completes and they hold the same records.
            let server = try InMemorySyncTransport(persistingTo: serverFile)
            let vaultA = try await Vault.open(at: folderA, password: password, options: options)
            let resumedA = try await SyncEngine(vault: vaultA, transport: server).sync()
            let engineB = SyncEngine(vault: deviceB, transport: server)
            let resumedB = try await engineB.sync()
            #expect(resumedA.errors.isEmpty && resumedB.errors.isEmpty, "round \(round)")
            let outbox = try await vaultA.database.read { db in try SyncStateStore.outbox(limit: 10, db).count }
            #expect(outbox == 0, "round \(round): the outbox was not emptied")
            let exportA = try await SyncFixtures.export(vaultA)
            let exportB = try await SyncFixtures.export(deviceB)
            #expect(exportA == exportB, "round \(round): the devices differ")
            for vault in [vaultA, deviceB] {
                let ids = try await vault.database.read { db in
                    try db.fetchAll("SELECT id FROM patient") { row in try UUID(row: row, column: 0) }
                }
                #expect(ids.count == Set(ids).count)
                #expect(committedOnA.union(committedOnB).isSubset(of: Set(ids)), "round \(round): a committed patient is missing")
            }
            #expect(try await SyncEngine(vault: vaultA, transport: server).conflicts().isEmpty)
            #expect(try await engineB.conflicts().isEmpty)
            await vaultA.lock()
        }
        print("sync-loop killed mid-sync in \(killedMidSync) of \(rounds) rounds, seed \(random.seed); "
              + "\(committedOnA.count) patients committed by the killed device all reached the other")
        // At least one kill landed while a sync was in flight.
        #expect(killedMidSync > 0)
    }
}
