import Foundation
import MedVaultCore
import Testing

/// A day's doses: expansion, daylight saving, the grace window, and what makes a
/// medication expect nothing.
@Suite("Medication conformance: today's doses")
struct MedicationDoseConformanceTests {
    @Test(arguments: MedicationBackend.all)
    func springForwardAndFallBackGiveExactlyOneDose(_ backend: MedicationBackend) async throws {
        let clock = MedicationTestClock(MT.utc("2026-01-01T00:00:00Z"))
        let f = try await backend.make(clock.recordClock)
        let cases: [(TimeZone, String, TimeOfDay, String)] = [
            // Nonexistent 02:30 moves forward by the gap: 03:30 CEST.
            (MT.madrid, "2026-03-29", TimeOfDay(hour: 2, minute: 30), "2026-03-29T01:30:00Z"),
            // Repeated 02:30 takes its first occurrence: 02:30 CEST.
            (MT.madrid, "2026-10-25", TimeOfDay(hour: 2, minute: 30), "2026-10-25T00:30:00Z"),
            // Nonexistent 02:30 EST → 03:30 EDT.
            (MT.newYork, "2026-03-08", TimeOfDay(hour: 2, minute: 30), "2026-03-08T07:30:00Z"),
            // Repeated 01:30 → 01:30 EDT.
            (MT.newYork, "2026-11-01", TimeOfDay(hour: 1, minute: 30), "2026-11-01T05:30:00Z"),
        ]
        for (zone, date, time, expected) in cases {
            let (patientID, _) = try await f.medicationWithSchedule([time], zone: zone)
            let doses = try await f.store.doses(forPatient: patientID, on: MT.day(date), in: zone)
            #expect(doses.map(\.scheduledAt) == [MT.utc(expected)], "\(zone.identifier) \(date)")
            #expect(doses.map(\.status) == [.pending])
        }
    }

    @Test(arguments: MedicationBackend.all)
    func hourlyDosesFollowTheWallClockOnShortAndLongDays(_ backend: MedicationBackend) async throws {
        let f = try await backend.make(.fixed(MT.utc("2026-01-01T00:00:00Z")))
        let patientID = try await f.registerPatient()
        _ = try await f.store.create(MT.medication(
            patientID: patientID, frequency: .everyNHours(1, startingAt: TimeOfDay(hour: 0))))
        let short = try await f.store.doses(forPatient: patientID, on: MT.day("2026-03-29"), in: MT.madrid)
        let long = try await f.store.doses(forPatient: patientID, on: MT.day("2026-10-25"), in: MT.madrid)
        let usual = try await f.store.doses(forPatient: patientID, on: MT.day("2026-06-01"), in: MT.madrid)
        #expect(short.count == 23)   // 02:00 does not exist; it moves to 03:00, already a dose
        #expect(long.count == 24)    // 02:00 happens twice; only the first counts
        #expect(usual.count == 24)
        #expect(Set(short.map(\.scheduledAt)).count == 23)
    }

    @Test(arguments: MedicationBackend.all)
    func graceWindowTurnsPendingIntoMissedAndTakenIntoLate(_ backend: MedicationBackend) async throws {
        let today = MT.day("2026-05-11")
        let dueAt = MT.local(today, 8, 0, MT.newYork)
        let clock = MedicationTestClock(dueAt.addingTimeInterval(3599))
        let f = try await backend.make(clock.recordClock)
        let (patientID, medication) = try await f.medicationWithSchedule(
            [TimeOfDay(hour: 8), TimeOfDay(hour: 12), TimeOfDay(hour: 16)], zone: MT.newYork)
        func statuses(_ grace: Duration = .seconds(3600)) async throws -> [DoseStatus] {
            try await f.store.doses(forPatient: patientID, on: today, in: MT.newYork, graceWindow: grace).map(\.status)
        }
        #expect(try await statuses() == [.pending, .pending, .pending])
        clock.now = dueAt.addingTimeInterval(3600)            // exactly at the end of the window
        #expect(try await statuses() == [.pending, .pending, .pending])
        clock.now = Date(millisecondsSince1970: dueAt.millisecondsSince1970 + 3_600_001)
        #expect(try await statuses() == [.missed, .pending, .pending])
        #expect(try await statuses(.seconds(7200)) == [.pending, .pending, .pending])
        #expect(try await statuses(.zero) == [.missed, .pending, .pending])

        // Taken within the window: taken; after it: late (whatever "now" is).
        _ = try await f.store.doseLogs.create(DoseLog(medicationID: medication.id, scheduledAt: dueAt, status: .taken,
                                          takenAt: dueAt.addingTimeInterval(3600)))
        let noon = MT.local(today, 12, 0, MT.newYork)
        _ = try await f.store.doseLogs.create(DoseLog(medicationID: medication.id, scheduledAt: noon, status: .taken,
                                          takenAt: noon.addingTimeInterval(3601)))
        clock.now = MT.local(today, 23, 0, MT.newYork)
        let doses = try await f.store.doses(forPatient: patientID, on: today, in: MT.newYork)
        #expect(doses.map(\.status) == [.taken, .late, .missed])
        #expect(doses[0].log?.takenAt == dueAt.addingTimeInterval(3600))
        #expect(doses[2].log == nil)
        #expect(try await statuses(.seconds(7200)) == [.taken, .taken, .missed])

        let negative = await MT.error { _ = try await statuses(.seconds(-1)) }
        #expect(negative?.code == .invalidArgument)
    }

