import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultTestSupport
import Testing

/// The audit trail (docs/audit.md): one entry per change the change log records, and one
/// per event of the facade; queries; no field value.
@Suite("Audit trail: entries, events and queries")
struct AuditTrailTests {
    typealias F = AuditFixtures
    typealias S = AuditFixtures.Summary

    /// The ids a step of the table works on.
    final class Context: @unchecked Sendable {
        // Safety of @unchecked Sendable: used by one test task at a time, sequentially.
        var patient = UUID(), session = UUID(), diagnosis = UUID(), attachment = UUID()
        var medication = UUID(), schedule = UUID(), doseLog = UUID(), professional = UUID()
    }

    /// One row of the table: an operation and the entries it must append.
    struct Step: Sendable {
        let name: String
        let run: @Sendable (Vault, Context) async throws -> [S]
    }

    static let steps: [Step] = [
        Step(name: "professional save") { vault, c in
            c.professional = try await vault.professional.save(
                Professional(fullName: "Ana Ruiz", licenseNumber: "M-1", specialty: "Psicología")).id
            return [S(action: .create, table: .professional, id: c.professional)]
        },
        Step(name: "patient create") { vault, c in
            c.patient = try await vault.patients.create(try ChangeFixtures.patient()).id
            return [S(action: .create, table: .patient, id: c.patient)]
        },
        Step(name: "patient update") { vault, c in
            var patient = try await vault.patients.get(c.patient)
            patient.email = "ana@example.com"
            _ = try await vault.patients.update(patient)
            return [S(action: .update, table: .patient, id: c.patient)]
        },
        Step(name: "patient deactivate") { vault, c in
            _ = try await vault.patients.deactivate(c.patient)
            return [S(action: .deactivate, table: .patient, id: c.patient)]
        },
        Step(name: "patient reactivate") { vault, c in
            _ = try await vault.patients.reactivate(c.patient)
            return [S(action: .reactivate, table: .patient, id: c.patient)]
        },
        Step(name: "session create") { vault, c in
            c.session = try await vault.sessions.create(ClinicalSession(patientID: c.patient, date: Date())).id
            return [S(action: .create, table: .clinicalSession, id: c.session)]
        },
        Step(name: "diagnosis create") { vault, c in
            c.diagnosis = try await vault.diagnoses.create(Diagnosis(
                sessionID: c.session, snapshot: ClinicalFixtures.snapshot, diagnosedAt: Date())).id
            return [S(action: .create, table: .diagnosis, id: c.diagnosis)]
        },
        Step(name: "attachment create") { vault, c in
            c.attachment = try await vault.attachments.create(
                NewAttachment(sessionID: c.session, fileName: "a.pdf", mimeType: "application/pdf"),
                data: Data(repeating: 7, count: 1_000)).id
            return [S(action: .create, table: .attachment, id: c.attachment)]
        },
        Step(name: "attachment delete") { vault, c in
            try await vault.attachments.delete(c.attachment)
            return [S(action: .delete, table: .attachment, id: c.attachment)]
        },
        Step(name: "session cancel") { vault, c in
            _ = try await vault.sessions.cancel(c.session)
            return [S(action: .cancel, table: .clinicalSession, id: c.session)]
        },
        Step(name: "medication create") { vault, c in
            c.medication = try await vault.medications.create(try ChangeFixtures.medication(c.patient, stock: 10)).id
            // The stock it starts with is a stock adjustment (MedicationStockLedger), logged with it.
            let adjustments = try await ChangeFixtures.adjustmentIDs(of: c.medication, in: vault)
            #expect(adjustments.count == 1)
            return [S(action: .create, table: .medication, id: c.medication)]
                + adjustments.map { S(action: .create, table: .medicationStockAdjustment, id: $0) }
        },
        Step(name: "schedule create") { vault, c in
            c.schedule = try await vault.medications.schedules.create(MedicationSchedule(
                medicationID: c.medication, times: [TimeOfDay(hour: 8)], timeZoneIdentifier: "Europe/Madrid")).id
            return [S(action: .create, table: .medicationSchedule, id: c.schedule)]
        },
        Step(name: "taken dose") { vault, c in
            let receipt = try await vault.medications.doseLogs.create(DoseLog(
                medicationID: c.medication, scheduledAt: ChangeFixtures.instant(0), status: .taken,
                takenAt: ChangeFixtures.instant(0)))
            c.doseLog = receipt.log.id
            // The stock is derived from the logs: the medication record does not change.
            return [S(action: .create, table: .doseLog, id: c.doseLog)]
        },
        Step(name: "medication deactivate") { vault, c in
            _ = try await vault.medications.deactivate(c.medication)
            return [S(action: .deactivate, table: .medication, id: c.medication)]
        },
        Step(name: "batch patients") { vault, _ in
            let batch = try (0..<70).map { try ChangeFixtures.patient("Lote", "\($0)") }
            let created = try await vault.patients.create(batch)
            return created.map { S(action: .create, table: .patient, id: $0.id) }
        },
        Step(name: "unit of work") { vault, c in
            let id = try await vault.write { tx in
                try tx.patients.create(try ChangeFixtures.patient("Unidad", "Uno")).id
            }
            return [S(action: .create, table: .patient, id: id)]
        },
        Step(name: "export") { vault, c in
            _ = try await vault.exportRecord(of: c.patient)
            return [S(action: .export, table: .patient, id: c.patient)]
        },
        Step(name: "FHIR export") { vault, c in
            _ = try await vault.fhirExport(of: [c.patient])
            return [S(action: .export, table: .patient, id: c.patient), S(action: .fhirExport, table: .patient, id: c.patient)]
        },
        Step(name: "password change") { vault, _ in
            try await vault.changePassword(from: try Password("probe"), to: try Password("probe"))
            return [S(action: .passwordChange, table: nil, id: nil)]
        },
        Step(name: "recovery key regeneration") { vault, _ in
            _ = try await vault.regenerateRecoveryKey()
            return [S(action: .recoveryKeyRegeneration, table: nil, id: nil)]
        },
        Step(name: "database key rotation") { vault, _ in
            try await vault.rotateDatabaseKey()
            return [S(action: .databaseKeyRotation, table: nil, id: nil)]
        },
        Step(name: "sync keys") { vault, _ in
            _ = try await vault.withSyncKeys { _ in 1 }
            return [S(action: .sync, table: nil, id: nil)]
        },
    ]

