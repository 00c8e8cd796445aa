import Foundation
import MedVaultCore
import Testing

/// A year of 4 medications × 3 doses a day (≈ 4,400 doses, two daylight-saving
/// changes), logged in one batch; adherence and today's doses must match an
/// independent computation that uses plain UTC-offset arithmetic, not `LocalTime`.
@Suite("Medication conformance: one year of history")
struct MedicationHistoryConformanceTests {
    static let first = MT.day("2025-07-01")
    static let last = MT.day("2026-06-30")
    /// 12:30 CEST on the last day.
    static let now = MT.utc("2026-06-30T10:30:00Z")

    /// Madrid's UTC offset in hours for a wall time, with the documented rules:
    /// summer time until 2025-10-26 03:00 (02:xx that day is read as its first,
    /// summer occurrence) and from 2026-03-29 03:00 (02:xx that day does not exist
    /// and is read with the winter offset, i.e. moved forward by the gap).
    static func madridOffset(_ day: CalendarDate, _ hour: Int) -> Int {
        let fallBack = MT.day("2025-10-26"), springForward = MT.day("2026-03-29")
        if day < fallBack { return 2 }
        if day == fallBack { return hour < 3 ? 2 : 1 }
        if day < springForward { return 1 }
        if day == springForward { return hour < 3 ? 1 : 2 }
        return 2
    }

    static func instant(_ day: CalendarDate, _ hour: Int, _ minute: Int) -> Date {
        let seconds = day.dayNumber * 86_400 + (hour * 60 + minute) * 60 - madridOffset(day, hour) * 3600
        return Date(timeIntervalSince1970: Double(seconds))
    }

    /// What the test does with the dose number `k`: minutes after its time it was
    /// taken (`nil`: not taken), or skipped / logged missed / not logged.
    enum Plan { case taken(minutes: Double), skipped, loggedMissed, unlogged }

    static func plan(_ k: Int) -> Plan {
        switch (k * 37 + k / 10) % 10 {
        case 0...5: .taken(minutes: 10)
        case 6: .taken(minutes: 60)       // on time, at the edge of the window
        case 7: .taken(minutes: 90)       // late
        case 8: .skipped
        default: k % 2 == 0 ? .loggedMissed : .unlogged
        }
    }

