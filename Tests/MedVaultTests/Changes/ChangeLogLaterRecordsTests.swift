import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultTestSupport
import Testing

/// The change log of the records added after the first ones: dose-log corrections and
/// voids with their revisions, refills, schedule versions and lifecycle, signatures and
/// addenda (docs/changes.md, the operation table).
@Suite("Change log: corrections, refills, schedule versions, signing")
struct ChangeLogLaterRecordsTests {
    typealias F = ChangeFixtures
    typealias S = ChangeFixtures.Summary

    @Test("Corrections, voids, refills, schedule versions, signatures and addenda log every record they touch")
    func laterRecordOperations() async throws {
        try await withTemporaryDirectory { directory in
            let vault = try await F.makeVault(directory)
            _ = try await vault.professional.save(Professional(fullName: "Ana Ruiz", licenseNumber: "M-1",
                                                               specialty: "Psicología"))
            let patient = try await vault.patients.create(try F.patient())
            let medication = try await vault.medications.create(Medication(
                patientID: patient.id, name: "Ibuprofeno", dosage: Dosage(amount: 1, unit: .tablets),
                frequency: .specificTimes([TimeOfDay(hour: 8)]), startDate: try CalendarDate(iso8601: "2026-01-01"),
                inventory: MedicationInventory(current: 10)))
            let schedule = try await vault.medications.schedules.create(MedicationSchedule(
                medicationID: medication.id, times: [TimeOfDay(hour: 8)], timeZoneIdentifier: "Europe/Madrid"))
            let at = Date(timeIntervalSince1970: 1_767_254_400)
            let skipped = try await vault.medications.doseLogs.create(DoseLog(
                medicationID: medication.id, scheduledAt: at, status: .skipped, skipReason: .forgot)).log
            var cursor = try await vault.latestChangeCursor()
            func expectNew(_ expected: [S], sourceLocation: SourceLocation = #_sourceLocation) async throws {
                let (entries, next) = try await F.entries(vault, after: cursor)
                #expect(F.summaries(entries) == expected, sourceLocation: sourceLocation)
                cursor = next
            }

            // A correction keeps a revision, changes the log and (taken now) the stock.
            let corrected = try await vault.medications.doseLogs.correct(
                skipped.id, with: DoseLogCorrection(status: .taken, takenAt: at, reason: "wrong button"),
                expectedVersion: skipped.version)
            let firstRevision = try #require(try await vault.medications.doseLogs.history(of: skipped.id).last)
            try await expectNew([S(table: .doseLogRevision, id: firstRevision.id, operation: .insert, version: 1),
                                 S(table: .doseLog, id: skipped.id, operation: .update, version: corrected.log.version)])
            // A void moves the log out (a delete of its last version) and gives the unit back.
            let voided = try await vault.medications.doseLogs.void(skipped.id, reason: "duplicate",
                                                                  expectedVersion: corrected.log.version)
            let voidRevision = try #require(try await vault.medications.doseLogs.history(of: skipped.id).last)
            try await expectNew([S(table: .doseLogRevision, id: voidRevision.id, operation: .insert, version: 1),
                                 S(table: .doseLog, id: skipped.id, operation: .delete, version: corrected.log.version)])
            #expect(voided.medication.version == medication.version)   // the stock is derived (MedicationStockLedger)
            let refill = try await vault.medications.refills.create(MedicationRefill(
                medicationID: medication.id, quantity: 30, date: try CalendarDate(iso8601: "2026-01-02")))
            // No expiration date and a tracked stock: the refill changes the cached stock only.
            try await expectNew([S(table: .medicationRefill, id: refill.refill.id, operation: .insert, version: 1)])
            #expect(refill.medication.inventory?.current == 40 && refill.medication.version == medication.version)

            // A revision ends one version and starts another; pause, resume and end change one.
            let revised = try await vault.medications.schedules.revise(
                schedule, effectiveFrom: try CalendarDate(iso8601: "2026-02-01"))
            let ended = try await vault.medications.schedules.get(schedule.id)
            try await expectNew([S(table: .medicationSchedule, id: schedule.id, operation: .update, version: ended.version),
                                 S(table: .medicationSchedule, id: revised.id, operation: .insert, version: 1)])
            let paused = try await vault.medications.schedules.pause(
                revised.id, from: try CalendarDate(iso8601: "2026-02-10"), through: nil)
            try await expectNew([S(table: .medicationSchedule, id: revised.id, operation: .update, version: paused.version)])
            let resumed = try await vault.medications.schedules.resume(revised.id, on: try CalendarDate(iso8601: "2026-02-15"))
            try await expectNew([S(table: .medicationSchedule, id: revised.id, operation: .update, version: resumed.version)])
            let stopped = try await vault.medications.schedules.end(revised.id, lastDay: try CalendarDate(iso8601: "2026-03-01"))
            try await expectNew([S(table: .medicationSchedule, id: revised.id, operation: .update, version: stopped.version)])

            // Signing adds a signature (under the session's id); an addendum is a record of its own.
            var session = try await vault.sessions.create(ClinicalSession(patientID: patient.id, date: Date()))
            session.notes = "notes"
            session = try await vault.sessions.update(session)
            cursor = try await vault.latestChangeCursor()
            _ = try await vault.sessions.sign(session.id, version: session.version)
            try await expectNew([S(table: .sessionSignature, id: session.id, operation: .insert, version: 1)])
            let addendum = try await vault.sessions.addAddendum(to: session.id, reason: "late", text: "more")
            try await expectNew([S(table: .sessionAddendum, id: addendum.id, operation: .insert, version: 1)])

            // A refused operation logs nothing.
            await expectMedVaultError(.immutable) { try await vault.sessions.sign(session.id, version: session.version) }
            try await expectNew([])
            await vault.lock()
        }
    }

