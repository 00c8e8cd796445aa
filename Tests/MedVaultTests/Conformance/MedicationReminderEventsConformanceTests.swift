import Foundation
import MedVaultCore
import Testing

/// Issue #38, item 2: follow-ups of missed doses, snoozes of frequency-derived doses,
/// low-stock and refill events, and adherence streaks; the same on every backend, across
/// daylight-saving changes.
@Suite("Medication conformance: follow-ups, stock events, frequency snoozes and streaks")
struct MedicationReminderEventsConformanceTests {
    typealias Kind = DoseReminder.Kind

    static func summary(_ reminders: [DoseReminder]) -> [String] {
        reminders.map { "\($0.kind.rawValue) \(ISO8601DateFormatter().string(from: $0.remindAt))" }
    }

    @Test(arguments: MedicationBackend.all)
    func followUpsAcrossNewYorkSpringForward(_ backend: MedicationBackend) async throws {
        let clock = MedicationTestClock(MT.utc("2026-03-08T00:00:00Z"))
        let f = try await backend.make(clock.recordClock)
        let patientID = try await f.registerPatient()
        // 01:50 EST on the 8th is 06:50Z; ten minutes later the clocks jump from 02:00 to 03:00.
        let medication = try await f.store.create(MT.medication(
            patientID: patientID, frequency: .specificTimes([TimeOfDay(hour: 1, minute: 50)])))
        let early = try await f.store.create(MT.medication(patientID: patientID, name: "Levotiroxina"))
        _ = try await f.store.schedules.create(MedicationSchedule(
            medicationID: early.id, times: [TimeOfDay(hour: 7)], timeZoneIdentifier: "America/New_York",
            reminders: ReminderSettings(leadMinutes: 60)))
        func upcoming(_ options: ReminderOptions = .standard) async throws -> [DoseReminder] {
            try await f.store.upcomingReminders(forPatient: patientID, from: MT.utc("2026-03-08T00:00:00Z"),
                                                until: MT.utc("2026-03-08T12:00:00Z"), timeZone: MT.newYork,
                                                options: options)
        }
        // The follow-up is 15 real minutes after the dose: 03:05 EDT on the wall clock.
        // The scheduled dose reminded an hour early (10:00Z for 11:00Z) is followed up
        // after its time, not after its reminder.
        #expect(Self.summary(try await upcoming()) == [
            "dose 2026-03-08T06:50:00Z", "follow-up 2026-03-08T07:05:00Z",
            "dose 2026-03-08T10:00:00Z", "follow-up 2026-03-08T11:15:00Z",
        ])
        let followUp = try #require(try await upcoming().first { $0.kind == .followUp })
        #expect(followUp.scheduledAt == MT.utc("2026-03-08T06:50:00Z") && followUp.medicationID == medication.id)
        #expect(followUp.id.identifier == "follow-up:\(medication.id.uuidString):\(MT.utc("2026-03-08T06:50:00Z").millisecondsSince1970):0")
        #expect(Set(try await upcoming().map(\.id)).count == 4, "identifiers are distinct")
        #expect(Self.summary(try await upcoming(ReminderOptions(followUpMinutes: 30)))[1] == "follow-up 2026-03-08T07:20:00Z")
        #expect(try await upcoming(.dosesOnly).allSatisfy { $0.kind == .dose })

        // Snoozed at its time (a frequency-derived dose): the reminder moves 10 minutes,
        // its follow-up 15 minutes after the snooze ends.
        clock.now = MT.utc("2026-03-08T06:50:00Z")
        let snooze = try await f.store.schedules.snooze(medicationID: medication.id, doseAt: MT.utc("2026-03-08T06:50:00Z"),
                                                        timeZone: MT.newYork)
        #expect(snooze.snoozedUntil == MT.utc("2026-03-08T07:00:00Z") && snooze.count == 1)
        #expect(Self.summary(try await upcoming()).prefix(2) == ["dose 2026-03-08T07:00:00Z", "follow-up 2026-03-08T07:15:00Z"])
        #expect(try await upcoming().first?.id.identifier.hasSuffix(":1") == true, "a snoozed reminder is a new one")
        // Logged: neither the reminder nor its follow-up remains.
        _ = try await f.store.doseLogs.create(DoseLog(medicationID: medication.id, scheduledAt: MT.utc("2026-03-08T06:50:00Z"),
                                                      status: .taken, takenAt: MT.utc("2026-03-08T07:01:00Z")))
        #expect(try await upcoming().allSatisfy { $0.medicationID == early.id })

        // A follow-up whose dose lies before the window is still found.
        let late = try await f.store.upcomingReminders(forPatient: patientID, from: MT.utc("2026-03-08T11:10:00Z"),
                                                       until: MT.utc("2026-03-08T12:00:00Z"), timeZone: MT.newYork)
        #expect(Self.summary(late) == ["follow-up 2026-03-08T11:15:00Z"])

        for (options, field) in [(ReminderOptions(followUpMinutes: 0), "followUpMinutes"),
                                 (ReminderOptions(followUpMinutes: 1_441), "followUpMinutes"),
                                 (ReminderOptions(refillLeadDays: -1), "refillLeadDays"),
                                 (ReminderOptions(refillLeadDays: 91), "refillLeadDays")] {
            let error = await MT.error { _ = try await upcoming(options) }
            #expect(error?.code == .invalidArgument && error?.field == field)
        }
    }

    @Test(arguments: MedicationBackend.all)
    func snoozingAFrequencyDoseAcrossMadridFallBack(_ backend: MedicationBackend) async throws {
        let clock = MedicationTestClock(MT.utc("2026-10-25T00:00:00Z"))
        let f = try await backend.make(clock.recordClock)
        let patientID = try await f.registerPatient()
        // 02:30 happens twice on the 25th in Madrid; the dose is the first (CEST, 00:30Z).
        let medication = try await f.store.create(MT.medication(
            patientID: patientID, frequency: .specificTimes([TimeOfDay(hour: 2, minute: 30)])))
        let dose = MT.utc("2026-10-25T00:30:00Z")
        func doses() async throws -> [String] {
            Self.summary(try await f.store.upcomingReminders(
                forPatient: patientID, from: MT.utc("2026-10-25T00:00:00Z"), until: MT.utc("2026-10-25T03:00:00Z"),
                timeZone: MT.madrid, options: .dosesOnly))
        }
        #expect(try await doses() == ["dose 2026-10-25T00:30:00Z"])
        clock.now = dose
        var snooze = try await f.store.schedules.snooze(medicationID: medication.id, doseAt: dose, timeZone: MT.madrid)
        #expect(snooze == DoseSnooze(medicationID: medication.id, scheduledAt: dose,
                                     snoozedUntil: MT.utc("2026-10-25T00:40:00Z"), count: 1))
        #expect(try await doses() == ["dose 2026-10-25T00:40:00Z"])
        // The clocks go back at 01:00Z: the snooze is still 10 real minutes.
        clock.now = MT.utc("2026-10-25T00:55:00Z")
        snooze = try await f.store.schedules.snooze(medicationID: medication.id, doseAt: dose, timeZone: MT.madrid)
        #expect(snooze.snoozedUntil == MT.utc("2026-10-25T01:05:00Z") && snooze.count == 2)
        #expect(try await doses() == ["dose 2026-10-25T01:05:00Z"])
        #expect(try await f.store.upcomingReminders(forPatient: patientID, from: MT.utc("2026-10-25T01:00:00Z"),
                                                    until: MT.utc("2026-10-25T02:00:00Z"), timeZone: MT.madrid,
                                                    options: .dosesOnly).first?.snoozeCount == 2)

        // Refusals change nothing: the second 02:30 (CET) is not a dose, nor is 02:31;
        // a snooze past the standard maximum of 3; a logged dose; an unknown medication; a
        // medication whose doses come from a schedule.
        func code(_ body: @escaping () async throws -> Void) async -> (MedVaultError.Code?, String?) {
            let error = await MT.error(body)
            return (error?.code, error?.field)
        }
        #expect(await code { _ = try await f.store.schedules.snooze(medicationID: medication.id, doseAt: MT.utc("2026-10-25T01:30:00Z"),
                                                                    timeZone: MT.madrid) } == (.validation, "scheduledAt"))
        #expect(await code { _ = try await f.store.schedules.snooze(medicationID: medication.id, doseAt: dose.addingTimeInterval(60),
                                                                    timeZone: MT.madrid) } == (.validation, "scheduledAt"))
        _ = try await f.store.schedules.snooze(medicationID: medication.id, doseAt: dose, timeZone: MT.madrid)
        #expect(await code { _ = try await f.store.schedules.snooze(medicationID: medication.id, doseAt: dose,
                                                                    timeZone: MT.madrid) } == (.limitExceeded, "reminders.maximumSnoozes"))
        let next = MT.utc("2026-10-26T01:30:00Z")
        _ = try await f.store.doseLogs.create(DoseLog(medicationID: medication.id, scheduledAt: next, status: .skipped,
                                                      skipReason: .forgot))
        #expect(await code { _ = try await f.store.schedules.snooze(medicationID: medication.id, doseAt: next,
                                                                    timeZone: MT.madrid) }.0 == .duplicate)
        #expect(await code { _ = try await f.store.schedules.snooze(medicationID: UUID(), doseAt: dose,
                                                                    timeZone: MT.madrid) }.0 == .notFound)
        let scheduled = try await f.store.create(MT.medication(patientID: patientID, name: "Sertralina",
                                                               frequency: .specificTimes([TimeOfDay(hour: 2, minute: 30)])))
        _ = try await f.store.schedules.create(MedicationSchedule(
            medicationID: scheduled.id, times: [TimeOfDay(hour: 2, minute: 30)], timeZoneIdentifier: "Europe/Madrid"))
        #expect(await code { _ = try await f.store.schedules.snooze(medicationID: scheduled.id, doseAt: dose,
                                                                    timeZone: MT.madrid) } == (.validation, "scheduledAt"))
        let stored = try await f.store.schedules.snoozes(patientID: patientID, in: Date.distantPast..<Date.distantFuture)
        #expect(stored.map(\.count) == [3])
    }

    @Test(arguments: MedicationBackend.all)
    func lowStockAndRefillFireAtTheirThresholds(_ backend: MedicationBackend) async throws {
        // One tablet a day at 09:00 Madrid, ten in stock, minimum 4, over the fall-back.
        let start = MT.utc("2026-10-20T00:00:00Z")
        let f = try await backend.make(.fixed(start))
        let patientID = try await f.registerPatient()
        let medication = try await f.store.create(MT.medication(
            patientID: patientID, frequency: .specificTimes([TimeOfDay(hour: 9)]),
            inventory: MedicationInventory(current: 10, minimum: 4)))
        func events(from: Date, _ options: ReminderOptions = .standard) async throws -> [DoseReminder] {
            try await f.store.upcomingReminders(forPatient: patientID, from: from, until: from.addingTimeInterval(31 * 86_400),
                                                timeZone: MT.madrid, options: options)
                .filter { $0.kind == .lowStock || $0.kind == .refill }
        }
        // Doses from the 20th: the 6th (the 25th, after the change: 09:00 CET is 08:00Z)
        // leaves 4 tablets, the minimum. Ten doses are covered; the 30th cannot be: the
        // stock runs out that day, so 7 days before is the 23rd.
        let found = try await events(from: start)
        #expect(Self.summary(found) == ["refill 2026-10-23T07:00:00Z", "low-stock 2026-10-25T08:00:00Z"])
        #expect(found.allSatisfy { $0.medicationID == medication.id && $0.remindAt == $0.scheduledAt })
        #expect(Self.summary(try await events(from: start, ReminderOptions(refillLeadDays: 2))) == [
            "low-stock 2026-10-25T08:00:00Z", "refill 2026-10-28T08:00:00Z",
        ])
        #expect(try await events(from: start, ReminderOptions(refillLeadDays: nil, lowStock: false)).isEmpty)

        // The first dose taken, asked a day later: the same events, the same identifiers.
        _ = try await f.store.doseLogs.create(DoseLog(medicationID: medication.id, scheduledAt: MT.utc("2026-10-20T07:00:00Z"),
                                                      status: .taken, takenAt: MT.utc("2026-10-20T07:00:00Z")))
        let later = try await events(from: MT.utc("2026-10-21T00:00:00Z"))
        #expect(later.map(\.id) == found.map(\.id))

        // Three more taken (6 left) and asked on the 24th: inside the refill lead already
        // (the stock runs out on the 30th), so no refill event; low stock still on the 25th.
        func take(_ days: ClosedRange<Int>) async throws {
            _ = try await f.store.doseLogs.create(days.map { day in
                let at = MT.utc("2026-10-\(day)T07:00:00Z")
                return DoseLog(medicationID: medication.id, scheduledAt: at, status: .taken, takenAt: at)
            })
        }
        try await take(21...22)
        // Asked early on the refill day itself, the doses before it taken: the same event,
        // which fires later that day.
        #expect(try await events(from: MT.utc("2026-10-23T05:00:00Z")).first { $0.kind == .refill }?.id
                == found.first { $0.kind == .refill }?.id)
        try await take(23...23)
        #expect(Self.summary(try await events(from: MT.utc("2026-10-24T00:00:00Z"))) == ["low-stock 2026-10-25T08:00:00Z"])
        // At the minimum already: no low-stock event (it is in `lowInventory`).
        let low = try await f.store.create(MT.medication(
            patientID: patientID, name: "Omeprazol", frequency: .specificTimes([TimeOfDay(hour: 9)]),
            inventory: MedicationInventory(current: 4, minimum: 4)))
        #expect(try await events(from: start).allSatisfy { $0.medicationID != low.id }, "no event: low already, out within the lead")
    }

    @Test(arguments: MedicationBackend.all)
    func streaksOverAHandComputedMonth(_ backend: MedicationBackend) async throws {
        // March 2026 in Madrid, 08:00 and 20:00; the clocks go forward on the 29th. "Now" is
        // noon on the 31st: that evening's dose is still pending.
        let f = try await backend.make(.fixed(MT.utc("2026-03-31T10:00:00Z")))
        let patientID = try await f.registerPatient()
        let medication = try await f.store.create(MT.medication(
            patientID: patientID, frequency: .specificTimes([TimeOfDay(hour: 8), TimeOfDay(hour: 20)]), start: "2026-03-01"))
        var logs: [DoseLog] = []
        for dayNumber in 1...31 {
            let day = MT.day(String(format: "2026-03-%02d", dayNumber))
            for hour in [8, 20] {
                let at = MT.local(day, hour, 0, MT.madrid)
                switch (dayNumber, hour) {
                case (10, 20): logs.append(DoseLog(medicationID: medication.id, scheduledAt: at, status: .skipped,
                                                   skipReason: .sideEffects))
                case (21, 8): break  // never logged: missed
                case (31, 20): break  // pending
                case (15, 8): logs.append(DoseLog(medicationID: medication.id, scheduledAt: at, status: .taken,
                                                  takenAt: at.addingTimeInterval(3 * 3600)))  // late
                default: logs.append(DoseLog(medicationID: medication.id, scheduledAt: at, status: .taken, takenAt: at))
                }
            }
        }
        _ = try await f.store.doseLogs.create(logs)
        func streak(through day: Int, from first: Int = 1) async throws -> AdherenceStats {
            try await f.store.adherence(forMedication: medication.id, from: MT.day(String(format: "2026-03-%02d", first)),
                                        through: MT.day(String(format: "2026-03-%02d", day)), in: MT.madrid)
        }
        // By hand: 22nd–31st (the 31st taken and pending), 10 days; the 21st missed one;
        // 11th–20th (the 15th late), 10 days; the 10th skipped one; 1st–9th, 9 days.
        let month = try await streak(through: 31)
        #expect(month == AdherenceStats(expected: 61, taken: 58, late: 1, skipped: 1, missed: 1, pending: 1, streakDays: 10))
        #expect(try await streak(through: 30).streakDays == 9)
        #expect(try await streak(through: 21).streakDays == 0)
        #expect(try await streak(through: 20).streakDays == 10)
        #expect(try await streak(through: 10).streakDays == 0)
        #expect(try await streak(through: 9).streakDays == 9)
        #expect(try await streak(through: 31, from: 25).streakDays == 7, "only the period's days count")
        let patient = try await f.store.adherence(forPatient: patientID, from: MT.day("2026-03-01"),
                                                  through: MT.day("2026-03-31"), in: MT.madrid)
        #expect(patient.streakDays == 10)
    }
}
