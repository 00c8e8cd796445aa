import Foundation
import MedVaultCore
import Testing

/// The days-of-supply rule, pure: DST days, fractional doses, logged doses, the horizon.
@Suite struct SupplyForecastTests {
    static let newYork = TimeZone(identifier: "America/New_York") ?? .gmt

    func hourly(current: MedicationQuantity, amount: MedicationQuantity = 1) throws -> Medication {
        Medication(patientID: UUID(), name: "Hourly", dosage: Dosage(amount: amount, unit: .ml),
                   frequency: .everyNHours(1, startingAt: TimeOfDay(hour: 0)),
                   startDate: try CalendarDate(iso8601: "2026-01-01"), inventory: MedicationInventory(current: current))
    }

    /// 2026-03-08 00:00 EST in New York: clocks spring forward at 02:00, so hourly doses
    /// from 00:00 are 23 that day (02:00 does not exist and moves onto 03:00).
    static let springForwardMidnight = Date(timeIntervalSince1970: 1_772_946_000)  // 05:00Z

    @Test func theSpringForwardDayHasTwentyThreeHourlyDoses() throws {
        let now = Self.springForwardMidnight
        #expect(CalendarDate(now, in: Self.newYork).iso8601 == "2026-03-08")
        let covered = try #require(SupplyForecast.supply(of: try hourly(current: 23), schedules: [], logs: [],
                                                         now: now, in: Self.newYork))
        #expect(covered.coveredDoses == 23)
        #expect(covered.runOutDate?.iso8601 == "2026-03-09" && covered.daysOfSupply == 1)
        let short = try #require(SupplyForecast.supply(of: try hourly(current: 22), schedules: [], logs: [],
                                                       now: now, in: Self.newYork))
        #expect(short.runOutDate?.iso8601 == "2026-03-08" && short.daysOfSupply == 0)
    }

    @Test func fractionalDosesAndLoggedDoses() throws {
        let now = Self.springForwardMidnight
        let medication = try hourly(current: 1.2, amount: 0.5)
        // 00:00 and 01:00 are covered (1.0), 03:00 (the moved 02:00) is not: 0.2 left.
        let plain = try #require(SupplyForecast.supply(of: medication, schedules: [], logs: [], now: now, in: Self.newYork))
        #expect(plain.coveredDoses == 2 && plain.runOutDate?.iso8601 == "2026-03-08")
        // Logged doses are not counted again, whatever their status.
        let logs = (0..<23).map { hour in
            DoseLog(medicationID: medication.id, scheduledAt: now.addingTimeInterval(Double(hour) * 3600), status: .skipped)
        }
        let logged = try #require(SupplyForecast.supply(of: medication, schedules: [], logs: logs, now: now,
                                                        in: Self.newYork))
        #expect(logged.coveredDoses == 2 && logged.runOutDate?.iso8601 == "2026-03-09")
        // Another medication's logs are ignored.
        let foreign = logs.map { log in
            DoseLog(medicationID: UUID(), scheduledAt: log.scheduledAt, status: .skipped)
        }
        #expect(SupplyForecast.supply(of: medication, schedules: [], logs: foreign, now: now, in: Self.newYork) == plain)
    }

    @Test func untrackedEndedAndBeyondTheHorizon() throws {
        let now = Self.springForwardMidnight
        var untracked = try hourly(current: 1)
        untracked.inventory = nil
        #expect(SupplyForecast.supply(of: untracked, schedules: [], logs: [], now: now, in: Self.newYork) == nil)
        var ended = try hourly(current: 1)
        ended.endDate = try CalendarDate(iso8601: "2026-03-07")
        let none = try #require(SupplyForecast.supply(of: ended, schedules: [], logs: [], now: now, in: Self.newYork))
        #expect(none.coveredDoses == 0 && none.runOutDate == nil && none.daysOfSupply == nil)
        // 100 doses in a 2-day horizon (23 + 24 doses): lasts past it.
        let plenty = try #require(SupplyForecast.supply(of: try hourly(current: 100), schedules: [], logs: [],
                                                        now: now, in: Self.newYork, horizonDays: 2))
        #expect(plenty.coveredDoses == 47 && plenty.runOutDate == nil)
    }

    /// A taper counts each dose at its step's amount, not the medication's dose: 100 mg
    /// cover 40 + 40 + 20 (Friday to Sunday, across Madrid's spring change) and run out on
    /// Monday's 20; a log made with `takenLog(at:)` carries the step's amount too.
    @Test func aTaperCountsEachDoseAtItsStepAmount() throws {
        let madrid = TimeZone(identifier: "Europe/Madrid") ?? .gmt
        let day = { (text: String) in try CalendarDate(iso8601: text) }
        let medication = Medication(patientID: UUID(), name: "Prednisona", dosage: Dosage(amount: 10, unit: .mg),
                                    frequency: .timesPerDay(1), startDate: try day("2026-03-01"),
                                    inventory: MedicationInventory(current: 100))
        let schedule = MedicationSchedule(medicationID: medication.id, times: [TimeOfDay(hour: 9)],
                                          timeZoneIdentifier: madrid.identifier, taperSteps: [
            TaperStep(from: try day("2026-03-27"), through: try day("2026-03-28"), amount: 40),
            TaperStep(from: try day("2026-03-29"), through: try day("2026-03-30"), amount: 20),
            TaperStep(from: try day("2026-03-31"), through: nil, amount: 10),
        ])
        let now = LocalTime.startOfDay(try day("2026-03-27"), in: madrid)
        let supply = try #require(SupplyForecast.supply(of: medication, schedules: [schedule], logs: [], now: now,
                                                        in: madrid))
        #expect(supply.coveredDoses == 3)
        #expect(supply.runOutDate?.iso8601 == "2026-03-30" && supply.daysOfSupply == 3)

        let planned = ScheduledDose(medicationID: medication.id, scheduledAt: now, label: nil, status: .pending,
                                    log: nil, isExpected: true, amount: 40)
        let log = planned.takenLog(at: now.addingTimeInterval(600))
        #expect(log.amount == 40 && log.status == .taken && log.scheduledAt == now)
    }
}
