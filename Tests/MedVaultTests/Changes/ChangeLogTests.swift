import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultTestSupport
import Testing

/// The change log (docs/changes.md): one entry per record touched per operation,
/// appended by the repositories in the transaction of the change, without field values.
@Suite("Change log: entries appended by the repositories")
struct ChangeLogTests {
    typealias F = ChangeFixtures
    typealias S = ChangeFixtures.Summary

    @Test("Every repository operation logs exactly one entry per record it touched, with its operation and version")
    func repositoryOperations() async throws {
        try await withTemporaryDirectory { directory in
            let vault = try await F.makeVault(directory)
            var cursor = try await vault.latestChangeCursor()
            func expectNew(_ expected: [S], sourceLocation: SourceLocation = #_sourceLocation) async throws {
                let (entries, next) = try await F.entries(vault, after: cursor)
                #expect(F.summaries(entries) == expected, sourceLocation: sourceLocation)
                cursor = next
            }

            let me = try await vault.professional.save(Professional(fullName: "Ana Ruiz", licenseNumber: "M-1",
                                                                    specialty: "Psicología"))
            try await expectNew([S(table: .professional, id: me.id, operation: .insert, version: 1)])
            _ = try await vault.professional.save(me)
            try await expectNew([S(table: .professional, id: me.id, operation: .update, version: 2)])

            var patient = try await vault.patients.create(try F.patient())
            try await expectNew([S(table: .patient, id: patient.id, operation: .insert, version: 1)])
            patient.email = "ana@example.com"
            patient = try await vault.patients.update(patient)
            try await expectNew([S(table: .patient, id: patient.id, operation: .update, version: 2)])
            _ = try await vault.patients.deactivate(patient.id)
            try await expectNew([S(table: .patient, id: patient.id, operation: .deactivate, version: 3)])
            patient = try await vault.patients.reactivate(patient.id)
            try await expectNew([S(table: .patient, id: patient.id, operation: .reactivate, version: 4)])

            var session = try await vault.sessions.create(ClinicalSession(patientID: patient.id, date: Date()))
            try await expectNew([S(table: .clinicalSession, id: session.id, operation: .insert, version: 1)])
            session.notes = "notes"
            session = try await vault.sessions.update(session)
            try await expectNew([S(table: .clinicalSession, id: session.id, operation: .update, version: 2)])

            var diagnosis = try await vault.diagnoses.create(Diagnosis(
                sessionID: session.id, snapshot: ClinicalFixtures.snapshot, diagnosedAt: Date()))
            try await expectNew([S(table: .diagnosis, id: diagnosis.id, operation: .insert, version: 1)])
            diagnosis.clinicalNotes = "note"
            diagnosis = try await vault.diagnoses.update(diagnosis)
            try await expectNew([S(table: .diagnosis, id: diagnosis.id, operation: .update, version: 2)])

            // Written in several transactions (row, chunks, completion): logged once, when visible.
            let attachment = try await vault.attachments.create(
                NewAttachment(sessionID: session.id, fileName: "a.pdf", mimeType: "application/pdf"),
                data: Data(repeating: 7, count: 300_000))
            try await expectNew([S(table: .attachment, id: attachment.id, operation: .insert, version: 1)])
            try await vault.attachments.delete(attachment.id)
            try await expectNew([S(table: .attachment, id: attachment.id, operation: .delete, version: 1)])

            _ = try await vault.sessions.cancel(session.id)
            try await expectNew([S(table: .clinicalSession, id: session.id, operation: .cancel, version: 3)])
            let other = try await vault.sessions.create(ClinicalSession(patientID: patient.id, date: Date()))
            let otherAttachment = try await vault.attachments.create(
                NewAttachment(sessionID: other.id, fileName: "b.txt", mimeType: "text/plain"), data: Data([1, 2, 3]))
            cursor = try await vault.latestChangeCursor()
            // The delete cascades to the session's attachment: both records are logged.
            try await vault.sessions.delete(other.id)
            try await expectNew([S(table: .attachment, id: otherAttachment.id, operation: .delete, version: 1),
                                 S(table: .clinicalSession, id: other.id, operation: .delete, version: 1)])

            var medication = try await vault.medications.create(Medication(
                patientID: patient.id, name: "Ibuprofeno", dosage: Dosage(amount: 1, unit: .tablets),
                frequency: .specificTimes([TimeOfDay(hour: 8)]), startDate: try CalendarDate(iso8601: "2026-01-01"),
                inventory: MedicationInventory(current: 10)))
            // Its starting stock is a stock adjustment (MedicationStockLedger), logged with it.
            let adjustments = try await F.adjustmentIDs(of: medication.id, in: vault)
            #expect(adjustments.count == 1)
            try await expectNew([S(table: .medication, id: medication.id, operation: .insert, version: 1)]
                                + adjustments.map { S(table: .medicationStockAdjustment, id: $0, operation: .insert, version: 1) })
            var schedule = try await vault.medications.schedules.create(MedicationSchedule(
                medicationID: medication.id, times: [TimeOfDay(hour: 8)], timeZoneIdentifier: "Europe/Madrid"))
            try await expectNew([S(table: .medicationSchedule, id: schedule.id, operation: .insert, version: 1)])
            schedule.times = [TimeOfDay(hour: 9)]
            schedule = try await vault.medications.schedules.update(schedule)
            try await expectNew([S(table: .medicationSchedule, id: schedule.id, operation: .update, version: 2)])
            // A taken dose: one record. The stock is derived from the logs (MedicationStockLedger),
            // so the medication's cached stock moves but the medication record does not change.
            let receipt = try await vault.medications.doseLogs.create(DoseLog(
                medicationID: medication.id, scheduledAt: Date(timeIntervalSince1970: 1_767_254_400),
                status: .taken, takenAt: Date(timeIntervalSince1970: 1_767_254_400)))
            try await expectNew([S(table: .doseLog, id: receipt.log.id, operation: .insert, version: 1)])
            medication = try await vault.medications.get(medication.id)
            medication.instructions = "with food"
            medication = try await vault.medications.update(medication)
            try await expectNew([S(table: .medication, id: medication.id, operation: .update, version: 2)])
            _ = try await vault.medications.deactivate(medication.id)
            try await expectNew([S(table: .medication, id: medication.id, operation: .deactivate, version: 3)])

            // The whole log: gapless sequence, rising clock, this vault's device.
            let all = try await F.entries(vault)
            let device = try await vault.changeLogDeviceID()
            #expect(all.map(\.sequence) == Array(1...Int64(all.count)))
            #expect(zip(all, all.dropFirst()).allSatisfy { $0.timestamp < $1.timestamp })
            #expect(all.allSatisfy { $0.deviceID == device })
            let now = Date().timeIntervalSince1970 * 1000
            #expect(all.allSatisfy { abs(Double($0.timestamp.milliseconds) - now) < 120_000 })
            await vault.lock()
        }
    }

