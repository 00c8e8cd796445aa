import Foundation
import MedVaultCore
import Testing

/// Reminders (lead time, snooze) and the as-needed 24-hour maximum.
@Suite("Medication conformance: reminders and as-needed limits")
struct MedicationReminderConformanceTests {
    @Test(arguments: MedicationBackend.all)
    func remindersAcrossNewYorkSpringForwardAndSnoozes(_ backend: MedicationBackend) async throws {
        let clock = MedicationTestClock(MT.utc("2026-03-07T00:00:00Z"))
        let f = try await backend.make(clock.recordClock)
        let patientID = try await f.registerPatient()
        let medication = try await f.store.create(MT.medication(patientID: patientID))
        let schedule = try await f.store.schedules.create(MedicationSchedule(
            medicationID: medication.id, times: [TimeOfDay(hour: 3, minute: 30, label: "Noche")],
            timeZoneIdentifier: "America/New_York",
            reminders: ReminderSettings(leadMinutes: 60, snoozeMinutes: 10, maximumSnoozes: 1)))
        func upcoming(from: String) async throws -> [Date] {
            try await f.store.upcomingReminders(forPatient: patientID, from: MT.utc(from), until: MT.utc("2026-03-10T00:00:00Z"),
                                                options: .dosesOnly).map(\.remindAt)
        }
        // 03:30 EST on the 7th is 08:30Z; on the 8th (clocks jumped at 02:00) and 9th, 03:30 EDT is 07:30Z.
        #expect(try await upcoming(from: "2026-03-07T00:00:00Z")
                == ["2026-03-07T07:30:00Z", "2026-03-08T06:30:00Z", "2026-03-09T06:30:00Z"].map(MT.utc))
        let all = try await f.store.upcomingReminders(forPatient: patientID, from: MT.utc("2026-03-07T00:00:00Z"),
                                                      until: MT.utc("2026-03-10T00:00:00Z"), options: .dosesOnly)
        #expect(all.map(\.scheduledAt) == ["2026-03-07T08:30:00Z", "2026-03-08T07:30:00Z", "2026-03-09T07:30:00Z"].map(MT.utc))
        #expect(all.allSatisfy { $0.scheduleID == schedule.id && $0.label == "Noche" && $0.snoozeCount == 0 })

        // A logged dose has no reminder.
        let first = MT.utc("2026-03-07T08:30:00Z")
        _ = try await f.store.doseLogs.create(DoseLog(medicationID: medication.id, scheduledAt: first, status: .taken, takenAt: first))
        #expect(try await upcoming(from: "2026-03-07T00:00:00Z") == ["2026-03-08T06:30:00Z", "2026-03-09T06:30:00Z"].map(MT.utc))

