import Foundation
import MedVaultCore
import Testing

/// Every-N-days, tapering and per-time amounts across daylight-saving changes in
/// Europe/Madrid and America/New_York, against hand-computed UTC instants.
@Suite struct RegimenExpansionTests {
    static let madrid = TimeZone(identifier: "Europe/Madrid") ?? .gmt
    static let newYork = TimeZone(identifier: "America/New_York") ?? .gmt

    static func date(_ text: String) -> CalendarDate {
        (try? CalendarDate(iso8601: text)) ?? CalendarDate(dayNumber: 0)
    }

    static func utc(_ text: String) -> Date {
        ISO8601DateFormatter().date(from: text) ?? Date(timeIntervalSince1970: 0)
    }

    let medication = Medication(patientID: UUID(), name: "M", dosage: Dosage(amount: 1, unit: .tablets),
                                frequency: .timesPerDay(1), startDate: date("2026-01-01"))

    func doses(_ schedule: MedicationSchedule, from first: String, through last: String,
               in zone: TimeZone) -> [ExpectedDose] {
        DoseExpansion.expectedDoses(
            for: medication, schedules: [schedule],
            in: LocalTime.interval(from: Self.date(first), through: Self.date(last), in: zone), fallbackTimeZone: .gmt)
    }

    func schedule(_ times: [TimeOfDay], _ zone: TimeZone, interval: DayInterval? = nil,
                  taper: [TaperStep] = []) -> MedicationSchedule {
        MedicationSchedule(medicationID: medication.id, times: times, timeZoneIdentifier: zone.identifier,
                           interval: interval, taperSteps: taper)
    }

