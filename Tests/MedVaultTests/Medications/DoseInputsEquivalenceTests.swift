import Foundation
@testable import MedVault
import MedVaultCore
import Testing

/// The SQLCipher store's one-transaction `doseInputs` must return exactly what the
/// protocol's default implementation (three reads, as the in-memory store uses it)
/// returns on the same data, and so must everything built on it.
@Suite("Dose inputs: SQLCipher equals the default implementation")
struct DoseInputsEquivalenceTests {
    /// Two stores holding the same records: same identifiers, same timestamps.
    struct Twins {
        let memory: InMemoryMedicationStore
        let database: TemporaryMedicationDatabase
        var sql: SQLCipherMedicationStore { database.store }
        let patient = UUID()
        let other = UUID()
        var medications: [Medication] = []
    }

    static let start = MT.utc("2026-05-01T00:00:00Z")

    /// Writes the same records into both stores, moving their shared clock between writes.
    func twins() async throws -> Twins {
        let clock = MedicationTestClock(Self.start)
        let database = try await TemporaryMedicationDatabase(clock: clock.recordClock)
        var twins = Twins(memory: InMemoryMedicationStore(clock: clock.recordClock), database: database)
        _ = try await database.registerPatient(id: twins.patient)
        _ = try await database.registerPatient(id: twins.other)

        func both<Value: Equatable>(_ write: (any MedicationStore) async throws -> Value) async throws -> Value {
            clock.now = clock.now.addingTimeInterval(1)
            let a = try await write(twins.memory)
            let b = try await write(twins.sql)
            #expect(a == b)
            return a
        }
        let plans: [(UUID, MedicationFrequency, Bool)] = [
            (twins.patient, .specificTimes([TimeOfDay(hour: 8), TimeOfDay(hour: 21, minute: 30)]), true),
            (twins.patient, .timesPerDay(3), true),
            (twins.patient, .asNeeded, true),
            (twins.patient, .timesPerDay(1), false),
            (twins.other, .timesPerDay(2), true),
        ]
        for (index, (patient, frequency, active)) in plans.enumerated() {
            var medication = MT.medication(patientID: patient, name: "Medicamento \(index)", frequency: frequency,
                                           start: "2026-04-20")
            medication.isActive = active
            twins.medications.append(try await both { try await $0.create(medication) })
        }
        // Two schedules created at the same instant (identifier breaks the tie), in two zones.
        let sharedStamp = clock.now.addingTimeInterval(1)
        for (hour, zone) in [(9, MT.madrid), (22, MT.newYork)] {
            let schedule = MedicationSchedule(medicationID: twins.medications[0].id, times: [TimeOfDay(hour: hour)],
                                              daysOfWeek: [], timeZoneIdentifier: zone.identifier)
            clock.now = sharedStamp
            _ = try await twins.memory.schedules.create(schedule)
            _ = try await twins.sql.schedules.create(schedule)
        }
        // Logs over ten days for every medication, one as-needed intake, and logs of
        // the other patient at the very same instants.
        var logs: [DoseLog] = []
        for day in 0..<10 {
            for (index, medication) in twins.medications.enumerated() {
                let at = Self.start.addingTimeInterval(Double(day) * 86_400 + Double(8 + index) * 3600)
                let status: DoseStatus = [.taken, .late, .skipped, .missed][(day + index) % 4]
                logs.append(DoseLog(medicationID: medication.id, scheduledAt: at, status: status,
                                    takenAt: status == .taken || status == .late ? at.addingTimeInterval(600) : nil,
                                    skipReason: status == .skipped ? .forgot : nil))
            }
        }
        _ = try await both { try await $0.doseLogs.create(logs) }
        return twins
    }

    @Test func doseInputsAreEqualForEveryPatientMedicationAndRange() async throws {
        let t = try await twins()
        let ranges: [Range<Date>] = [
            Self.start..<Self.start.addingTimeInterval(86_400),
            Self.start.addingTimeInterval(3 * 86_400 + 0.0004)..<Self.start.addingTimeInterval(7 * 86_400 + 9 * 3600),
            Self.start.addingTimeInterval(-30 * 86_400)..<Self.start.addingTimeInterval(30 * 86_400),
            Self.start.addingTimeInterval(40 * 86_400)..<Self.start.addingTimeInterval(41 * 86_400),
        ]
        let medicationChoices: [UUID?] = [nil] + t.medications.map(\.id) + [UUID()]
        var compared = 0
        for patient in [t.patient, t.other, UUID()] {
            for medicationID in medicationChoices {
                for range in ranges {
                    let expected = try await t.memory.doseInputs(forPatient: patient, medicationID: medicationID, in: range)
                    let actual = try await t.sql.doseInputs(forPatient: patient, medicationID: medicationID, in: range)
                    #expect(actual == expected)
                    compared += expected.logs.count
                }
            }
        }
        #expect(compared > 100)  // the data is not trivially empty

        let all = try await t.sql.doseInputs(forPatient: t.patient, medicationID: nil, in: ranges[2])
        #expect(all.medications.count == 4 && all.schedules.count == 2 && all.logs.count == 40)
        // Another patient's medication yields nothing, not its logs.
        let foreign = try await t.sql.doseInputs(forPatient: t.patient, medicationID: t.medications[4].id, in: ranges[2])
        #expect(foreign == DoseInputs())
    }

    @Test func dosesAndAdherenceAreEqual() async throws {
        let t = try await twins()
        let stores: [any MedicationStore] = [t.memory, t.sql]
        for zone in [MT.madrid, MT.newYork] {
            for offset in [0, 4, 9] {
                let day = CalendarDate(Self.start, in: zone).adding(days: offset)
                var results: [[ScheduledDose]] = []
                var stats: [AdherenceStats] = []
                for store in stores {
                    results.append(try await store.doses(forPatient: t.patient, on: day, in: zone))
                    stats.append(try await store.adherence(forPatient: t.patient, from: day.adding(days: -3),
                                                           through: day, in: zone))
                    stats.append(try await store.adherence(forMedication: t.medications[0].id,
                                                           from: day.adding(days: -3), through: day, in: zone))
                }
                #expect(results[0] == results[1])
                #expect(!results[0].isEmpty)
                #expect(stats[0] == stats[2] && stats[1] == stats[3])
            }
        }
    }

    @Test func aMalformedStoredRowFailsTheSnapshotReadAsCorrupted() async throws {
        let t = try await twins()
        let range = Self.start..<Self.start.addingTimeInterval(86_400)
        let damage: [(sql: String, id: UUID, medicationID: UUID?)] = [
            ("UPDATE dose_log SET status = 'exploded' WHERE patient_id = ?", t.patient, nil),
            ("UPDATE medication SET frequency_kind = 'fortnightly' WHERE id = ?", t.medications[1].id, t.medications[1].id),
        ]
        for (sql, id, medicationID) in damage {
            try await t.database.pool.write { db in
                try db.execute("PRAGMA ignore_check_constraints = ON")
                try db.execute(sql, [id.vaultValue])
                try db.execute("PRAGMA ignore_check_constraints = OFF")
            }
            let error = await MT.error {
                _ = try await t.sql.doseInputs(forPatient: t.patient, medicationID: medicationID, in: range)
            }
            #expect(error?.code == .corrupted, "\(sql)")
        }
    }
}