    @Test("An import logs the signatures, addenda, dose-log revisions and refills it brings, one insert each")
    func importLogsLaterRecords() async throws {
        try await withTemporaryDirectory { directory in
            let source = try await F.makeVault(directory, name: "source")
            _ = try await source.professional.save(Professional(fullName: "Ana Ruiz", licenseNumber: "M-1",
                                                                specialty: "Psicología"))
            let patient = try await source.patients.create(try F.patient())
            var session = try await source.sessions.create(ClinicalSession(patientID: patient.id, date: Date()))
            session.notes = "notes"
            session = try await source.sessions.update(session)
            _ = try await source.sessions.sign(session.id, version: session.version)
            let addendum = try await source.sessions.addAddendum(to: session.id, reason: "late", text: "more")
            let medication = try await source.medications.create(F.medication(patient.id, stock: 5))
            let taken = try await source.medications.doseLogs.create(DoseLog(
                medicationID: medication.id, scheduledAt: F.instant(0), status: .taken, takenAt: F.instant(0))).log
            let corrected = try await source.medications.doseLogs.correct(
                taken.id, with: DoseLogCorrection(status: .skipped, skipReason: .forgot, reason: "not taken"),
                expectedVersion: taken.version)
            let revision = try #require(try await source.medications.doseLogs.history(of: taken.id).last)
            let refill = try await source.medications.refills.create(MedicationRefill(
                medicationID: medication.id, quantity: 30, date: try CalendarDate(iso8601: "2026-01-02")))
            let documents = try await source.exportAllRecords()

            let target = try await F.makeVault(directory, name: "target")
            try await target.importRecords(documents)
            #expect(F.summaries(try await F.entries(target)) == [
                S(table: .patient, id: patient.id, operation: .insert, version: patient.version),
                S(table: .clinicalSession, id: session.id, operation: .insert, version: session.version),
                S(table: .sessionSignature, id: session.id, operation: .insert, version: 1),
                S(table: .sessionAddendum, id: addendum.id, operation: .insert, version: 1),
                S(table: .medication, id: medication.id, operation: .insert, version: refill.medication.version),
                S(table: .doseLog, id: taken.id, operation: .insert, version: corrected.log.version),
                S(table: .doseLogRevision, id: revision.id, operation: .insert, version: 1),
                S(table: .medicationRefill, id: refill.refill.id, operation: .insert, version: 1),
            ] + (try await F.adjustmentIDs(of: medication.id, in: target)).map {
                S(table: .medicationStockAdjustment, id: $0, operation: .insert, version: 1)
            })
            // 5 at creation + 30 refilled, the dose corrected to skipped: 35, kept by one adjustment.
            #expect(try await target.medications.get(medication.id).inventory?.current == 35)
            #expect(try await F.adjustmentIDs(of: medication.id, in: target).count == 1)
            await source.lock()
            await target.lock()
        }
    }
}
