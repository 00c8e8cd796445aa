import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultTestSupport
import Testing

/// Issue #38, item 1: a limited key for extensions that reads the coming plan and
/// appends dose logs and snoozes while the vault is locked, merged exactly once.
@Suite("Dose journal: the extensions' limited key", .timeLimit(.minutes(2)))
struct DoseJournalTests {
    typealias F = DoseJournalFixture

    @Test("Logged through the journal while the vault is closed: merged at unlock, stock and adherence as if logged directly")
    func mergeEqualsDirectLogging() async throws {
        try await withTemporaryDirectory { dir in
            let (f, vault) = try await F.make(in: dir.file("journal"))
            let key = try await vault.issueDoseJournalKey(planDays: 3)
            await vault.lock()
            let doses = f.doses(5)

            let journal = try await DoseJournal.open(in: f.folder, key: key, clock: f.clock.recordClock)
            let plan = try await journal.plannedDoses(from: F.start, until: F.start.addingTimeInterval(3 * 86_400))
            #expect(plan.count == 6 && plan.allSatisfy { $0.medicationID == f.medication.id && $0.medicationName == "Sertralina" })
            try await journal.logTaken(medicationID: f.medication.id, doseAt: doses[0], takenAt: doses[0].addingTimeInterval(300))
            try await journal.logTaken(medicationID: f.medication.id, doseAt: doses[1], takenAt: doses[1].addingTimeInterval(7_200))
            try await journal.logSkipped(medicationID: f.medication.id, doseAt: doses[2], reason: .sideEffects)
            f.clock.now = doses[3]
            let until = try await journal.snooze(medicationID: f.medication.id, doseAt: doses[3])
            #expect(until == doses[3].addingTimeInterval(600))
            let shown = try await journal.plannedDoses(from: F.start, until: F.start.addingTimeInterval(3 * 86_400))
            #expect(shown.map(\.journalStatus) == [.taken, .taken, .skipped, nil, nil, nil])
            #expect(shown[3].snoozedUntil == until)
            await journal.close()

            // The same doses logged directly in a twin vault.
            let (g, twin) = try await F.make(in: dir.file("direct"))
            _ = try await twin.medications.doseLogs.create([
                DoseLog(medicationID: g.medication.id, scheduledAt: doses[0], status: .taken, takenAt: doses[0].addingTimeInterval(300)),
                DoseLog(medicationID: g.medication.id, scheduledAt: doses[1], status: .taken, takenAt: doses[1].addingTimeInterval(7_200)),
                DoseLog(medicationID: g.medication.id, scheduledAt: doses[2], status: .skipped, skipReason: .sideEffects),
            ])
            f.clock.now = doses[4].addingTimeInterval(86_400)
            g.clock.now = f.clock.now

            let reopened = try await f.open()  // merges at unlock
            let merged = try await F.outcome(reopened, f.medication)
            let direct = try await F.outcome(twin, g.medication)
            #expect(merged.0 == 28 && merged.0 == direct.0)
            #expect(merged.1 == direct.1 && merged.1.taken == 1 && merged.1.late == 1 && merged.1.skipped == 1)
            let snoozes = try await reopened.medications.schedules.snoozes(patientID: f.patient.id,
                                                                          in: Date.distantPast..<Date.distantFuture)
            #expect(snoozes == [DoseSnooze(medicationID: f.medication.id, scheduledAt: doses[3], snoozedUntil: until, count: 1)])
            // Audited as the vault's own dose logs; merging again changes nothing.
            #expect(try await reopened.mergeDoseJournal() == DoseJournalMergeReport())
            #expect(try await F.outcome(reopened, f.medication).0 == 28)
            await reopened.lock()
            await twin.lock()
        }
    }