    @Test("Batch creates log one entry per record, in order, through multi-row inserts of any size")
    func batchCreates() async throws {
        try await withTemporaryDirectory { directory in
            let vault = try await F.makeVault(directory)
            // 203 = 128 + 64 + 8 + 2 + 1: multi-row statements of several sizes.
            let patients = try await vault.patients.create((0..<203).map { try F.patient("P", "N\($0)") })
            let sessions = try await vault.sessions.create(patients.prefix(3).map {
                ClinicalSession(patientID: $0.id, date: Date())
            })
            let diagnoses = try await vault.diagnoses.create(sessions.map {
                Diagnosis(sessionID: $0.id, snapshot: ClinicalFixtures.snapshot, diagnosedAt: Date())
            })
            let stocked = try await vault.medications.create(F.medication(patients[0].id, stock: 10))
            let unstocked = try await vault.medications.create(F.medication(patients[0].id, stock: nil))
            let cursor = try await vault.latestChangeCursor()
            // Two taken doses of one medication, one of another without stock: three logs. The
            // stock is derived from the logs (MedicationStockLedger): no medication entry.
            let receipts = try await vault.medications.doseLogs.create([
                DoseLog(medicationID: stocked.id, scheduledAt: F.instant(0), status: .taken, takenAt: F.instant(0)),
                DoseLog(medicationID: unstocked.id, scheduledAt: F.instant(0), status: .taken, takenAt: F.instant(0)),
                DoseLog(medicationID: stocked.id, scheduledAt: F.instant(1), status: .taken, takenAt: F.instant(1)),
            ])
            let doses = try await F.entries(vault, after: cursor).0
            #expect(F.summaries(doses) == receipts.map { S(table: .doseLog, id: $0.log.id, operation: .insert, version: 1) })
            #expect(try await vault.medications.get(stocked.id).inventory?.current == 8)

            let all = try await F.entries(vault)
            #expect(F.summaries(Array(all.prefix(203)))
                == patients.map { S(table: .patient, id: $0.id, operation: .insert, version: 1) })
            #expect(F.summaries(Array(all[203..<209]))
                == sessions.map { S(table: .clinicalSession, id: $0.id, operation: .insert, version: 1) }
                + diagnoses.map { S(table: .diagnosis, id: $0.id, operation: .insert, version: 1) })
            #expect(all.map(\.sequence) == Array(1...Int64(all.count)))
            #expect(zip(all, all.dropFirst()).allSatisfy { $0.timestamp < $1.timestamp })
            await vault.lock()
        }
    }

    @Test("A unit of work logs each of its writes; a failed step's entries roll back with it; a failed unit leaves none")
    func unitOfWork() async throws {
        try await withTemporaryDirectory { directory in
            let vault = try await F.makeVault(directory)
            let (patient, session) = try await vault.write { tx in
                let patient = try tx.patients.create(try F.patient())
                // A step that fails after its first record was inserted: caught, and the unit goes on.
                #expect(throws: MedVaultError.self) {
                    try tx.sessions.create([ClinicalSession(patientID: patient.id, date: Date()),
                                            ClinicalSession(patientID: UUID(), date: Date())])
                }
                let session = try tx.sessions.create(ClinicalSession(patientID: patient.id, date: Date()))
                _ = try tx.patients.deactivate(patient.id)
                return (patient, session)
            }
            #expect(F.summaries(try await F.entries(vault)) == [
                S(table: .patient, id: patient.id, operation: .insert, version: 1),
                S(table: .clinicalSession, id: session.id, operation: .insert, version: 1),
                S(table: .patient, id: patient.id, operation: .deactivate, version: 2),
            ])
            struct Boom: Error {}
            await #expect(throws: Boom.self) {
                try await vault.write { tx in
                    _ = try tx.patients.reactivate(patient.id)
                    _ = try tx.patients.create(try F.patient("Bea"))
                    throw Boom()
                }
            }
            #expect(try await F.entries(vault).count == 3)
            await vault.lock()
        }
    }

    @Test("An import logs one insert per imported record with its own version; a refused import logs nothing")
    func importIsLogged() async throws {
        try await withTemporaryDirectory { directory in
            let source = try await F.makeVault(directory, name: "source")
            var patient = try await source.patients.create(try F.patient())
            patient.email = "ana@example.com"
            patient = try await source.patients.update(patient)
            let session = try await source.sessions.create(ClinicalSession(patientID: patient.id, date: Date()))
            let diagnosis = try await source.diagnoses.create(Diagnosis(
                sessionID: session.id, snapshot: ClinicalFixtures.snapshot, diagnosedAt: Date()))
            let medication = try await source.medications.create(F.medication(patient.id, stock: 5))
            let schedule = try await source.medications.schedules.create(MedicationSchedule(
                medicationID: medication.id, times: [TimeOfDay(hour: 8, minute: 0)], timeZoneIdentifier: "Europe/Madrid"))
            let receipt = try await source.medications.doseLogs.create(DoseLog(
                medicationID: medication.id, scheduledAt: F.instant(0), status: .taken, takenAt: F.instant(0)))
            _ = try await source.patients.deactivate(patient.id)
            let documents = try await source.exportAllRecords()

            let target = try await F.makeVault(directory, name: "target")
            try await target.importRecords(documents)
            #expect(F.summaries(try await F.entries(target)) == [
                S(table: .patient, id: patient.id, operation: .insert, version: 3),
                S(table: .clinicalSession, id: session.id, operation: .insert, version: 1),
                S(table: .diagnosis, id: diagnosis.id, operation: .insert, version: 1),
                S(table: .medication, id: medication.id, operation: .insert, version: 1),
                S(table: .medicationSchedule, id: schedule.id, operation: .insert, version: 1),
                S(table: .doseLog, id: receipt.log.id, operation: .insert, version: 1),
            ] + (try await F.adjustmentIDs(of: medication.id, in: target)).map {
                // The export carries the stock (4): one adjustment makes the imported ledger show it.
                S(table: .medicationStockAdjustment, id: $0, operation: .insert, version: 1)
            })
            #expect(try await target.medications.get(medication.id).inventory?.current == 4)
            #expect(try await F.adjustmentIDs(of: medication.id, in: target).count == 1)
            // Importing the same records again is refused: nothing written, nothing logged.
            await expectMedVaultError(.duplicate) { try await target.importRecords(documents) }
            #expect(try await F.entries(target).count == 7)
            await source.lock()
            await target.lock()
        }
    }

    @Test("A write that throws or is cancelled after its entries were appended leaves none; raw SQL is not logged")
    func failuresAfterAppendLeaveNothing() async throws {
        try await withTemporaryDirectory { directory in
            let vault = try await F.makeVault(directory)
            let patient = try await vault.patients.create(try F.patient())
            let before = try await F.entries(vault)
            struct Boom: Error {}
            // The repository's own operation appends its entry, then the transaction fails.
            await #expect(throws: Boom.self) {
                try await vault.database.write { db in
                    _ = try SQLCipherPatientRepository.setActive(patient.id, active: false, clock: .system, in: db)
                    #expect(db.changeLog.touchedTables == [.patient])
                    throw Boom()
                }
            }
            // Cancelled after the append: the transaction rolls back.
            let task = Task {
                try await vault.database.write { db in
                    _ = try SQLCipherPatientRepository.setActive(patient.id, active: false, clock: .system, in: db)
                    withUnsafeCurrentTask { $0?.cancel() }
                }
            }
            await expectMedVaultError(.cancelled) { try await task.value }
            // Raw SQL on a record table bypasses the repositories: nothing is logged (docs/changes.md).
            try await VaultFixtures.insertRawPatients(vault, count: 2)
            #expect(try await F.entries(vault) == before)
            // The next committed change continues the sequence without a gap.
            _ = try await vault.patients.deactivate(patient.id)
            #expect(try await F.entries(vault).map(\.sequence) == [1, 2])
            await vault.lock()
        }
    }

    @Test("10,000 mixed writes from 8 concurrent tasks, a fifth failing after their appends: one entry per committed change, no gaps")
    func concurrentWritesHaveNoGaps() async throws {
        try await withTemporaryDirectory { directory in
            let vault = try await F.makeVault(directory)
            let tasks = 8, transactions = 50, writesPerTransaction = 25  // 8 × 50 × 25 = 10,000
            struct Boom: Error {}
            try await withThrowingTaskGroup(of: Int.self) { group in
                for task in 0..<tasks {
                    group.addTask {
                        var written = 0
                        for transaction in 0..<transactions {
                            // Every fifth transaction of a task fails after logging: its body's savepoint
                            // (or its own transaction) rolls back, the other bodies of its group commit.
                            let fails = transaction % 5 == 4
                            do {
                                written += try await vault.database.write { db in
                                    try Self.mixedWrites(writesPerTransaction, label: "T\(task)-\(transaction)", db)
                                    if fails { throw Boom() }
                                    return writesPerTransaction
                                }
                            } catch is Boom {}
                        }
                        return written
                    }
                }
                var total = 0
                for try await written in group { total += written }
                #expect(total == 8_000)
            }
            let entries = try await vault.changes(after: nil, limit: 10_000).entries
            #expect(entries.count == 8_000)
            #expect(entries.map(\.sequence) == Array(1...8_000))
            #expect(zip(entries, entries.dropFirst()).allSatisfy { $0.timestamp < $1.timestamp })
            let operations = Dictionary(grouping: entries, by: \.operation).mapValues(\.count)
            #expect(operations == [.insert: 3_200, .update: 1_600, .deactivate: 1_600, .reactivate: 1_600])
            // Each logged patient exists, and each stored patient is logged as inserted once.
            let stored = try await vault.database.read { db in
                try db.fetchAll("SELECT id FROM patient") { try UUID(row: $0, column: 0) }
            }
            #expect(stored.count == 3_200)
            #expect(Set(stored) == Set(entries.filter { $0.operation == .insert }.map(\.recordID)))
            await vault.lock()
        }
    }

    /// `count` repository writes in a cycle of five: insert, insert, update, deactivate, reactivate.
    static func mixedWrites(_ count: Int, label: String, _ db: DatabaseConnection) throws {
        var patients: [Patient] = []
        for step in 0..<count {
            switch step % 5 {
            case 0, 1:
                let patient = try SQLCipherPatientRepository.stamped(try F.patient(label, "\(step)"), now: Date())
                try SQLCipherPatientRepository.insert(patient, in: db)
                try db.changeLog.append(patient, .insert)
                patients.append(patient)
            case 2:
                var changed = patients[0]
                changed.email = "p\(step)@example.com"
                patients[0] = try SQLCipherPatientRepository.update(changed, validation: .success(changed),
                                                                     clock: .system, in: db)
            case 3:
                _ = try SQLCipherPatientRepository.setActive(patients[1].id, active: false, clock: .system, in: db)
            default:
                _ = try SQLCipherPatientRepository.setActive(patients[1].id, active: true, clock: .system, in: db)
                patients.removeAll()
            }
        }
    }

    @Test("The clock never goes back: after a reopen, entries follow one stamped in the future")
    func clockIsMonotonicAcrossReopen() async throws {
        try await withTemporaryDirectory { directory in
            let vault = try await F.makeVault(directory)
            let first = try await vault.patients.create(try F.patient())
            // As if the previous writes happened while the wall clock was a day ahead.
            let ahead = (Int64(Date().timeIntervalSince1970 * 1000) + 86_400_000) << 16
            try await vault.database.write { db in
                try db.execute("UPDATE medvault_change SET hlc = ?", [.integer(ahead)])
            }
            let reopened = try await F.reopen(vault)
            _ = try await reopened.patients.deactivate(first.id)
            let entries = try await F.entries(reopened)
            #expect(entries.map(\.timestamp.rawValue) == [ahead, ahead + 1])
            await reopened.lock()
        }
    }

    @Test("The hybrid clock: physical milliseconds when the wall clock advances, a counter when it stalls or goes back")
    func hybridClock() {
        var clock = HybridClock()
        #expect(clock.next(wallMilliseconds: 1_000) == 1_000 << 16)
        #expect(clock.next(wallMilliseconds: 1_000) == (1_000 << 16) + 1)
        #expect(clock.next(wallMilliseconds: 500) == (1_000 << 16) + 2)  // the wall clock went back
        #expect(clock.next(wallMilliseconds: 2_000) == 2_000 << 16)
        clock.observe(5_000 << 16)  // another process logged later
        #expect(clock.next(wallMilliseconds: 2_001) == (5_000 << 16) + 1)
        clock.observe(1)  // an older value changes nothing
        #expect(clock.next(wallMilliseconds: 0) == (5_000 << 16) + 2)
        let stamp = HybridTimestamp(rawValue: (5_000 << 16) + 2)
        #expect(stamp.milliseconds == 5_000 && stamp.counter == 2)
    }

    @Test("The device id is drawn once per vault: stable across reopening, different in another vault, renewed on request")
    func deviceID() async throws {
        try await withTemporaryDirectory { directory in
            let vault = try await F.makeVault(directory)
            let id = try await vault.changeLogDeviceID()
            let reopened = try await F.reopen(vault)
            #expect(try await reopened.changeLogDeviceID() == id)
            let other = try await F.makeVault(directory, name: "other")
            #expect(try await other.changeLogDeviceID() != id)
            let patient = try await reopened.patients.create(try F.patient())
            let renewed = try await reopened.renewChangeLogDeviceID()
            #expect(renewed != id)
            #expect(try await reopened.changeLogDeviceID() == renewed)
            _ = try await reopened.patients.deactivate(patient.id)
            // Earlier entries keep the device that wrote them; later ones carry the new id.
            #expect(try await F.entries(reopened).map(\.deviceID) == [id, renewed])
            await reopened.lock()
            await other.lock()
        }
    }

    @Test("No field value reaches the log, and no plaintext reaches any file of the vault")
    func noPlaintext() async throws {
        try await withTemporaryDirectory { directory in
            let vault = try await F.makeVault(directory)
            let marker = ClinicalFixtures.marker
            let patient = try await vault.patients.create(Patient(
                firstName: marker, lastName: marker, dateOfBirth: try CalendarDate(iso8601: "1980-05-17"),
                nationalId: marker, address: marker))
            _ = try await vault.sessions.create(ClinicalSession(patientID: patient.id, date: Date(), notes: marker))
            let logged = try await vault.database.read { db in
                try db.fetchAll("SELECT table_name, record_id, operation, version, hlc, device FROM medvault_change") { row in
                    (0..<6).map { index -> Data in
                        row.isNull(at: Int32(index)) ? Data() : row.blob(at: Int32(index))
                    }
                }
            }
            #expect(logged.count == 2)
            let markerBytes = Data(marker.utf8)
            #expect(logged.joined().allSatisfy { $0.range(of: markerBytes) == nil })
            // Scanned with the WAL still present, then after locking (checkpointed).
            func scan() throws -> [String] {
                try FileManager.default.contentsOfDirectory(atPath: vault.layout.folder.path).filter { name in
                    let data = try Data(contentsOf: vault.layout.folder.appendingPathComponent(name))
                    return data.range(of: markerBytes) != nil
                }
            }
            #expect(try scan() == [])
            await vault.lock()
            #expect(try scan() == [])
        }
    }
}