    @Test(arguments: MedicationBackend.all)
    func adherenceAndTodayMatchAnIndependentComputation(_ backend: MedicationBackend) async throws {
        let f = try await backend.make(.fixed(Self.now))
        let patientID = try await f.registerPatient()
        let start = "2025-07-01"
        let a = try await f.store.create(MT.medication(patientID: patientID, name: "A", start: start))
        let b = try await f.store.create(MT.medication(patientID: patientID, name: "B", frequency: .timesPerDay(3), start: start))
        let c = try await f.store.create(MT.medication(
            patientID: patientID, name: "C", frequency: .everyNHours(8, startingAt: TimeOfDay(hour: 6)), start: start))
        let d = try await f.store.create(MT.medication(patientID: patientID, name: "D", start: start))
        for (medication, hours) in [(a, [(8, 0), (14, 0), (20, 0)]), (d, [(2, 30), (12, 0), (18, 0)])] {
            _ = try await f.store.schedules.create(MedicationSchedule(
                medicationID: medication.id, times: hours.map { TimeOfDay(hour: $0.0, minute: $0.1) },
                timeZoneIdentifier: "Europe/Madrid"))
        }
        let plans: [(Medication, [(Int, Int)])] = [
            (a, [(8, 0), (14, 0), (20, 0)]), (b, [(8, 0), (15, 0), (22, 0)]),
            (c, [(6, 0), (14, 0), (22, 0)]), (d, [(2, 30), (12, 0), (18, 0)]),
        ]

        // Independent expectation and the logs to write.
        struct Outcome: Hashable { var medication: UUID; var at: Date; var status: DoseStatus }
        var outcomes: [Outcome] = []
        var logs: [DoseLog] = []
        var k = 0
        var day = Self.first
        while day <= Self.last {
            for (medication, times) in plans {
                for (hour, minute) in times {
                    defer { k += 1 }
                    let at = Self.instant(day, hour, minute)
                    var plan = Self.plan(k)
                    if at > Self.now.addingTimeInterval(-7200) { plan = .unlogged }  // recent or future
                    let status: DoseStatus
                    switch plan {
                    case .taken(let minutes):
                        status = minutes > 60 ? .late : .taken
                        logs.append(DoseLog(medicationID: medication.id, scheduledAt: at, status: .taken,
                                            takenAt: at.addingTimeInterval(minutes * 60)))
                    case .skipped:
                        status = .skipped
                        logs.append(DoseLog(medicationID: medication.id, scheduledAt: at, status: .skipped, skipReason: .forgot))
                    case .loggedMissed:
                        status = .missed
                        logs.append(DoseLog(medicationID: medication.id, scheduledAt: at, status: .missed))
                    case .unlogged:
                        status = Self.now > at.addingTimeInterval(3600) ? .missed : .pending
                    }
                    outcomes.append(Outcome(medication: medication.id, at: at, status: status))
                }
            }
            day = day.adding(days: 1)
        }
        #expect(outcomes.count == 365 * 12)
        #expect(logs.count > 4_000)

        let clock = ContinuousClock()
        let logging = try await clock.measure { _ = try await f.store.doseLogs.create(logs) }

        func stats(_ outcomes: some Sequence<Outcome>) -> AdherenceStats {
            var s = AdherenceStats()
            for outcome in outcomes {
                switch outcome.status {
                case .taken: s.taken += 1
                case .late: s.late += 1
                case .skipped: s.skipped += 1
                case .missed: s.missed += 1
                case .pending: s.pending += 1
                }
            }
            s.expected = s.taken + s.late + s.skipped + s.missed
            // The streak, by Foundation's calendar: Madrid days, newest first, until one
            // with a skipped or missed dose; days with only pending doses pass.
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = MT.madrid
            let days = Dictionary(grouping: outcomes) { calendar.startOfDay(for: $0.at) }
            for start in days.keys.sorted(by: >) {
                let statuses = Set(days[start]!.map(\.status))
                if !statuses.isDisjoint(with: [.skipped, .missed]) { break }
                if !statuses.isDisjoint(with: [.taken, .late]) { s.streakDays += 1 }
            }
            return s
        }

        var yearStats = AdherenceStats()
        let adherence = try await clock.measure {
            yearStats = try await f.store.adherence(forPatient: patientID, from: Self.first, through: Self.last, in: MT.madrid)
        }
        #expect(yearStats == stats(outcomes))
        #expect(yearStats.late > 0 && yearStats.skipped > 0 && yearStats.missed > 0 && yearStats.pending > 0)

        let onlyD = try await f.store.adherence(forMedication: d.id, from: Self.first, through: Self.last, in: MT.madrid)
        #expect(onlyD == stats(outcomes.filter { $0.medication == d.id }))

        // October 2025, with the fall-back day: a calendar-range slice.
        let octStart = Self.instant(MT.day("2025-10-01"), 0, 0), octEnd = Self.instant(MT.day("2025-11-01"), 0, 0)
        let october = try await f.store.adherence(
            forPatient: patientID, from: MT.day("2025-10-01"), through: MT.day("2025-10-31"), in: MT.madrid)
        #expect(october == stats(outcomes.filter { $0.at >= octStart && $0.at < octEnd }))
        #expect(october.expected == 31 * 12)

        var todays: [ScheduledDose] = []
        let today = try await clock.measure {
            todays = try await f.store.doses(forPatient: patientID, on: Self.last, in: MT.madrid)
        }
        let lastStart = Self.instant(Self.last, 0, 0)
        let expectedToday = outcomes.filter { $0.at >= lastStart }
        #expect(Set(todays.map { Outcome(medication: $0.medicationID, at: $0.scheduledAt, status: $0.status) })
                == Set(expectedToday))
        #expect(todays.count == 12)
        #expect(todays.map(\.scheduledAt) == todays.map(\.scheduledAt).sorted())

        print("[\(backend.name)] 1-year history: batch log of \(logs.count) doses \(logging), "
              + "year adherence \(adherence), today's doses \(today)")
    }
}