    @Test func everyOtherDayAcrossMadridSpringForward() throws {
        // Every 2 days from Friday 2026-03-27; clocks jump 02:00 → 03:00 on Sunday the 29th.
        let s = schedule([TimeOfDay(hour: 2, minute: 30), TimeOfDay(hour: 8)], Self.madrid,
                         interval: DayInterval(days: 2, startDate: Self.date("2026-03-27")))
        _ = try s.validated()
        let got = doses(s, from: "2026-03-25", through: "2026-04-01", in: Self.madrid).map(\.scheduledAt)
        #expect(got == [
            "2026-03-27T01:30:00Z", "2026-03-27T07:00:00Z",  // CET
            "2026-03-29T01:30:00Z", "2026-03-29T06:00:00Z",  // 02:30 does not exist: 03:30 CEST
            "2026-03-31T00:30:00Z", "2026-03-31T06:00:00Z",  // CEST
        ].map(Self.utc))
    }

    @Test func everyThirdDayAcrossNewYorkSpringForward() {
        let s = schedule([TimeOfDay(hour: 8)], Self.newYork,
                         interval: DayInterval(days: 3, startDate: Self.date("2026-03-05")))
        let got = doses(s, from: "2026-03-01", through: "2026-03-12", in: Self.newYork).map(\.scheduledAt)
        #expect(got == ["2026-03-05T13:00:00Z", "2026-03-08T12:00:00Z", "2026-03-11T12:00:00Z"].map(Self.utc))
    }

    @Test func taperStepsAcrossMadridSpringForward() {
        let s = schedule([TimeOfDay(hour: 9)], Self.madrid, taper: [
            TaperStep(from: Self.date("2026-03-27"), through: Self.date("2026-03-28"), amount: 40),
            TaperStep(from: Self.date("2026-03-29"), through: Self.date("2026-03-30"), amount: 20),
            TaperStep(from: Self.date("2026-03-31"), through: Self.date("2026-04-01"), amount: 10),
        ])
        let got = doses(s, from: "2026-03-26", through: "2026-04-02", in: Self.madrid)
        #expect(got.map(\.scheduledAt) == [
            "2026-03-27T08:00:00Z", "2026-03-28T08:00:00Z", "2026-03-29T07:00:00Z",
            "2026-03-30T07:00:00Z", "2026-03-31T07:00:00Z", "2026-04-01T07:00:00Z",
        ].map(Self.utc))
        #expect(got.map(\.amount) == [40, 40, 20, 20, 10, 10])
        #expect(got.allSatisfy { $0.scheduleID == s.id })
    }

    @Test func taperAcrossNewYorkFallBackTakesTheFirstOccurrence() {
        // 01:30 happens twice on 2026-11-01: the first (EDT) is the dose.
        let s = schedule([TimeOfDay(hour: 1, minute: 30)], Self.newYork, taper: [
            TaperStep(from: Self.date("2026-10-31"), through: Self.date("2026-10-31"), amount: 3),
            TaperStep(from: Self.date("2026-11-01"), through: nil, amount: 2),
        ])
        let got = doses(s, from: "2026-10-30", through: "2026-11-02", in: Self.newYork)
        #expect(got.map(\.scheduledAt) == ["2026-10-31T05:30:00Z", "2026-11-01T05:30:00Z", "2026-11-02T06:30:00Z"]
            .map(Self.utc))
        #expect(got.map(\.amount) == [3, 2, 2])
    }

    @Test func perTimeAmountsAcrossMadridFallBack() {
        let s = schedule([TimeOfDay(hour: 20, amount: 1), TimeOfDay(hour: 8, amount: 2)], Self.madrid)
        let got = doses(s, from: "2026-10-24", through: "2026-10-25", in: Self.madrid)
        #expect(got.map(\.scheduledAt) == ["2026-10-24T06:00:00Z", "2026-10-24T18:00:00Z",
                                           "2026-10-25T07:00:00Z", "2026-10-25T19:00:00Z"].map(Self.utc))
        #expect(got.map(\.amount) == [2, 1, 2, 1])
    }

    @Test func perTimeAmountsAcrossNewYorkSpringForward() {
        let s = schedule([TimeOfDay(hour: 8, amount: 2), TimeOfDay(hour: 20, amount: 0.5)], Self.newYork)
        let got = doses(s, from: "2026-03-07", through: "2026-03-08", in: Self.newYork)
        #expect(got.map(\.scheduledAt) == ["2026-03-07T13:00:00Z", "2026-03-08T01:00:00Z",
                                           "2026-03-08T12:00:00Z", "2026-03-09T00:00:00Z"].map(Self.utc))
        #expect(got.map(\.amount) == [2, 0.5, 2, 0.5])
    }

    @Test func effectiveRangePausesAndWeekdaysCombine() {
        var s = schedule([TimeOfDay(hour: 12)], .gmt, interval: DayInterval(days: 1, startDate: Self.date("2026-01-01")))
        s.effectiveFrom = Self.date("2026-05-02")
        s.effectiveUntil = Self.date("2026-05-12")
        s.pauses = [SchedulePause(from: Self.date("2026-05-05"), through: Self.date("2026-05-06"))]
        s.daysOfWeek = [.monday, .tuesday, .wednesday, .thursday, .friday]  // 2026-05-02 is a Saturday
        let got = doses(s, from: "2026-05-01", through: "2026-05-31", in: .gmt).map { CalendarDate($0.scheduledAt, in: .gmt).iso8601 }
        #expect(got == ["2026-05-04", "2026-05-07", "2026-05-08", "2026-05-11", "2026-05-12"])
    }

    @Test func anInactiveMedicationKeepsItsDosesBeforeDeactivation() {
        var m = medication
        m.isActive = false
        m.deactivatedAt = Self.utc("2026-05-03T10:00:00Z")
        let s = MedicationSchedule(medicationID: m.id, times: [TimeOfDay(hour: 8), TimeOfDay(hour: 12)], timeZoneIdentifier: "UTC")
        let range = LocalTime.interval(from: Self.date("2026-05-02"), through: Self.date("2026-05-04"), in: .gmt)
        let got = DoseExpansion.expectedDoses(for: m, schedules: [s], in: range, fallbackTimeZone: .gmt).map(\.scheduledAt)
        #expect(got == ["2026-05-02T08:00:00Z", "2026-05-02T12:00:00Z", "2026-05-03T08:00:00Z"].map(Self.utc))
        m.deactivatedAt = nil  // deactivated before the instant was recorded: nothing, as before
        #expect(DoseExpansion.expectedDoses(for: m, schedules: [s], in: range, fallbackTimeZone: .gmt).isEmpty)
    }

    @Test func invalidRegimensAreRefusedNamingTheField() {
        let cases: [(String, (inout MedicationSchedule) -> Void)] = [
            ("effectiveUntil", { (s: inout MedicationSchedule) in
                s.effectiveFrom = RegimenExpansionTests.date("2026-05-02"); s.effectiveUntil = RegimenExpansionTests.date("2026-05-01") }),
            ("pauses", { (s: inout MedicationSchedule) in s.pauses = [
                SchedulePause(from: RegimenExpansionTests.date("2026-05-01"), through: nil),
                SchedulePause(from: RegimenExpansionTests.date("2026-05-09"), through: RegimenExpansionTests.date("2026-05-10"))] }),
            ("pauses", { (s: inout MedicationSchedule) in
                s.pauses = [SchedulePause(from: RegimenExpansionTests.date("2026-05-02"), through: RegimenExpansionTests.date("2026-05-01"))] }),
            ("interval.days", { (s: inout MedicationSchedule) in s.interval = DayInterval(days: 0, startDate: RegimenExpansionTests.date("2026-05-01")) }),
            ("taperSteps", { (s: inout MedicationSchedule) in s.taperSteps = [
                TaperStep(from: RegimenExpansionTests.date("2026-05-01"), through: RegimenExpansionTests.date("2026-05-05"), amount: 2),
                TaperStep(from: RegimenExpansionTests.date("2026-05-05"), through: nil, amount: 1)] }),
            ("taperSteps.amount", { (s: inout MedicationSchedule) in
                s.taperSteps = [TaperStep(from: RegimenExpansionTests.date("2026-05-01"), through: nil, amount: 0)] }),
            ("times.amount", { (s: inout MedicationSchedule) in s.times = [TimeOfDay(hour: 8, amount: -1)] }),
            ("times.amount", { (s: inout MedicationSchedule) in
                s.times = [TimeOfDay(hour: 8, amount: 2)]
                s.taperSteps = [TaperStep(from: RegimenExpansionTests.date("2026-05-01"), through: nil, amount: 1)] }),
            ("reminders.leadMinutes", { (s: inout MedicationSchedule) in s.reminders.leadMinutes = 1441 }),
            ("reminders.snoozeMinutes", { (s: inout MedicationSchedule) in s.reminders.snoozeMinutes = 0 }),
            ("reminders.maximumSnoozes", { (s: inout MedicationSchedule) in s.reminders.maximumSnoozes = 11 }),
        ]
        for (field, change) in cases {
            check(field, change)
        }
    }

    func check(_ field: String, _ change: (inout MedicationSchedule) -> Void) {
        var s = schedule([TimeOfDay(hour: 8)], .gmt)
        change(&s)
        do {
            _ = try s.validated()
            Issue.record("an invalid \(field) was accepted")
        } catch let error as MedVaultError {
            #expect(error.code == .validation)
            #expect(error.field == field)
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}
