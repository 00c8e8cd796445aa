import Foundation
import MedVault
import MedVaultCore
import MedVaultTestSupport
import Testing

/// Waits for another process's lock never hold Swift's cooperative threads: the writes
/// wait on the writer's own thread while the rest of the process goes on
/// (docs/storage.md, "What a short job may block"). The measuring side runs in a child
/// process (CrashProbe stall-writes), so the parallel test suite cannot make its ticks
/// late. The probe writes through as many vault handles as Swift's cooperative pool has
/// threads (one per core), so that a wait on the callers' threads would hold all of them.
@Suite("Cooperative threads: a wait for another process's lock does not stall the process")
struct CooperativeThreadTests {
    @Test("While another process holds the write lock for 2 s, 8 writes wait, a 10-ms ticker never pauses 100 ms, and every write lands once the lock is released")
    func writesWaitingForALockDoNotStallTheProcess() async throws {
        try await withTemporaryDirectory { dir in
            let password = try Password("probe")
            let created = try await Vault.create(at: dir.url, password: password, options: VaultFixtures.options)
            await created.vault.lock()

            let writer = try ProbeChild(["stall-writes", dir.url.path], outputURL: dir.file("stall.txt"))
            try #require(try await writer.waitForLines(1), "the writing probe did not open the vault")
            // The holder opens the vault after the writer (its unlock entry needs the write
            // lock too), then keeps a unit of work open: it holds the write lock until killed.
            let holder = try ProbeChild(["unit-hold", dir.url.path], outputURL: dir.file("hold.txt"))
            try #require(try await holder.waitForLines(1), "the holding probe did not take the write lock")

            try writer.closeInput()  // the 8 writes start now, and find the lock taken
            try await Task.sleep(for: .seconds(2))
            #expect(writer.lines.count == 1, "the writes finished while the lock was held: \(writer.lines)")
            holder.sigkill()
            try await holder.waitForExit()
            try await writer.waitForExit(timeoutSeconds: 120)
            try #require(writer.process.terminationStatus == 0, "the writing probe failed: \(writer.lines)")

            let report = Dictionary(uniqueKeysWithValues: writer.lines.dropFirst().compactMap { line -> (String, Int)? in
                let parts = line.split(separator: " ")
                guard parts.count == 2, let value = Int(parts[1]) else { return nil }
                return (String(parts[0]), value)
            })
            let gap = try #require(report["max-gap-ms"], "\(writer.lines)")
            #expect(gap <= 100, "a 10-ms ticker went \(gap) ms without a tick while the writes waited")
            #expect(report["failed"] == 0, "\(writer.lines)")
            #expect(report["busy"] == 0, "the 10-s busy timeout is longer than the 2-s hold: \(writer.lines)")
            let writes = try #require(report["writes"], "\(writer.lines)")
            #expect(writes >= 8)
            #expect(report["updated"] == writes)

            let vault = try await Vault.open(at: dir.url, password: password, options: VaultFixtures.options)
            let stored = try await vault.patients.list(filter: .all, limit: 100).patients
            #expect(stored.count == writes, "the held unit must leave nothing: \(stored.count) patients")
            #expect(stored.allSatisfy { $0.phoneNumber?.hasPrefix("+34 600") == true }, "an acknowledged update was lost")
            await vault.lock()
        }
    }
}