        // Snoozed at its reminder: it moves 10 minutes.
        clock.now = MT.utc("2026-03-08T06:30:00Z")
        let dose = MT.utc("2026-03-08T07:30:00Z")
        let snooze = try await f.store.schedules.snooze(scheduleID: schedule.id, doseAt: dose)
        #expect(snooze == DoseSnooze(medicationID: medication.id, scheduledAt: dose,
                                     snoozedUntil: MT.utc("2026-03-08T06:40:00Z"), count: 1))
        #expect(try await upcoming(from: "2026-03-08T06:35:00Z") == ["2026-03-08T06:40:00Z", "2026-03-09T06:30:00Z"].map(MT.utc))
        #expect(try await f.store.upcomingReminders(forPatient: patientID, from: MT.utc("2026-03-08T06:35:00Z"),
                                                    until: MT.utc("2026-03-08T07:00:00Z"), options: .dosesOnly).first?.snoozeCount == 1)

        // Failures change nothing.
        func code(_ body: @escaping () async throws -> Void) async -> (MedVaultError.Code?, String?) {
            let error = await MT.error(body)
            return (error?.code, error?.field)
        }
        #expect(await code { _ = try await f.store.schedules.snooze(scheduleID: schedule.id, doseAt: dose) }
                == (.limitExceeded, "reminders.maximumSnoozes"))
        #expect(await code { _ = try await f.store.schedules.snooze(scheduleID: schedule.id, doseAt: first) }.0 == .duplicate)
        #expect(await code { _ = try await f.store.schedules.snooze(scheduleID: schedule.id, doseAt: MT.utc("2026-03-08T07:00:00Z")) }
                == (.validation, "scheduledAt"))
        #expect(await code { _ = try await f.store.schedules.snooze(scheduleID: UUID(), doseAt: dose) }.0 == .notFound)
        #expect(try await f.store.schedules.snoozes(patientID: patientID, in: MT.utc("2026-03-01T00:00:00Z")..<MT.utc("2026-04-01T00:00:00Z"))
                == [snooze])
        let reversed = await MT.error {
            _ = try await f.store.upcomingReminders(forPatient: patientID, from: MT.utc("2026-03-09T00:00:00Z"),
                                                    until: MT.utc("2026-03-08T00:00:00Z"))
        }
        #expect(reversed?.code == .invalidArgument)
        // Hostile windows and instants are refused before any expansion.
        let tooLong = await MT.error {
            _ = try await f.store.upcomingReminders(forPatient: patientID, from: MT.utc("2026-03-01T00:00:00Z"),
                                                    until: MT.utc("2026-04-01T00:00:01Z"))
        }
        #expect(tooLong?.code == .invalidArgument)
        let far = await MT.error {
            _ = try await f.store.upcomingReminders(forPatient: patientID, from: Date(timeIntervalSince1970: 1e300),
                                                    until: Date(timeIntervalSince1970: 1e300))
        }
        #expect(far?.code == .invalidArgument)
        #expect(await code { _ = try await f.store.schedules.snooze(scheduleID: schedule.id, doseAt: Date(timeIntervalSince1970: -1e300)) }
                == (.validation, "scheduledAt"))
        #expect(try await f.store.schedules.snoozes(patientID: patientID, in: Date.distantPast..<Date.distantFuture) == [snooze])
    }

    @Test(arguments: MedicationBackend.all)
    func remindersAcrossMadridFallBack(_ backend: MedicationBackend) async throws {
        let f = try await backend.make(.fixed(MT.utc("2026-10-20T00:00:00Z")))
        let patientID = try await f.registerPatient()
        let medication = try await f.store.create(MT.medication(patientID: patientID))
        _ = try await f.store.schedules.create(MedicationSchedule(
            medicationID: medication.id, times: [TimeOfDay(hour: 2, minute: 45)], timeZoneIdentifier: "Europe/Madrid",
            reminders: ReminderSettings(leadMinutes: 30)))
        let reminders = try await f.store.upcomingReminders(
            forPatient: patientID, from: MT.utc("2026-10-24T00:00:00Z"), until: MT.utc("2026-10-27T00:00:00Z"),
            options: .dosesOnly)
        // 02:45 CEST (00:45Z) on the 24th; twice on the 25th, the first (CEST) is the dose; 02:45 CET (01:45Z) on the 26th.
        #expect(reminders.map(\.scheduledAt) == ["2026-10-24T00:45:00Z", "2026-10-25T00:45:00Z", "2026-10-26T01:45:00Z"].map(MT.utc))
        #expect(reminders.map(\.remindAt) == ["2026-10-24T00:15:00Z", "2026-10-25T00:15:00Z", "2026-10-26T01:15:00Z"].map(MT.utc))
    }

    @Test(arguments: MedicationBackend.all)
    func asNeededOverItsMaximumIsRefused(_ backend: MedicationBackend) async throws {
        let f = try await backend.make(.fixed(MT.utc("2026-06-01T00:00:00Z")))
        let patientID = try await f.registerPatient()
        var rescue = MT.medication(patientID: patientID, name: "Rescate", frequency: .asNeeded,
                                   inventory: MedicationInventory(current: 10, minimum: 0))
        rescue.maximumDosesPer24Hours = 2
        let medication = try await f.store.create(rescue)
        #expect(medication.maximumDosesPer24Hours == 2)
        func intake(_ hours: Double, _ status: DoseStatus = .taken) -> DoseLog {
            let at = MT.utc("2026-06-01T10:00:00Z").addingTimeInterval(hours * 3600)
            return DoseLog(medicationID: medication.id, scheduledAt: at, status: status, takenAt: status == .taken ? at : nil)
        }
        _ = try await f.store.doseLogs.create([intake(0), intake(1)])
        let over = await MT.error { _ = try await f.store.doseLogs.create(intake(2)) }
        #expect(over?.code == .limitExceeded)
        #expect(over?.field == "maximumDosesPer24Hours")
        // A batch with one dose over the limit writes nothing.
        let batch = await MT.error { _ = try await f.store.doseLogs.create([intake(30), intake(23.5)]) }
        #expect(batch?.code == .limitExceeded)
        #expect(try await f.store.get(medication.id).inventory?.current == 8)
        let day = MT.utc("2026-06-01T00:00:00Z")..<MT.utc("2026-06-04T00:00:00Z")
        #expect(try await f.store.doseLogs.list(medicationID: medication.id, in: day).count == 2)
        // A skipped dose does not count; a day after the second intake is allowed again.
        _ = try await f.store.doseLogs.create(intake(2, .skipped))
        _ = try await f.store.doseLogs.create(intake(25))
        #expect(try await f.store.get(medication.id).inventory?.current == 7)
        // A repeated dose is still a duplicate, not a limit error.
        #expect(await MT.error { _ = try await f.store.doseLogs.create(intake(1)) }?.code == .duplicate)

        var invalid = MT.medication(patientID: patientID, frequency: .asNeeded)
        invalid.maximumDosesPer24Hours = 0
        let refused = await MT.error { _ = try await f.store.create(invalid) }
        #expect(refused?.field == "maximumDosesPer24Hours")
    }
}
