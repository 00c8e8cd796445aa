import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultTestSupport
import Testing

/// The dose journal across processes: an extension holding only the journal key, and a
/// merge killed with SIGKILL.
@Suite("Dose journal: other processes and SIGKILL", .timeLimit(.minutes(3)))
struct DoseJournalProcessTests {
    typealias F = DoseJournalFixture

    static func hex(_ key: DoseJournalKey) throws -> String {
        try key.secret.withUnsafeBytes { $0.map { String(format: "%02x", $0) }.joined() }
    }

    @Test("A child holding only the journal key logs doses with the vault closed, then open in another process; it can open nothing else; each log is merged once")
    func childLogsWithTheLimitedKeyOnly() async throws {
        try await withTemporaryDirectory { dir in
            let (f, vault) = try await F.make(in: dir.file("vault"))
            let key = try await vault.issueDoseJournalKey()
            await vault.lock()
            let doses = f.doses(3).map { String($0.millisecondsSince1970) }
            let first = try ProbeChild(["journal-log", f.folder.path, try Self.hex(key), f.medication.id.uuidString,
                                        doses[0] + "," + doses[1]], outputURL: dir.file("first.txt"))
            try await first.waitForExit()
            #expect(first.lines == ["logged \(doses[0])", "logged \(doses[1])", "vault refused wrongKey",
                                    "patient refused storage", "clinical_session refused storage",
                                    "diagnosis refused storage"])

            // The vault open in this process (its unlock merged the first two), the child
            // logs the third.
            let open = try await f.open()
            #expect(try await open.medications.get(f.medication.id).inventory?.current == 28)
            let second = try ProbeChild(["journal-log", f.folder.path, try Self.hex(key), f.medication.id.uuidString, doses[2]],
                                        outputURL: dir.file("second.txt"))
            try await second.waitForExit()
            #expect(second.lines.first == "logged \(doses[2])")
            #expect(try await open.mergeDoseJournal().logged == 1)
            let logs = try await open.medications.doseLogs.list(medicationID: f.medication.id,
                                                               in: Date.distantPast..<Date.distantFuture)
            #expect(logs.map(\.scheduledAt.millisecondsSince1970).map(String.init) == doses)
            #expect(try await open.medications.get(f.medication.id).inventory?.current == 27)
            await open.lock()
        }
    }

    @Test("Merges killed with SIGKILL as the vault opens: in the end every journal entry is one dose log")
    func mergeSurvivesSIGKILL() async throws {
        try await withTemporaryDirectory { dir in
            let (f, vault) = try await F.make(in: dir.file("vault"), stock: 100)
            let key = try await vault.issueDoseJournalKey(planDays: 31)
            await vault.lock()
            let doses = f.doses(60)
            for round in 0..<3 {
                let journal = try await DoseJournal.open(in: f.folder, key: key, clock: f.clock.recordClock)
                for dose in doses[(round * 20)..<(round * 20 + 20)] {
                    try await journal.logTaken(medicationID: f.medication.id, doseAt: dose)
                }
                await journal.close()
                // The child's clock is the fixture's: a merge that completes writes the next
                // plan from the same instant, so the next round's doses are still in it.
                let child = try ProbeChild(["journal-merge", f.folder.path, String(f.clock.recordClock.now().millisecondsSince1970)],
                                           outputURL: dir.file("merge-\(round).txt"))
                #expect(try await child.waitForLines(1))
                child.sigkill()
                try await child.waitForExit()
            }
            let reopened = try await f.open()
            let logs = try await reopened.medications.doseLogs.list(medicationID: f.medication.id,
                                                                   in: Date.distantPast..<Date.distantFuture)
            #expect(logs.map(\.scheduledAt) == doses)
            #expect(try await reopened.medications.get(f.medication.id).inventory?.current == 40)
            let journal = try await DoseJournal.open(in: f.folder, key: key)
            #expect(try await journal.plannedDoses(from: F.start, until: F.start.addingTimeInterval(40 * 86_400))
                .allSatisfy { $0.journalStatus == nil }, "the merged entries left the journal")
            await journal.close()
            await reopened.lock()
        }
    }
}
