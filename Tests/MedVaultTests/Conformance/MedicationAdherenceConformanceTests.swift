import Foundation
import MedVaultCore
import Testing

/// Adherence: a hand-computed week, and a year of history checked against an
/// independent computation.
@Suite("Medication conformance: adherence")
struct MedicationAdherenceConformanceTests {
    @Test(arguments: MedicationBackend.all)
    func aWeekOfMixedStatusesComputedByHand(_ backend: MedicationBackend) async throws {
        // Monday 2026-03-02 … Sunday 2026-03-08 (the day New York springs forward),
        // 08:00 and 20:00: 14 expected doses. Now: the next Monday at noon.
        let zone = MT.newYork
        let clock = MedicationTestClock(MT.local(MT.day("2026-03-09"), 12, 0, zone))
        let f = try await backend.make(clock.recordClock)
        let (patientID, medication) = try await f.medicationWithSchedule(
            [TimeOfDay(hour: 8), TimeOfDay(hour: 20)], zone: zone)
        let first = MT.day("2026-03-02")
        let last = MT.day("2026-03-08")
        var logs: [DoseLog] = []
        func at(_ offset: Int, _ hour: Int) -> Date { MT.local(first.adding(days: offset), hour, 0, zone) }
        func taken(_ offset: Int, _ hour: Int, after minutes: Double) {
            logs.append(DoseLog(medicationID: medication.id, scheduledAt: at(offset, hour), status: .taken,
                                takenAt: at(offset, hour).addingTimeInterval(minutes * 60)))
        }
        // 8 on time (one exactly at the end of the window), 2 late.
        for (offset, hour) in [(0, 8), (0, 20), (1, 8), (1, 20), (2, 8), (3, 8), (4, 20), (6, 8)] {
            taken(offset, hour, after: offset == 6 ? 60 : 5)
        }
        taken(2, 20, after: 61)
        taken(5, 8, after: 180)
        // 2 skipped, 1 logged missed; 4-08:00 never logged → missed.
        logs.append(DoseLog(medicationID: medication.id, scheduledAt: at(3, 20), status: .skipped, skipReason: .sideEffects))
        logs.append(DoseLog(medicationID: medication.id, scheduledAt: at(5, 20), status: .skipped, skipReason: .forgot))
        logs.append(DoseLog(medicationID: medication.id, scheduledAt: at(6, 20), status: .missed))
        // An off-schedule log and an as-needed medication do not count.
        logs.append(DoseLog(medicationID: medication.id, scheduledAt: at(2, 13), status: .taken, takenAt: at(2, 13)))
        let asNeeded = try await f.store.create(MT.medication(patientID: patientID, name: "Rescate", frequency: .asNeeded))
        logs.append(DoseLog(medicationID: asNeeded.id, scheduledAt: at(1, 15), status: .taken, takenAt: at(1, 15)))
        _ = try await f.store.doseLogs.create(logs)

        let expected = AdherenceStats(expected: 14, taken: 8, late: 2, skipped: 2, missed: 2, pending: 0)
        let byMedication = try await f.store.adherence(forMedication: medication.id, from: first, through: last, in: zone)
        let byPatient = try await f.store.adherence(forPatient: patientID, from: first, through: last, in: zone)
        #expect(byMedication == expected)
        #expect(byPatient == expected)
        #expect(byPatient.rate == 10.0 / 14.0)
        #expect(try await f.store.adherence(forMedication: asNeeded.id, from: first, through: last, in: zone).rate == nil)

        // A single day, with a pending dose: Monday 2026-03-09 at noon.
        _ = try await f.store.doseLogs.create(DoseLog(medicationID: medication.id, scheduledAt: MT.local(MT.day("2026-03-09"), 8, 0, zone),
                                          status: .taken, takenAt: MT.local(MT.day("2026-03-09"), 8, 0, zone)))
        let today = try await f.store.adherence(forPatient: patientID, from: MT.day("2026-03-09"), through: MT.day("2026-03-09"), in: zone)
        // Taken and pending: the day counts in the streak (the week's last day missed one).
        #expect(today == AdherenceStats(expected: 1, taken: 1, pending: 1, streakDays: 1))

        let future = try await f.store.adherence(forPatient: patientID, from: MT.day("2026-04-01"), through: MT.day("2026-04-02"), in: zone)
        #expect(future.expected == 0 && future.pending == 4 && future.rate == nil)
        let reversed = await MT.error {
            _ = try await f.store.adherence(forPatient: patientID, from: last, through: first, in: zone)
        }
        #expect(reversed?.code == .invalidArgument)
        let unknown = await MT.error {
            _ = try await f.store.adherence(forMedication: UUID(), from: first, through: last, in: zone)
        }
        #expect(unknown?.code == .notFound)
    }
}
