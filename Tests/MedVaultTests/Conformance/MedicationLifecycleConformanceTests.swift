import Foundation
import MedVaultCore
import Testing

/// Schedule lifecycle: pauses, revisions, ends and deactivation never rewrite the past.
@Suite("Medication conformance: schedule lifecycle")
struct MedicationLifecycleConformanceTests {
    /// March's adherence and every day's dose history, as a test compares them.
    struct History: Equatable {
        var adherence: AdherenceStats
        var days: [[ScheduledDose]]
    }

    static func march(_ f: MedicationFixture, _ patientID: UUID) async throws -> History {
        let first = MT.day("2026-03-01")
        var days: [[ScheduledDose]] = []
        for offset in 0..<31 {
            days.append(try await f.store.doses(forPatient: patientID, on: first.adding(days: offset), in: MT.madrid))
        }
        let adherence = try await f.store.adherence(forPatient: patientID, from: first, through: MT.day("2026-03-31"), in: MT.madrid)
        return History(adherence: adherence, days: days)
    }

    @Test(arguments: MedicationBackend.all)
    func pausingForAWeekThenEditingTimesKeepsLastMonth(_ backend: MedicationBackend) async throws {
        // Now: 2026-04-02 noon in Madrid. March had 08:00 and 20:00 (the clocks moved on the 29th).
        let clock = MedicationTestClock(MT.local(MT.day("2026-04-02"), 12, 0, MT.madrid))
        let f = try await backend.make(clock.recordClock)
        let patientID = try await f.registerPatient()
        let medication = try await f.store.create(MT.medication(patientID: patientID, start: "2026-03-01"))
        let schedule = try await f.store.schedules.create(MedicationSchedule(
            medicationID: medication.id, times: [TimeOfDay(hour: 8), TimeOfDay(hour: 20)], timeZoneIdentifier: "Europe/Madrid"))
        var logs: [DoseLog] = []
        for offset in stride(from: 0, to: 31, by: 2) {
            let at = MT.local(MT.day("2026-03-01").adding(days: offset), 8, 0, MT.madrid)
            logs.append(DoseLog(medicationID: medication.id, scheduledAt: at, status: .taken,
                                takenAt: at.addingTimeInterval(offset % 4 == 0 ? 300 : 7200)))
        }
        logs.append(DoseLog(medicationID: medication.id, scheduledAt: MT.local(MT.day("2026-03-29"), 20, 0, MT.madrid),
                            status: .skipped, skipReason: .forgot))
        _ = try await f.store.doseLogs.create(logs)
        let before = try await Self.march(f, patientID)
        #expect(before.adherence == AdherenceStats(expected: 62, taken: 8, late: 8, skipped: 1, missed: 45))

        // A minute later: pause 2026-04-06 … 04-12, then from 04-20 take it at 09:00 only.
        clock.now = clock.now.addingTimeInterval(60)
        let paused = try await f.store.schedules.pause(schedule.id, from: MT.day("2026-04-06"), through: MT.day("2026-04-12"))
        #expect(paused.version == 2)
        var edited = paused
        edited.times = [TimeOfDay(hour: 9)]
        let next = try await f.store.schedules.revise(edited, effectiveFrom: MT.day("2026-04-20"))
        #expect(next.id != schedule.id && next.seriesID == schedule.id && next.version == 1)
        #expect(next.effectiveFrom == MT.day("2026-04-20") && next.times == [TimeOfDay(hour: 9)])
        let old = try await f.store.schedules.get(schedule.id)
        #expect(old.effectiveUntil == MT.day("2026-04-19") && old.version == 3 && old.times == schedule.times)
        #expect(try await f.store.schedules.list(medicationID: medication.id).map(\.id) == [schedule.id, next.id])

        #expect(try await Self.march(f, patientID) == before)
        func times(_ day: String) async throws -> [Date] {
            try await f.store.doses(forPatient: patientID, on: MT.day(day), in: MT.madrid).map(\.scheduledAt)
        }
        #expect(try await times("2026-04-05") == [MT.local(MT.day("2026-04-05"), 8, 0, MT.madrid), MT.local(MT.day("2026-04-05"), 20, 0, MT.madrid)])
        #expect(try await times("2026-04-06").isEmpty)
        #expect(try await times("2026-04-12").isEmpty)
        #expect(try await times("2026-04-13").count == 2)
        #expect(try await times("2026-04-19").count == 2)
        #expect(try await times("2026-04-20") == [MT.local(MT.day("2026-04-20"), 9, 0, MT.madrid)])

        // Deactivating the medication keeps March, and everything up to now.
        _ = try await f.store.deactivate(medication.id)
        #expect(try await Self.march(f, patientID) == before)
        #expect(try await times("2026-04-02") == [MT.local(MT.day("2026-04-02"), 8, 0, MT.madrid)])
        #expect(try await times("2026-04-03").isEmpty)
    }

