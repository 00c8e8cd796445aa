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

/// A new device killed with SIGKILL while it clones (CrashProbe `sync-clone`: pages of
/// 100, applied 1,000 envelopes a transaction): what it kept is
/// whole transactions — the cursor and exactly the records before it — and the next
/// sync completes the clone. The first round clones uninterrupted; the others kill the
/// probe as soon as it reports its first or second apply transaction committed (chosen at
/// random), so every kill lands mid-clone on a fast machine or a slow one.
/// `MEDVAULT_SYNC_CLONE_KILL_ROUNDS` sets the rounds (default 4).
@Suite("Sync engine: killed while cloning")
struct SyncCloneCrashTests {
    static let rounds = ProcessInfo.processInfo.environment["MEDVAULT_SYNC_CLONE_KILL_ROUNDS"].flatMap(Int.init) ?? 4

    @Test("SIGKILL during a clone of several apply transactions: the cursor sits at a transaction boundary with exactly its records, and the next sync finishes an identical clone without conflicts")
    func killedWhileCloning() async throws {
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
        let first = try await Vault.create(at: dir.file("device-a"), password: password, options: options).vault
        defer { Task { await first.lock() } }
        let setup = try InMemorySyncTransport(persistingTo: serverFile)
        let engineA = SyncEngine(vault: first, transport: setup, batchSize: 500)
        try await engineA.register()
        // Three apply transactions in the probe: 1,000 + 1,000 + 800.
        let patients = try await first.patients.create((0..<1_400).map { ClinicalFixtures.patient("P\($0)", "Clon") })
        _ = try await first.sessions.create(patients.map {
            ClinicalSession(patientID: $0.id, date: ClinicalFixtures.now, type: .video, durationMinutes: 50, notes: "n",
                            chiefComplaint: "c", treatmentPlan: "t")
        })
        _ = try await engineA.sync()
        let total = Int64(await setup.envelopeCount(vaultID: first.vaultID))
        #expect(total == 2_800)
        let blob = try await setup.keyring(as: try #require(try await engineA.credentials()))
        let exportA = try await SyncFixtures.export(first)
        let boundaries: Set<Int64> = [0, 1_000, 2_000, total]

        var killedMidClone = 0
        var cursorsAfterKill: [Int64] = []
        for round in 0..<rounds {
            let folder = dir.file("device-b\(round)")
            let joining = try InMemorySyncTransport(persistingTo: serverFile)
            let clone = try await Vault.join(at: folder, keyring: blob.keyring,
                                             syncSecret: try #require(try await engineA.syncSecret()), password: password, options: options)
            try await SyncEngine(vault: clone, transport: joining).join()
            await clone.lock()

            let child = try ProbeChild(["sync-clone", folder.path, serverFile.path], outputURL: dir.file("clone-\(round)"))
            #expect(try await child.waitForLines(1), "round \(round): the probe never opened the vault")
            if round > 0 {
                // Killed right after its first or second apply transaction committed (an
                // event, not a time): the next one is under way, the last not reached.
                let applied = Int.random(in: 1...2, using: &random)
                #expect(try await child.waitForLines(1 + applied, timeoutSeconds: 120), "round \(round): nothing applied")
                kill(child.process.processIdentifier, SIGKILL)
                child.process.waitUntilExit()
            } else {
                // Round 0 is not killed: a whole clone.
                try await child.waitForExit(timeoutSeconds: 120)
                #expect(child.lines.contains("synced"), "the probe did not finish its clone")
            }
            if !child.lines.contains("synced") { killedMidClone += 1 }

            let reopened = try await Vault.open(at: folder, password: password, options: options)
            // What survived is whole transactions: a boundary cursor, exactly its records.
            let (cursor, rows) = try await reopened.database.read { db in
                (try SyncStateStore.state(db).pulledThrough,
                 try db.fetchOne("SELECT (SELECT count(*) FROM patient) + (SELECT count(*) FROM clinical_session)") {
                     $0.int64(at: 0)
                 } ?? -1)
            }
            cursorsAfterKill.append(cursor)
            #expect(boundaries.contains(cursor), "round \(round): cursor \(cursor) is not a transaction boundary")
            #expect(rows == cursor, "round \(round): \(rows) records for cursor \(cursor)")

            let server = try InMemorySyncTransport(persistingTo: serverFile)
            let engine = SyncEngine(vault: reopened, transport: server)
            let resumed = try await engine.sync()
            #expect(resumed.errors.isEmpty && resumed.conflicts == 0, "round \(round)")
            #expect(resumed.downloaded == Int(total - cursor), "round \(round)")
            #expect(try await SyncFixtures.export(reopened) == exportA, "round \(round): the clone differs")
            #expect(try await engine.conflicts().isEmpty)
            await reopened.lock()
        }
        print("sync-clone killed mid-clone in \(killedMidClone) of \(rounds - 1) rounds (cursors left: \(cursorsAfterKill)), "
              + "seed \(random.seed)")
        // At least one kill landed while the clone was in flight.
        #expect(killedMidClone > 0)
    }
}
