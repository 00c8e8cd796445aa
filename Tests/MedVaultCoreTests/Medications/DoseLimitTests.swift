import Foundation
import MedVaultCore
import Testing

/// `DoseLimit`: no 24-hour window holds more than the maximum.
@Suite struct DoseLimitTests {
    let t0 = Date(timeIntervalSince1970: 1_780_000_000)

    func hours(_ h: Double) -> Date { t0.addingTimeInterval(h * 3600) }

    func refused(_ new: Date, _ taken: [Date], _ maximum: Int?) -> Bool {
        do {
            try DoseLimit.check(adding: new, to: taken, maximum: maximum)
            return false
        } catch let error as MedVaultError {
            #expect(error.code == .limitExceeded)
            #expect(error.field == "maximumDosesPer24Hours")
            return true
        } catch {
            Issue.record("unexpected \(error)")
            return true
        }
    }

    @Test func theDoseOverTheMaximumInAnyWindowIsRefused() {
        let taken = [hours(0), hours(6), hours(12)]
        #expect(refused(hours(18), taken, 3))               // 4 within [0, 24)
        #expect(!refused(hours(24), taken, 3))              // [6, 30): 6, 12, 24
        #expect(refused(hours(23.999), taken, 3))
        #expect(!refused(hours(18), taken, 4))
        #expect(!refused(hours(18), taken, nil))
        // A back-dated dose counts in the windows after it, too.
        #expect(refused(hours(-1), [hours(0), hours(10), hours(20)], 3))
        #expect(!refused(hours(-4.001), [hours(0), hours(10), hours(20)], 3))
        // Doses a day or more away do not count.
        #expect(!refused(hours(0), [hours(-24), hours(24)], 1))
        #expect(refused(hours(0), [hours(-23.9)], 1))
    }
}

/// `ReminderPlanner`: which doses get a reminder, when, and snooze rules.
@Suite struct ReminderPlannerTests {
    let medicationID = UUID()
    let t = Date(timeIntervalSince1970: 1_780_000_000)

    @Test func leadTimeLogsAndSnoozes() throws {
        let schedule = MedicationSchedule(medicationID: medicationID, times: [TimeOfDay(hour: 8)], timeZoneIdentifier: "UTC",
                                          reminders: ReminderSettings(leadMinutes: 15, snoozeMinutes: 5, maximumSnoozes: 2))
        let doses = (0..<3).map {
            ExpectedDose(medicationID: medicationID, scheduledAt: t.addingTimeInterval(Double($0) * 3600), scheduleID: schedule.id)
        }
        let log = DoseLog(medicationID: medicationID, scheduledAt: doses[1].scheduledAt, status: .skipped)
        let snooze = try ReminderPlanner.snoozed(medicationID: medicationID, scheduledAt: doses[2].scheduledAt,
                                                 existing: nil, settings: schedule.reminders, now: t.addingTimeInterval(7000))
        #expect(snooze.count == 1 && snooze.snoozedUntil == t.addingTimeInterval(7300))
        let reminders = ReminderPlanner.reminders(expected: doses, schedules: [schedule], logs: [log], snoozes: [snooze],
                                                  in: t.addingTimeInterval(-3600)..<t.addingTimeInterval(7300))
        // The first at its lead time; the second logged; the third snoozed to the window's end (excluded).
        #expect(reminders.map(\.remindAt) == [t.addingTimeInterval(-900)])
        let later = ReminderPlanner.reminders(expected: doses, schedules: [schedule], logs: [log], snoozes: [snooze],
                                              in: t..<t.addingTimeInterval(8000))
        #expect(later.map(\.remindAt) == [t.addingTimeInterval(7300)])
        #expect(later.first?.snoozeCount == 1)

        let second = try ReminderPlanner.snoozed(medicationID: medicationID, scheduledAt: doses[2].scheduledAt,
                                                 existing: snooze, settings: schedule.reminders, now: t.addingTimeInterval(7300))
        #expect(second.count == 2)
        #expect(throws: MedVaultError.self) {
            _ = try ReminderPlanner.snoozed(medicationID: medicationID, scheduledAt: doses[2].scheduledAt,
                                            existing: second, settings: schedule.reminders, now: t)
        }
    }
}