    @Test(arguments: MedicationBackend.all)
    func openPauseResumeAndEnd(_ backend: MedicationBackend) async throws {
        let f = try await backend.make(.fixed(MT.utc("2026-05-01T00:00:00Z")))
        let (patientID, medication) = try await f.medicationWithSchedule([TimeOfDay(hour: 8)], zone: MT.newYork)
        let schedule = try #require(try await f.store.schedules.list(medicationID: medication.id).first)
        _ = try await f.store.schedules.pause(schedule.id, from: MT.day("2026-05-03"), through: nil)
        let resumed = try await f.store.schedules.resume(schedule.id, on: MT.day("2026-05-06"))
        #expect(resumed.pauses == [SchedulePause(from: MT.day("2026-05-03"), through: MT.day("2026-05-05"))])
        let ended = try await f.store.schedules.end(schedule.id, lastDay: MT.day("2026-05-08"))
        #expect(ended.effectiveUntil == MT.day("2026-05-08") && ended.version == 4)
        var days: [String] = []
        var day = MT.day("2026-05-01")
        while day <= MT.day("2026-05-10") {
            if try await !f.store.doses(forPatient: patientID, on: day, in: MT.newYork).isEmpty { days.append(day.iso8601) }
            day = day.adding(days: 1)
        }
        #expect(days == ["2026-05-01", "2026-05-02", "2026-05-06", "2026-05-07", "2026-05-08"])
        #expect(try await f.store.schedules.get(schedule.id) == ended)
    }