    @Test(arguments: MedicationBackend.all)
    func startEndDatesDaysOfWeekInactiveAndAsNeeded(_ backend: MedicationBackend) async throws {
        let f = try await backend.make(.fixed(MT.utc("2026-01-01T00:00:00Z")))
        let zone = MT.madrid
        // Monday, Wednesday, Friday only; treatment 2026-05-06 (Wed) … 2026-05-15 (Fri).
        let (patientID, medication) = try await f.medicationWithSchedule(
            [TimeOfDay(hour: 9, label: "Desayuno")], days: [.monday, .wednesday, .friday], zone: zone,
            medication: { MT.medication(patientID: $0, start: "2026-05-06", end: "2026-05-15") })
        var expectedDays: [String] = []
        var day = MT.day("2026-05-01")
        while day <= MT.day("2026-05-20") {
            let doses = try await f.store.doses(forPatient: patientID, on: day, in: zone)
            if !doses.isEmpty {
                expectedDays.append(day.iso8601)
                #expect(doses.map(\.label) == ["Desayuno"])
                #expect(doses.map(\.medicationID) == [medication.id])
            }
            day = day.adding(days: 1)
        }
        #expect(expectedDays == ["2026-05-06", "2026-05-08", "2026-05-11", "2026-05-13", "2026-05-15"])

        // As needed: no expected dose, but a logged intake is listed as unexpected.
        var asNeeded = MT.medication(patientID: patientID, name: "Paracetamol", frequency: .asNeeded)
        asNeeded = try await f.store.create(asNeeded)
        _ = try await f.store.schedules.create(MedicationSchedule(
            medicationID: asNeeded.id, times: [TimeOfDay(hour: 10)], timeZoneIdentifier: zone.identifier))
        let intake = MT.local(MT.day("2026-05-08"), 17, 45, zone)
        _ = try await f.store.doseLogs.create(DoseLog(medicationID: asNeeded.id, scheduledAt: intake, status: .taken, takenAt: intake))
        let friday = try await f.store.doses(forPatient: patientID, on: MT.day("2026-05-08"), in: zone)
        #expect(friday.map(\.isExpected) == [true, false])
        #expect(friday.last?.medicationID == asNeeded.id)
        #expect(friday.last?.status == .taken)

        // Inactive: nothing expected any more.
        _ = try await f.store.deactivate(medication.id)
        #expect(try await f.store.doses(forPatient: patientID, on: MT.day("2026-05-11"), in: zone).isEmpty)
    }

    @Test(arguments: MedicationBackend.all)
    func frequencyWithoutScheduleUsesTheQueryTimeZone(_ backend: MedicationBackend) async throws {
        let f = try await backend.make(.fixed(MT.utc("2026-01-01T00:00:00Z")))
        let patientID = try await f.registerPatient()
        _ = try await f.store.create(MT.medication(patientID: patientID, frequency: .timesPerDay(3)))
        _ = try await f.store.create(MT.medication(
            patientID: patientID, name: "Zz", frequency: .everyNHours(8, startingAt: TimeOfDay(hour: 6))))
        let day = MT.day("2026-07-01")
        let doses = try await f.store.doses(forPatient: patientID, on: day, in: MT.newYork)
        let expected = [(6, 0), (8, 0), (14, 0), (15, 0), (22, 0), (22, 0)].map { MT.local(day, $0.0, $0.1, MT.newYork) }
        #expect(doses.map(\.scheduledAt) == expected)
    }

    @Test(arguments: MedicationBackend.all)
    func logsOfADayAndHistoryUseHalfOpenRanges(_ backend: MedicationBackend) async throws {
        let f = try await backend.make(.fixed(MT.utc("2026-06-01T00:00:00Z")))
        let (patientID, medication) = try await f.medicationWithSchedule([TimeOfDay(hour: 0), TimeOfDay(hour: 23, minute: 59)],
                                                                         zone: MT.madrid)
        let day = MT.day("2026-05-20")
        let midnight = MT.local(day, 0, 0, MT.madrid)
        let nextMidnight = MT.local(day.adding(days: 1), 0, 0, MT.madrid)
        let late = MT.local(day, 23, 59, MT.madrid)
        let stored = try await f.store.doseLogs.create([midnight, late, nextMidnight].map {
            DoseLog(medicationID: medication.id, scheduledAt: $0.addingTimeInterval(0.0004), status: .missed)
        }).map(\.log)
        #expect(stored[0].scheduledAt == midnight)   // truncated to whole milliseconds
        #expect(try await f.store.doseLogs.list(patientID: patientID, on: day, in: MT.madrid) == Array(stored[0...1]))
        #expect(try await f.store.doseLogs.list(patientID: UUID(), on: day, in: MT.madrid).isEmpty)
        #expect(try await f.store.doseLogs.list(medicationID: medication.id, in: midnight..<nextMidnight) == Array(stored[0...1]))
        #expect(try await f.store.doseLogs.list(medicationID: medication.id, in: midnight..<nextMidnight.addingTimeInterval(0.001)) == stored)
    }
}
