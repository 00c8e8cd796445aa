import Foundation
@testable import MedVault
import MedVaultCore
import MedVaultKeys
import MedVaultTestSupport
import Testing

@Suite("Vault: export and import of schedule versions, regimens and limits")
struct ScheduleLifecycleImportTests {
    @Test("Export → JSON → import keeps every schedule version, pause, taper, per-time amount, reminder setting, limit and deactivation instant")
    func lifecycleFieldsRoundTrip() async throws {
        try await withTemporaryDirectory { dir in
            let source = try await Vault.create(at: dir.file("source"), password: try Password(BackupFixtures.password),
                                                options: VaultFixtures.options).vault
            let patient = try await source.patients.create(Patient(
                firstName: "Ana", lastName: "Núñez", dateOfBirth: try CalendarDate(iso8601: "1984-03-07")))
            var rescue = Medication(patientID: patient.id, name: "Rescate", dosage: Dosage(amount: 1, unit: .puffs),
                                    frequency: .asNeeded, startDate: MT.day("2026-01-01"))
            rescue.maximumDosesPer24Hours = 4
            _ = try await source.medications.create(rescue)
            let prednisone = try await source.medications.create(MT.medication(patientID: patient.id, name: "Prednisona"))
            let schedule = try await source.medications.schedules.create(MedicationSchedule(
                medicationID: prednisone.id, times: [TimeOfDay(hour: 8, amount: 2), TimeOfDay(hour: 20, amount: 1)],
                timeZoneIdentifier: "Europe/Madrid", interval: DayInterval(days: 2, startDate: MT.day("2026-01-01")),
                reminders: ReminderSettings(leadMinutes: 15, snoozeMinutes: 5, maximumSnoozes: 2)))
            let paused = try await source.medications.schedules.pause(schedule.id, from: MT.day("2026-02-01"), through: nil)
            var taper = paused
            taper.times = [TimeOfDay(hour: 9)]
            taper.taperSteps = [TaperStep(from: MT.day("2026-03-01"), through: MT.day("2026-03-10"), amount: 0.5)]
            _ = try await source.medications.schedules.revise(taper, effectiveFrom: MT.day("2026-03-01"))
            _ = try await source.medications.deactivate(prednisone.id)

            let documents = try await source.exportAllRecords()
            let exported = try #require(documents.first)
            #expect(exported.medications.flatMap(\.schedules).count == 2)
            let decoded = try PatientRecordExport.documents(jsonData: try PatientRecordExport.jsonData(of: documents))
            #expect(decoded == documents)
            let target = try await Vault.create(at: dir.file("target"), password: try Password(BackupFixtures.password),
                                                options: VaultFixtures.options).vault
            let report = try await target.importRecords(decoded)
            #expect(report.medications == 2 && report.schedules == 2)
            var imported = try await target.exportAllRecords()
            imported[0].exportedAt = exported.exportedAt
            #expect(imported == documents)
            let versions = try await target.medications.schedules.list(medicationID: prednisone.id)
            #expect(versions.map(\.seriesID) == [schedule.id, schedule.id])
            #expect(versions.last?.taperSteps.first?.amount == 0.5)
            #expect(try await target.medications.get(prednisone.id).deactivatedAt != nil)
            await source.lock()
            await target.lock()
        }
    }

    @Test("A schedule exported before versions and reminders existed decodes as in force since the medication started")
    func olderExportDecodes() throws {
        let id = UUID(), medicationID = UUID()
        let json = """
            {"id":"\(id)","medicationID":"\(medicationID)","times":[{"hour":8,"minute":0}],"daysOfWeek":[1],
             "timeZoneIdentifier":"Europe/Madrid","createdAt":"2026-01-01T00:00:00.000Z",
             "updatedAt":"2026-01-01T00:00:00.000Z","version":1}
            """
        let schedule = try PatientRecordExport.decoder().decode(MedicationSchedule.self, from: Data(json.utf8))
        #expect(schedule.seriesID == id && schedule.effectiveFrom == nil && schedule.pauses.isEmpty)
        #expect(schedule.reminders == .standard && schedule.taperSteps.isEmpty && schedule.interval == nil)
        #expect(schedule.daysOfWeek == [.monday] && schedule.times == [TimeOfDay(hour: 8)])
    }
}