    @Test("Each operation appends exactly its expected entries, in order, and every change-log entry has its audit entry")
    func eachOperationAppendsItsEntries() async throws {
        try await withTemporaryDirectory { directory in
            let vault = try await ChangeFixtures.makeVault(directory)
            let context = Context()
            // Creating the vault recorded its first unlock.
            var all = try await F.entries(vault)
            #expect(F.summaries(all) == [S(action: .unlock, table: nil, id: nil)])
            for step in Self.steps {
                let last = all.last?.sequence ?? 0
                let expected = try await step.run(vault, context)
                let new = try await F.entries(vault, after: last)
                #expect(F.summaries(new) == expected, "\(step.name)")
                all += new
            }
            #expect(all.map(\.sequence) == Array(1...Int64(all.count)))
            // The record entries are exactly the change log's, in the same order.
            let changes = try await ChangeFixtures.entries(vault)
            let records = all.filter { $0.table != nil && ![.export, .fhirExport].contains($0.action) }
            #expect(records.map { S(action: $0.action, table: $0.table, id: $0.entityID) }
                    == changes.map { S(action: AuditCodes.action($0.operation), table: $0.table, id: $0.recordID) })
            let device = try await vault.changeLogDeviceID()
            #expect(all.allSatisfy { $0.deviceID == device })
            // The actor is the professional once saved, and nobody before.
            #expect(all[0].actor == nil)
            #expect(all.dropFirst().allSatisfy { $0.actor == context.professional })
            #expect(try await vault.audit.verify() == .intact(entryCount: Int64(all.count)))
            await vault.lock()
        }
    }

    @Test("Backup, restore, import and reopening are recorded; the restored vault's trail verifies")
    func vaultEvents() async throws {
        try await withTemporaryDirectory { directory in
            let vault = try await ChangeFixtures.makeVault(directory)
            let ids = try await F.createPatients(vault, count: 2)
            let documents = try await vault.exportAllRecords()
            try await vault.backup(to: directory.file("backup"))
            var entries = try await F.entries(vault)
            #expect(F.summaries(Array(entries.suffix(3))) == [
                S(action: .export, table: .patient, id: documents[0].patient.id),
                S(action: .export, table: .patient, id: documents[1].patient.id),
                S(action: .backup, table: nil, id: nil)])
            #expect(Set(documents.map(\.patient.id)) == Set(ids))

            let other = try await ChangeFixtures.makeVault(directory, name: "other")
            try await other.importRecords(documents)
            let imported = try await F.entries(other)
            #expect(F.summaries(imported) == [S(action: .unlock, table: nil, id: nil),
                                              S(action: .importRecords, table: nil, id: nil)]
                    + documents.map { S(action: .create, table: .patient, id: $0.patient.id) })
            #expect(try await other.audit.verify().isIntact)
            await other.lock()

            await vault.lock()
            try await Vault.restore(from: directory.file("backup"), to: directory.file("restored"),
                                    password: try Password("probe"), options: VaultFixtures.options)
            let restored = try await Vault.open(at: directory.file("restored"), password: try Password("probe"),
                                                options: VaultFixtures.options)
            entries = try await F.entries(restored)
            #expect(F.summaries(Array(entries.suffix(2))) == [S(action: .restore, table: nil, id: nil),
                                                               S(action: .unlock, table: nil, id: nil)])
            #expect(try await restored.audit.verify().isIntact)
            await restored.lock()
        }
    }

    @Test("Queries: by patient (resolved through its records), by time range, by action, in pages; a bad limit is refused")
    func queries() async throws {
        try await withTemporaryDirectory { directory in
            let vault = try await ChangeFixtures.makeVault(directory)
            let ana = try await vault.patients.create(try ChangeFixtures.patient("Ana", "Uno"))
            let luis = try await vault.patients.create(try ChangeFixtures.patient("Luis", "Dos"))
            let session = try await vault.sessions.create(ClinicalSession(patientID: ana.id, date: Date()))
            let diagnosis = try await vault.diagnoses.create(Diagnosis(
                sessionID: session.id, snapshot: ClinicalFixtures.snapshot, diagnosedAt: Date()))
            let medication = try await vault.medications.create(try ChangeFixtures.medication(ana.id, stock: nil))
            let dose = try await vault.medications.doseLogs.create(DoseLog(
                medicationID: medication.id, scheduledAt: ChangeFixtures.instant(0), status: .taken,
                takenAt: ChangeFixtures.instant(0)))
            _ = try await vault.sessions.create(ClinicalSession(patientID: luis.id, date: Date()))
            _ = try await vault.exportRecord(of: ana.id)

            let anas = try await vault.audit.entries(patient: ana.id)
            #expect(anas.map(\.entityID) == [ana.id, session.id, diagnosis.id, medication.id, dose.log.id, ana.id])
            #expect(anas.last?.action == .export)
            #expect(try await vault.audit.entries(patient: UUID()).isEmpty)

            let exports = try await vault.audit.entries(actions: [.export])
            #expect(exports.map(\.entityID) == [ana.id])
            #expect(try await vault.audit.entries(actions: []).isEmpty)
            let creates = try await vault.audit.entries(patient: ana.id, actions: [.create])
            #expect(creates.count == 5)

            let all = try await F.entries(vault)
            let future = Date().addingTimeInterval(3_600)
            #expect(try await vault.audit.entries(from: future).isEmpty)
            #expect(try await vault.audit.entries(to: all[0].time).isEmpty)
            #expect(try await vault.audit.entries(from: all[0].time, to: future).count == all.count)

            var paged: [AuditEntry] = []
            var after: Int64?
            repeat {
                let page = try await vault.audit.entries(limit: 3, after: after)
                paged += page
                after = page.count == 3 ? page.last?.sequence : nil
            } while after != nil
            #expect(paged == all)

            for limit in [0, -1, 100_001] {
                let error = await #expect(throws: MedVaultError.self) { try await vault.audit.entries(limit: limit) }
                #expect(error?.code == .invalidArgument)
            }
            await vault.lock()
            let locked = await #expect(throws: MedVaultError.self) { try await vault.audit.entries() }
            #expect(locked?.code == .locked)
            let lockedVerify = await #expect(throws: MedVaultError.self) { try await vault.audit.verify() }
            #expect(lockedVerify?.code == .locked)
        }
    }

    @Test("No field value reaches the trail: a marker in every text field appears in no audit column")
    func noFieldValues() async throws {
        try await withTemporaryDirectory { directory in
            let vault = try await ChangeFixtures.makeVault(directory)
            let marker = "ZQXMARKER"
            _ = try await vault.professional.save(Professional(fullName: marker, licenseNumber: marker, specialty: marker,
                                                                email: "\(marker)@example.com"))
            let patient = try await vault.patients.create(Patient(
                firstName: marker, lastName: marker, dateOfBirth: try CalendarDate(iso8601: "1980-05-17"),
                nationalId: marker, email: "\(marker)@example.com", phoneNumber: "+34 600 000 000", address: marker))
            var session = ClinicalSession(patientID: patient.id, date: Date())
            session.notes = marker
            session.chiefComplaint = marker
            session.treatmentPlan = marker
            session = try await vault.sessions.create(session)
            var diagnosis = Diagnosis(sessionID: session.id, snapshot: ClinicalFixtures.snapshot, diagnosedAt: Date())
            diagnosis.clinicalNotes = marker
            _ = try await vault.diagnoses.create(diagnosis)
            _ = try await vault.attachments.create(
                NewAttachment(sessionID: session.id, fileName: "\(marker).txt", mimeType: "text/plain"),
                data: Data(marker.utf8))
            var medication = try ChangeFixtures.medication(patient.id, stock: nil)
            medication.name = marker
            medication.instructions = marker
            _ = try await vault.medications.create(medication)
            _ = try await vault.exportRecord(of: patient.id)
            let rows = try await vault.database.read { db in
                try db.fetchAll("""
                    SELECT CAST(time AS BLOB) || CAST(device AS BLOB) || coalesce(actor, x'') || CAST(action AS BLOB) \
                    || coalesce(CAST(entity_table AS BLOB), x'') || coalesce(entity_id, x'') || mac FROM medvault_audit
                    """) { row in row.blob(at: 0) }
            }
            #expect(rows.count >= 8)
            let needle = Data(marker.utf8)
            #expect(rows.allSatisfy { $0.range(of: needle) == nil })
            #expect(F.summaries(try await F.entries(vault)).allSatisfy { !$0.description.contains(marker) })
            await vault.lock()
        }
    }

    @Test("Writes that fail inside a group commit or a unit of work leave no entry and a chain that verifies")
    func rolledBackWritesLeaveAnIntactChain() async throws {
        struct Failure: Error {}
        try await withTemporaryDirectory { directory in
            let vault = try await ChangeFixtures.makeVault(directory)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for number in 0..<200 {
                    group.addTask {
                        do {
                            _ = try await vault.write { tx in
                                _ = try tx.patients.create(try ChangeFixtures.patient("P", "\(number)"))
                                if number % 5 == 0 { throw Failure() }
                            }
                        } catch is Failure {}
                    }
                }
                try await group.waitForAll()
            }
            // A step that fails inside a unit: its entry rolls back, the unit's others stay.
            _ = try await vault.write { tx in
                _ = try tx.patients.create(try ChangeFixtures.patient("Kept", "One"))
                _ = try? tx.patients.create(Patient(firstName: "", lastName: "", dateOfBirth: try CalendarDate(iso8601: "1980-05-17")))
                _ = try tx.patients.create(try ChangeFixtures.patient("Kept", "Two"))
            }
            let entries = try await F.entries(vault)
            let creates = entries.filter { $0.action == .create }
            #expect(creates.count == 160 + 2)
            let patients = try await vault.database.read { db in
                try db.fetchAll("SELECT id FROM patient") { try UUID(row: $0, column: 0) }
            }
            #expect(Set(creates.compactMap(\.entityID)) == Set(patients))
            #expect(try await vault.audit.verify() == .intact(entryCount: Int64(entries.count)))
            await vault.lock()
        }
    }

    @Test("The trail is append-only for every client: UPDATE and DELETE of an entry are refused")
    func appendOnly() async throws {
        try await withTemporaryDirectory { directory in
            let vault = try await ChangeFixtures.makeVault(directory)
            for sql in ["UPDATE medvault_audit SET time = 0", "DELETE FROM medvault_audit"] {
                await #expect(throws: MedVaultError.self) {
                    try await vault.database.write { db in try db.execute(sql) }
                }
            }
            #expect(try await vault.audit.verify() == .intact(entryCount: 1))
            await vault.lock()
        }
    }
}