    @Test("A merge seen again (killed after its commit, before the journal was cleaned) applies nothing twice")
    func mergeIsExactlyOnce() async throws {
        try await withTemporaryDirectory { dir in
            let (f, vault) = try await F.make(in: dir.file("vault"))
            let key = try await vault.issueDoseJournalKey()
            let journalURL = try vault.layout.doseJournal(for: key)
            let journal = try await DoseJournal.open(in: f.folder, key: key, clock: f.clock.recordClock)
            for dose in f.doses(4) { try await journal.logTaken(medicationID: f.medication.id, doseAt: dose) }
            await journal.close()
            // The journal as it stood before the merge, restored after it: what a merge
            // killed between its vault commit and the journal's cleaning leaves.
            let copy = dir.file("copy")
            try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: false)
            for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: journalURL.path + suffix) {
                try FileManager.default.copyItem(at: URL(fileURLWithPath: journalURL.path + suffix),
                                                 to: copy.appendingPathComponent("journal" + suffix))
            }
            var report = try await vault.mergeDoseJournal()
            #expect(report.logged == 4)
            for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: journalURL.path + suffix) }
            for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: copy.appendingPathComponent("journal" + suffix).path) {
                try? FileManager.default.removeItem(atPath: journalURL.path + suffix)
                try FileManager.default.copyItem(at: copy.appendingPathComponent("journal" + suffix),
                                                 to: URL(fileURLWithPath: journalURL.path + suffix))
            }
            report = try await vault.mergeDoseJournal()
            #expect(report.alreadyMerged == 4 && report.logged == 0)
            #expect(try await vault.medications.get(f.medication.id).inventory?.current == 26)
            #expect(try await vault.medications.doseLogs.list(medicationID: f.medication.id,
                                                             in: Date.distantPast..<Date.distantFuture).count == 4)
            await vault.lock()
        }
    }

    @Test("Entries the vault refuses are counted, not applied, and not tried again; bad input changes nothing")
    func refusalsAndBadInput() async throws {
        try await withTemporaryDirectory { dir in
            let (f, vault) = try await F.make(in: dir.file("vault"))
            let key = try await vault.issueDoseJournalKey()
            let doses = f.doses(3)
            let journal = try await DoseJournal.open(in: f.folder, key: key, clock: f.clock.recordClock)
            try await journal.logTaken(medicationID: f.medication.id, doseAt: doses[0])
            // Logged in the vault meanwhile: the journal's entry is refused at the merge.
            _ = try await vault.medications.doseLogs.create(DoseLog(medicationID: f.medication.id, scheduledAt: doses[0],
                                                                    status: .skipped, skipReason: .forgot))
            await expectMedVaultError(.duplicate) { try await journal.logTaken(medicationID: f.medication.id, doseAt: doses[0]) }
            await expectMedVaultError(.validation, field: "scheduledAt") {
                try await journal.logTaken(medicationID: f.medication.id, doseAt: doses[0].addingTimeInterval(60))
            }
            await expectMedVaultError(.validation, field: "scheduledAt") {
                try await journal.logTaken(medicationID: UUID(), doseAt: doses[1])
            }
            await expectMedVaultError(.invalidArgument, field: "takenAt") {
                try await journal.logTaken(medicationID: f.medication.id, doseAt: doses[1], takenAt: Date(timeIntervalSince1970: 1e300))
            }
            await expectMedVaultError(.invalidArgument) {
                _ = try await journal.plannedDoses(from: Date(timeIntervalSince1970: -1e300), until: F.start)
            }
            await expectMedVaultError(.invalidArgument) {
                _ = try await journal.plannedDoses(from: F.start, until: F.start.addingTimeInterval(-1))
            }
            await expectMedVaultError(.validation, field: "scheduledAt") {
                try await journal.logSkipped(medicationID: f.medication.id, doseAt: Date(timeIntervalSince1970: 1e300), reason: .forgot)
            }
            await expectMedVaultError(.duplicate) { try await journal.snooze(medicationID: f.medication.id, doseAt: doses[0]) }
            await expectMedVaultError(.validation, field: "scheduledAt") {
                try await journal.snooze(medicationID: f.medication.id, doseAt: doses[2].addingTimeInterval(1))
            }
            for _ in 0..<3 { try await journal.snooze(medicationID: f.medication.id, doseAt: doses[2]) }
            await expectMedVaultError(.limitExceeded, field: "reminders.maximumSnoozes") {
                try await journal.snooze(medicationID: f.medication.id, doseAt: doses[2])
            }
            await journal.close()
            let report = try await vault.mergeDoseJournal()
            #expect(report.refused == [.duplicate: 1] && report.logged == 0 && report.snoozed == 3)
            let logs = try await vault.medications.doseLogs.list(medicationID: f.medication.id, in: Date.distantPast..<Date.distantFuture)
            #expect(logs.map(\.status) == [.skipped], "the vault's own log stays")
            #expect(try await vault.mergeDoseJournal() == DoseJournalMergeReport())

            await expectMedVaultError(.invalidArgument, field: "planDays") { _ = try await vault.issueDoseJournalKey(planDays: 0) }
            await expectMedVaultError(.invalidArgument, field: "planDays") { _ = try await vault.issueDoseJournalKey(planDays: 32) }
            await expectMedVaultError(.invalidArgument, field: "key") { _ = try DoseJournalKey(SecureBytes.random(count: 16)) }
            await vault.lock()
        }
    }

    @Test("A revoked key opens nothing; a re-issued key opens the new journal, the old one does not")
    func revocationAndReissue() async throws {
        try await withTemporaryDirectory { dir in
            let (f, vault) = try await F.make(in: dir.file("vault"))
            let old = try await vault.issueDoseJournalKey()
            let journalURL = try vault.layout.doseJournal(for: old)
            let journal = try await DoseJournal.open(in: f.folder, key: old, clock: f.clock.recordClock)
            try await journal.logTaken(medicationID: f.medication.id, doseAt: f.doses(1)[0])
            await journal.close()
            try await vault.revokeDoseJournalKey()
            #expect(try await vault.medications.get(f.medication.id).inventory?.current == 29, "merged before revoking")
            await expectMedVaultError(.notFound, field: "journal") { _ = try await DoseJournal.open(in: f.folder, key: old) }
            #expect(!FileManager.default.fileExists(atPath: journalURL.path), "the revoked key could not create one")

            let new = try await vault.issueDoseJournalKey()
            await expectMedVaultError(.notFound, field: "journal") { _ = try await DoseJournal.open(in: f.folder, key: old) }
            let reopened = try await DoseJournal.open(in: f.folder, key: new)
            #expect(try await reopened.planWindow() != nil)
            await reopened.close()
            await vault.lock()
        }
    }

    @Test("The journal holds the plan and entries only: no patient, session or diagnosis text, decrypted or on disk")
    func journalHoldsNothingElse() async throws {
        try await withTemporaryDirectory { dir in
            let (f, vault) = try await F.make(in: dir.file("vault"))
            let key = try await vault.issueDoseJournalKey()
            let journal = try await DoseJournal.open(in: f.folder, key: key, clock: f.clock.recordClock)
            try await journal.logTaken(medicationID: f.medication.id, doseAt: f.doses(1)[0])
            await journal.close()
            let contents = try await F.journalContents(f.folder, key: key)
            #expect(contents.range(of: Data("Sertralina".utf8)) != nil, "the scan reads the decrypted plan")
            for marker in F.markers + ["Ruiz"] {
                #expect(contents.range(of: Data(marker.utf8)) == nil, "\(marker) in the journal")
            }
            let file = try Data(contentsOf: try vault.layout.doseJournal(for: key))
            #expect(file.range(of: Data("Sertralina".utf8)) == nil, "the journal file is encrypted")
            await vault.lock()
        }
    }

    @Test("A hostile key holder's rows (damaged, implausible, forged plan) neither crash the unlock nor block revocation; only expected doses merge")
    func hostileJournalRows() async throws {
        try await withTemporaryDirectory { dir in
            let (f, vault) = try await F.make(in: dir.file("vault"))
            let key = try await vault.issueDoseJournalKey()
            await vault.lock()
            let dose = f.doses(1)[0]
            // Written straight into the journal with the key, past `DoseJournal`'s checks.
            let raw = try await VaultDatabase.open(at: try VaultLayout(folder: f.folder).doseJournal(for: key), key: key.secret,
                                                   mode: .openExisting, migrator: DoseJournalSchema.migrator)
            try await raw.write { db in
                // The key holder owns the file: it can drop the schema's checks.
                try db.executeScript("""
                    DROP INDEX journal_entry_one_log; DROP TABLE journal_entry;
                    CREATE TABLE journal_entry (id BLOB, kind TEXT, medication_id BLOB, scheduled_at INTEGER, status TEXT,
                        taken_at INTEGER, skip_reason TEXT, snoozed_until INTEGER, snooze_count INTEGER, recorded_at INTEGER);
                    """)
                let insert = """
                    INSERT INTO journal_entry (id, kind, medication_id, scheduled_at, status, taken_at, skip_reason, \
                    snoozed_until, snooze_count, recorded_at) VALUES (?, ?, ?, ?, ?, ?, NULL, ?, ?, 0)
                    """
                let med = f.medication.id.vaultValue
                try db.execute(insert, [UUID().vaultValue, .text("log"), .blob(Data([1, 2, 3])), dose.vaultValue,
                                        .text("taken"), dose.vaultValue, .null, .null])
                try db.execute(insert, [UUID().vaultValue, .text("snooze"), med, .integer(.max), .null, .null,
                                        .integer(.max), .integer(1)])
                try db.execute(insert, [UUID().vaultValue, .text("drop table"), med, dose.vaultValue, .text("taken"),
                                        dose.vaultValue, .null, .null])
                // A forged plan row and a log of it: 09:00 is no dose of this medication.
                let forged = dose.addingTimeInterval(3_600)
                try db.execute("""
                    INSERT INTO journal_plan (medication_id, scheduled_at, name, dosage_amount, dosage_unit, snooze_minutes, \
                    maximum_snoozes) VALUES (?, ?, 'x', 1000, 'tablets', 10, 3)
                    """, [med, forged.vaultValue])
                try db.execute(insert, [UUID().vaultValue, .text("log"), med, forged.vaultValue, .text("taken"),
                                        forged.vaultValue, .null, .null])
                // And one real dose.
                try db.execute(insert, [UUID().vaultValue, .text("log"), med, dose.vaultValue, .text("taken"),
                                        dose.vaultValue, .null, .null])
            }
            await raw.close()
            let reopened = try await f.open()  // the unlock merges: no trap
            let logs = try await reopened.medications.doseLogs.list(medicationID: f.medication.id,
                                                                   in: Date.distantPast..<Date.distantFuture)
            #expect(logs.map(\.scheduledAt) == [dose], "only the expected dose")
            let outcomes = try await reopened.database.read { db in
                try db.fetchAll("SELECT outcome FROM dose_journal_merged ORDER BY outcome") { $0.text(at: 0) }
            }
            #expect(outcomes == ["logged", "refused:validation"])
            #expect(try await reopened.mergeDoseJournal() == DoseJournalMergeReport(), "damaged rows left the journal")
            // A journal that cannot be read at all: the merge fails, the revocation does not.
            let broken = try await VaultDatabase.open(at: try VaultLayout(folder: f.folder).doseJournal(for: key),
                                                      key: key.secret, mode: .openExisting, migrator: DoseJournalSchema.migrator)
            try await broken.write { db in try db.executeScript("DROP TABLE journal_entry;") }
            await broken.close()
            await expectMedVaultError(.storage) { _ = try await reopened.mergeDoseJournal() }
            try await reopened.revokeDoseJournalKey()
            await expectMedVaultError(.notFound, field: "journal") { _ = try await DoseJournal.open(in: f.folder, key: key) }
            #expect(reopened.layout.doseJournalFiles().isEmpty)
            await reopened.lock()
        }
    }

    @Test("Two issues at once: the key stored is the one whose journal is in place, and the vault keeps merging")
    func concurrentIssues() async throws {
        try await withTemporaryDirectory { dir in
            let (f, vault) = try await F.make(in: dir.file("vault"))
            async let first = vault.issueDoseJournalKey()
            async let second = vault.issueDoseJournalKey()
            let keys = try await [first, second]
            var opened = 0
            for key in keys {
                if let journal = try? await DoseJournal.open(in: f.folder, key: key, clock: f.clock.recordClock) {
                    opened += 1
                    try await journal.logTaken(medicationID: f.medication.id, doseAt: f.doses(1)[0])
                    await journal.close()
                }
            }
            #expect(opened == 1)
            #expect(try await vault.mergeDoseJournal().logged == 1)
            await vault.lock()
        }
    }
}
