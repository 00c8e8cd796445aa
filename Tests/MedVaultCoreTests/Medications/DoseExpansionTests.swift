import Foundation
import MedVaultCore
import Testing

@Suite struct DoseExpansionTests {
    static let madrid = TimeZone(identifier: "Europe/Madrid") ?? .gmt
    static let newYork = TimeZone(identifier: "America/New_York") ?? .gmt

    func medication(_ frequency: MedicationFrequency, start: String = "2026-01-01", end: String? = nil,
                    active: Bool = true) throws -> Medication {
        Medication(patientID: UUID(), name: "M", dosage: Dosage(amount: 1, unit: .tablets), frequency: frequency,
                   startDate: try CalendarDate(iso8601: start), endDate: try end.map { try CalendarDate(iso8601: $0) },
                   isActive: active)
    }

    func day(_ text: String, _ zone: TimeZone) throws -> Range<Date> {
        let date = try CalendarDate(iso8601: text)
        return LocalTime.interval(from: date, through: date, in: zone)
    }

    @Test func frequencyTimes() {
        func text(_ f: MedicationFrequency) -> [String] { DoseExpansion.times(for: f).map(\.description) }
        #expect(text(.timesPerDay(1)) == ["08:00"])
        #expect(text(.timesPerDay(2)) == ["08:00", "22:00"])
        #expect(text(.timesPerDay(3)) == ["08:00", "15:00", "22:00"])
        #expect(text(.timesPerDay(4)) == ["08:00", "12:40", "17:20", "22:00"])
        #expect(DoseExpansion.times(for: .timesPerDay(24)).count == 24)
        #expect(text(.everyNHours(8, startingAt: TimeOfDay(hour: 6))) == ["06:00", "14:00", "22:00"])
        #expect(text(.everyNHours(5, startingAt: TimeOfDay(hour: 8))) == ["04:00", "08:00", "13:00", "18:00", "23:00"])
        #expect(text(.everyNHours(24, startingAt: TimeOfDay(hour: 21, minute: 15))) == ["21:15"])
        #expect(text(.specificTimes([TimeOfDay(hour: 20), TimeOfDay(hour: 7), TimeOfDay(hour: 25)])) == ["07:00", "20:00"])
        #expect(text(.asNeeded).isEmpty)
        #expect(text(.timesPerDay(0)).isEmpty)
        #expect(text(.everyNHours(0, startingAt: TimeOfDay(hour: 6))).isEmpty)
    }

    @Test func gapTimeThatLandsOnAnExistingTimeIsOneDose() throws {
        let m = try medication(.timesPerDay(1))
        let schedule = MedicationSchedule(medicationID: m.id, times: [TimeOfDay(hour: 2, minute: 30, label: "first"),
                                                                    TimeOfDay(hour: 3, minute: 30, label: "second")],
                                          timeZoneIdentifier: "Europe/Madrid")
        let doses = DoseExpansion.expectedDoses(for: m, schedules: [schedule], in: try day("2026-03-29", Self.madrid),
                                                fallbackTimeZone: .gmt)
        #expect(doses.count == 1)
        #expect(doses.first?.label == "first")
        let usual = DoseExpansion.expectedDoses(for: m, schedules: [schedule], in: try day("2026-03-30", Self.madrid),
                                                fallbackTimeZone: .gmt)
        #expect(usual.count == 2)
    }

    @Test func scheduleZoneAndQueryZoneDiffer() throws {
        // 09:00 Madrid = 03:00 New York in June: on the New York day 2026-06-10, the dose
        // is Madrid's 2026-06-10 09:00; Madrid's 2026-06-11 09:00 is New York's 11th.
        let m = try medication(.timesPerDay(1))
        let schedule = MedicationSchedule(medicationID: m.id, times: [TimeOfDay(hour: 9)], timeZoneIdentifier: "Europe/Madrid")
        let doses = DoseExpansion.expectedDoses(for: m, schedules: [schedule], in: try day("2026-06-10", Self.newYork),
                                                fallbackTimeZone: Self.newYork)
        #expect(doses.map(\.scheduledAt) == [LocalTime.instant(on: try CalendarDate(iso8601: "2026-06-10"),
                                                                minutesSinceMidnight: 540, in: Self.madrid)])
        // Another medication's schedule, or an unknown zone, is ignored.
        let foreign = MedicationSchedule(medicationID: UUID(), times: [TimeOfDay(hour: 9)], timeZoneIdentifier: "Europe/Madrid")
        let broken = MedicationSchedule(medicationID: m.id, times: [TimeOfDay(hour: 9)], timeZoneIdentifier: "No/Where")
        #expect(DoseExpansion.expectedDoses(for: m, schedules: [foreign], in: try day("2026-06-10", Self.newYork),
                                            fallbackTimeZone: Self.newYork).count == 1)  // falls back to frequency
        #expect(DoseExpansion.expectedDoses(for: m, schedules: [broken], in: try day("2026-06-10", Self.newYork),
                                            fallbackTimeZone: Self.newYork).isEmpty)
    }

    @Test func treatmentDatesInactiveAndAsNeeded() throws {
        let range = try day("2026-05-01", Self.madrid).lowerBound..<(try day("2026-05-10", Self.madrid)).upperBound
        let bounded = try medication(.timesPerDay(2), start: "2026-05-03", end: "2026-05-05")
        #expect(DoseExpansion.expectedDoses(for: bounded, schedules: [], in: range, fallbackTimeZone: Self.madrid).count == 6)
        let inactive = try medication(.timesPerDay(2), active: false)
        #expect(DoseExpansion.expectedDoses(for: inactive, schedules: [], in: range, fallbackTimeZone: Self.madrid).isEmpty)
        let asNeeded = try medication(.asNeeded)
        let schedule = MedicationSchedule(medicationID: asNeeded.id, times: [TimeOfDay(hour: 9)], timeZoneIdentifier: "Europe/Madrid")
        #expect(DoseExpansion.expectedDoses(for: asNeeded, schedules: [schedule], in: range, fallbackTimeZone: Self.madrid).isEmpty)
    }
}
