import Foundation
import MedVault
import MedVaultTestSupport
import Testing

/// The schedule lifecycle and snooze operations inside a unit of work: the same
/// results as the async repositories, and all or nothing.
@Suite("Unit of work: schedule lifecycle and snoozes")
struct ScheduleLifecycleUnitOfWorkTests {
    struct Abandoned: Error {}

    @Test("pause, revise, end, resume and snooze commit together and read their own writes", arguments: VaultBackend.all)
    func lifecycleCommitsTogether(backend: VaultBackend) async throws {
        let repos = try await backend.make(.fixed(MT.utc("2026-05-04T06:00:00Z")))
        let patient = try await repos.patients.create(ClinicalFixtures.patient())
        let medication = try await repos.medications.create(MT.medication(patientID: patient.id))
        let schedule = try await repos.medications.schedules.create(MedicationSchedule(
            medicationID: medication.id, times: [TimeOfDay(hour: 8)], timeZoneIdentifier: "UTC"))
        let dose = MT.utc("2026-05-04T08:00:00Z")
        let (next, snooze) = try await repos.writer.write { tx in
            let paused = try tx.medications.schedules.pause(schedule.id, from: MT.day("2026-05-10"), through: nil)
            var edited = try tx.medications.schedules.resume(paused.id, on: MT.day("2026-05-12"))
            #expect(edited.pauses == [SchedulePause(from: MT.day("2026-05-10"), through: MT.day("2026-05-11"))])
            edited.times = [TimeOfDay(hour: 9)]
            let next = try tx.medications.schedules.revise(edited, effectiveFrom: MT.day("2026-05-20"))
            let ended = try tx.medications.schedules.end(next.id, lastDay: MT.day("2026-05-31"))
            #expect(try tx.medications.schedules.list(medicationID: medication.id).map(\.id).sorted { $0.uuidString < $1.uuidString }
                    == [schedule.id, next.id].sorted { $0.uuidString < $1.uuidString })
            let snooze = try tx.medications.schedules.snooze(scheduleID: schedule.id, doseAt: dose)
            #expect(try tx.medications.schedules.snoozes(patientID: patient.id, in: dose..<dose.addingTimeInterval(1)) == [snooze])
            return (ended, snooze)
        }
        #expect(try await repos.medications.schedules.get(next.id) == next)
        #expect(next.effectiveFrom == MT.day("2026-05-20") && next.effectiveUntil == MT.day("2026-05-31"))
        #expect(try await repos.medications.schedules.get(schedule.id).effectiveUntil == MT.day("2026-05-19"))
        #expect(snooze.snoozedUntil == MT.utc("2026-05-04T06:10:00Z"))
        #expect(try await repos.medications.schedules.snoozes(patientID: patient.id, in: dose..<dose.addingTimeInterval(1)) == [snooze])
        await repos.close()
    }

    @Test("A failure after a revision and a snooze leaves neither", arguments: VaultBackend.all)
    func failureRollsBackLifecycle(backend: VaultBackend) async throws {
        let repos = try await backend.make(.fixed(MT.utc("2026-05-04T06:00:00Z")))
        let patient = try await repos.patients.create(ClinicalFixtures.patient())
        let medication = try await repos.medications.create(MT.medication(patientID: patient.id))
        let schedule = try await repos.medications.schedules.create(MedicationSchedule(
            medicationID: medication.id, times: [TimeOfDay(hour: 8)], timeZoneIdentifier: "UTC"))
        let dose = MT.utc("2026-05-04T08:00:00Z")
        await #expect(throws: Abandoned.self) {
            try await repos.writer.write { tx in
                _ = try tx.medications.schedules.revise(schedule, effectiveFrom: MT.day("2026-05-20"))
                _ = try tx.medications.schedules.snooze(scheduleID: schedule.id, doseAt: dose)
                throw Abandoned()
            }
        }
        #expect(try await repos.medications.schedules.list(medicationID: medication.id) == [schedule])
        #expect(try await repos.medications.schedules.snoozes(patientID: patient.id, in: dose..<dose.addingTimeInterval(1)).isEmpty)
        await repos.close()
    }
}
