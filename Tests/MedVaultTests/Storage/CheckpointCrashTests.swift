import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultTestSupport
import Testing

/// A writer SIGKILLed somewhere in the WAL's checkpoint cycle (a background round, the
/// writer's catch-up inside a commit, the restart) loses nothing it acknowledged.
@Suite("Checkpoints: SIGKILL across WAL cycles")
struct CheckpointCrashTests {
    /// A patient create writes about 11 WAL frames, so 150 creates pass the 1,000-frame
    /// threshold once and 400 or 700 go through several cycles; the kill lands wherever
    /// the child is then.
    @Test("A writer killed after many durable creates keeps every acknowledged patient, a whole file and an intact trail",
          arguments: [150, 400, 700])
    func killedAcrossCycles(acknowledged: Int) async throws {
        try await withTemporaryDirectory { directory in
            let vault = try await ChangeFixtures.makeVault(directory)
            let folder = vault.layout.folder
            await vault.lock()
            let child = try ProbeChild(["add-patients", folder.path], outputURL: directory.file("probe.out"))
            #expect(try await child.waitForLines(acknowledged, timeoutSeconds: 120))
            child.sigkill()
            try await child.waitForExit()
            let printed = Set(child.lines.compactMap(UUID.init(uuidString:)))
            #expect(printed.count >= acknowledged)

            let reopened = try await Vault.open(at: folder, password: try Password("probe"), options: VaultFixtures.options)
            let stored = Set(try await ChangeFixtures.ids(in: "patient", of: reopened))
            #expect(printed.isSubset(of: stored))
            let integrity = try await reopened.database.read { db in
                try db.fetchOne("PRAGMA integrity_check") { $0.text(at: 0) }
            }
            #expect(integrity == "ok")
            #expect(try await reopened.audit.verify().isIntact)
            // The reopened vault keeps writing through the next cycles.
            for number in 0..<100 {
                _ = try await reopened.patients.create(
                    Patient(firstName: "After", lastName: "Crash \(number)", dateOfBirth: try CalendarDate(iso8601: "1990-02-03")))
            }
            #expect(try await reopened.patients.count(filter: .all) == stored.count + 100)
            await reopened.lock()
        }
    }
}