    @Test(arguments: MedicationBackend.all)
    func lifecycleFailuresChangeNothing(_ backend: MedicationBackend) async throws {
        let f = try await backend.make(.fixed(MT.utc("2026-05-01T00:00:00Z")))
        let (_, medication) = try await f.medicationWithSchedule([TimeOfDay(hour: 8)], zone: MT.madrid)
        var schedule = try #require(try await f.store.schedules.list(medicationID: medication.id).first)
        schedule = try await f.store.schedules.pause(schedule.id, from: MT.day("2026-05-10"), through: MT.day("2026-05-12"))
        let s = schedule
        func code(_ body: @escaping () async throws -> Void) async -> (MedVaultError.Code?, String?) {
            let error = await MT.error(body)
            return (error?.code, error?.field)
        }
        #expect(await code { _ = try await f.store.schedules.resume(s.id, on: MT.day("2026-05-20")) } == (.validation, "pauses"))
        #expect(await code {
            _ = try await f.store.schedules.pause(s.id, from: MT.day("2026-05-12"), through: MT.day("2026-05-14"))
        } == (.validation, "pauses"))
        #expect(await code { _ = try await f.store.schedules.pause(UUID(), from: MT.day("2026-05-12"), through: nil) }.0 == .notFound)
        #expect(await code { _ = try await f.store.schedules.end(UUID(), lastDay: MT.day("2026-05-12")) }.0 == .notFound)
        var stale = s
        stale.version = 1
        #expect(await code { _ = try await f.store.schedules.revise(stale, effectiveFrom: MT.day("2026-06-01")) }.0 == .conflict)
        var moved = s
        moved.medicationID = UUID()
        #expect(await code { _ = try await f.store.schedules.revise(moved, effectiveFrom: MT.day("2026-06-01")) }
                == (.validation, "medicationID"))
        var bad = s
        bad.times = []
        #expect(await code { _ = try await f.store.schedules.revise(bad, effectiveFrom: MT.day("2026-06-01")) } == (.validation, "times"))
        #expect(await code { _ = try await f.store.schedules.revise(UUID().schedule(like: s), effectiveFrom: MT.day("2026-06-01")) }.0
                == .notFound)
        let next = try await f.store.schedules.revise(s, effectiveFrom: MT.day("2026-06-01"))
        var again = next
        again.times = [TimeOfDay(hour: 10)]
        #expect(await code { _ = try await f.store.schedules.revise(again, effectiveFrom: MT.day("2026-06-01")) }
                == (.validation, "effectiveFrom"))
        #expect(await code { _ = try await f.store.schedules.end(next.id, lastDay: MT.day("2026-05-31")) }
                == (.validation, "effectiveUntil"))
        #expect(try await f.store.schedules.get(next.id) == next)
        #expect(try await f.store.schedules.list(medicationID: medication.id).count == 2)
        // An in-place update cannot move a version to another series.
        var renamed = next
        renamed.seriesID = UUID()
        renamed.times = [TimeOfDay(hour: 7)]
        let updated = try await f.store.schedules.update(renamed)
        #expect(updated.seriesID == s.id && updated.times == [TimeOfDay(hour: 7)])
        #expect(try await f.store.schedules.get(next.id) == updated)
    }

    @Test(arguments: MedicationBackend.all)
    func regimenFieldsRoundTrip(_ backend: MedicationBackend) async throws {
        let f = try await backend.make(.fixed(MT.utc("2026-05-01T00:00:00Z")))
        let patientID = try await f.registerPatient()
        let medication = try await f.store.create(MT.medication(patientID: patientID))
        let taper = MedicationSchedule(
            medicationID: medication.id, times: [TimeOfDay(hour: 8, label: "Desayuno")], daysOfWeek: [.monday, .friday],
            timeZoneIdentifier: "America/New_York", effectiveFrom: MT.day("2026-05-01"), effectiveUntil: MT.day("2026-06-30"),
            pauses: [SchedulePause(from: MT.day("2026-05-05"), through: MT.day("2026-05-06")), SchedulePause(from: MT.day("2026-06-01"))],
            interval: DayInterval(days: 2, startDate: MT.day("2026-05-01")),
            taperSteps: [TaperStep(from: MT.day("2026-05-01"), through: MT.day("2026-05-15"), amount: 2.5),
                         TaperStep(from: MT.day("2026-05-16"), through: nil, amount: 0.125)],
            reminders: ReminderSettings(leadMinutes: 30, snoozeMinutes: 15, maximumSnoozes: 5))
        let amounts = MedicationSchedule(
            medicationID: medication.id, times: [TimeOfDay(hour: 8, amount: 2), TimeOfDay(hour: 14), TimeOfDay(hour: 20, amount: 1.5)],
            timeZoneIdentifier: "Europe/Madrid")
        for schedule in [taper, amounts] {
            let stored = try await f.store.schedules.create(schedule)
            #expect(try await f.store.schedules.get(schedule.id) == stored)
            var expected = schedule
            expected.createdAt = stored.createdAt
            expected.updatedAt = stored.updatedAt
            expected.version = 1
            #expect(stored == expected)
        }
    }
}

extension UUID {
    /// A schedule with this identifier and everything else from `other`.
    func schedule(like other: MedicationSchedule) -> MedicationSchedule {
        MedicationSchedule(id: self, medicationID: other.medicationID, times: other.times,
                           timeZoneIdentifier: other.timeZoneIdentifier, version: other.version)
    }
}
