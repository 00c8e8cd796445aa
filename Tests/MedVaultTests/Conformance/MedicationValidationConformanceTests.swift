import Foundation
import MedVaultCore
import Testing

/// Every validation error, with its field, and the promise that no error message
/// carries a field value.
@Suite("Medication conformance: validation")
struct MedicationValidationConformanceTests {
    static let marker = "ZQX-MARKER-7731"

    /// A medication broken in one way, and the field the error must name.
    static let brokenMedications: [(field: String, change: @Sendable (inout Medication) -> Void)] = [
        ("name", { $0.name = "  \n" }),
        ("genericName", { $0.genericName = " " }),
        ("dosage.amount", { $0.dosage.amount = 0 }),
        ("dosage.amount", { $0.dosage.amount = -1.5 }),
        ("endDate", { $0.endDate = $0.startDate.adding(days: -1) }),
        ("frequency.timesPerDay", { $0.frequency = .timesPerDay(0) }),
        ("frequency.timesPerDay", { $0.frequency = .timesPerDay(25) }),
        ("frequency.hours", { $0.frequency = .everyNHours(0, startingAt: TimeOfDay(hour: 8)) }),
        ("frequency.hours", { $0.frequency = .everyNHours(25, startingAt: TimeOfDay(hour: 8)) }),
        ("frequency.startingAt", { $0.frequency = .everyNHours(8, startingAt: TimeOfDay(hour: 24)) }),
        ("frequency.times", { $0.frequency = .specificTimes([]) }),
        ("frequency.times", { $0.frequency = .specificTimes([TimeOfDay(hour: 8, minute: 60)]) }),
        ("frequency.times", { $0.frequency = .specificTimes([TimeOfDay(hour: -1)]) }),
        ("inventory.current", { $0.inventory = MedicationInventory(current: -1) }),
        ("inventory.minimum", { $0.inventory = MedicationInventory(current: 1, minimum: -1) }),
        ("inventory.packageSize", { $0.inventory = MedicationInventory(current: 1, packageSize: 0) }),
    ]

    @Test(arguments: MedicationBackend.all)
    func everyMedicationRuleNamesItsFieldOnCreateAndUpdate(_ backend: MedicationBackend) async throws {
        let f = try await backend.make(.fixed(MT.utc("2026-05-10T10:00:00Z")))
        let patientID = try await f.registerPatient()
        let valid = try await f.store.create(MT.medication(patientID: patientID, name: Self.marker))
        for (field, change) in Self.brokenMedications {
            var draft = MT.medication(patientID: patientID, name: Self.marker, genericName: Self.marker)
            change(&draft)
            let created = await MT.error { _ = try await f.store.create(draft) }
            #expect(created?.code == .validation, "\(field)")
            #expect(created?.field == field)
            #expect(try await f.store.find(draft.id) == nil)

            var edited = valid
            change(&edited)
            let updated = await MT.error { _ = try await f.store.update(edited) }
            #expect(updated?.field == field)
        }
        #expect(try await f.store.find(valid.id) == valid)

        var moved = valid
        moved.patientID = try await f.registerPatient()
        let move = await MT.error { _ = try await f.store.update(moved) }
        #expect(move?.code == .validation)
        #expect(move?.field == "patientID")
    }

    @Test(arguments: MedicationBackend.all)
    func scheduleRulesNameTheirField(_ backend: MedicationBackend) async throws {
        let f = try await backend.make(.fixed(MT.utc("2026-05-10T10:00:00Z")))
        let medication = try await f.store.create(MT.medication(patientID: try await f.registerPatient()))
        let cases: [(String, [TimeOfDay], String)] = [
            ("times", [], "Europe/Madrid"),
            ("times", [TimeOfDay(hour: 24, minute: 0)], "Europe/Madrid"),
            ("times", [TimeOfDay(hour: 23, minute: 60)], "Europe/Madrid"),
            ("timeZoneIdentifier", [TimeOfDay(hour: 8)], "Mars/\(Self.marker)"),
            ("timeZoneIdentifier", [TimeOfDay(hour: 8)], ""),
        ]
        for (field, times, zone) in cases {
            let schedule = MedicationSchedule(medicationID: medication.id, times: times, timeZoneIdentifier: zone)
            let error = await MT.error { _ = try await f.store.schedules.create(schedule) }
            #expect(error?.code == .validation)
            #expect(error?.field == field)
            #expect(error.map { !String(describing: $0).contains(Self.marker) } ?? false)
        }
        #expect(try await f.store.schedules.list(medicationID: medication.id).isEmpty)

        let stored = try await f.store.schedules.create(MedicationSchedule(
            medicationID: medication.id, times: [TimeOfDay(hour: 8, minute: 0), TimeOfDay(hour: 23, minute: 59)],
            timeZoneIdentifier: "Europe/Madrid"))
        var bad = stored
        bad.timeZoneIdentifier = "Nowhere/Atlantis"
        #expect(await MT.error { _ = try await f.store.schedules.update(bad) }?.field == "timeZoneIdentifier")
        var moved = stored
        moved.medicationID = UUID()
        #expect(await MT.error { _ = try await f.store.schedules.update(moved) }?.field == "medicationID")
    }

    @Test(arguments: MedicationBackend.all)
    func doseLogRulesNameTheirField(_ backend: MedicationBackend) async throws {
        let f = try await backend.make(.fixed(MT.utc("2026-05-10T10:00:00Z")))
        let medication = try await f.store.create(MT.medication(patientID: try await f.registerPatient()))
        let at = MT.utc("2026-05-10T06:00:00Z")
        let cases: [(String, DoseLog)] = [
            ("status", DoseLog(medicationID: medication.id, scheduledAt: at, status: .pending, notes: Self.marker)),
            ("takenAt", DoseLog(medicationID: medication.id, scheduledAt: at, status: .taken, notes: Self.marker)),
            ("takenAt", DoseLog(medicationID: medication.id, scheduledAt: at, status: .late)),
            ("takenAt", DoseLog(medicationID: medication.id, scheduledAt: at, status: .skipped, takenAt: at)),
            ("skipReason", DoseLog(medicationID: medication.id, scheduledAt: at, status: .taken, takenAt: at,
                                   skipReason: .forgot)),
        ]
        for (field, log) in cases {
            let error = await MT.error { _ = try await f.store.doseLogs.create(log) }
            #expect(error?.code == .validation)
            #expect(error?.field == field)
        }
        let unknown = await MT.error {
            _ = try await f.store.doseLogs.create(DoseLog(medicationID: UUID(), scheduledAt: at, status: .missed))
        }
        #expect(unknown?.code == .notFound)
        #expect(try await f.store.doseLogs.list(medicationID: medication.id, in: at.addingTimeInterval(-1)..<at.addingTimeInterval(1)).isEmpty)
    }

    @Test(arguments: MedicationBackend.all)
    func noErrorDescriptionContainsAFieldValue(_ backend: MedicationBackend) async throws {
        let f = try await backend.make(.fixed(MT.utc("2026-05-10T10:00:00Z")))
        let marker = Self.marker
        let patientID = try await f.registerPatient()
        var errors: [MedVaultError] = []
        func collect(_ body: () async throws -> Void) async {
            if let error = await MT.error(body) { errors.append(error) }
        }
        let stored = try await f.store.create(MT.medication(
            patientID: patientID, name: marker, genericName: marker, inventory: MedicationInventory(current: 1)))
        var withNotes = stored
        withNotes.instructions = marker
        _ = try await f.store.update(withNotes)                                                // version 2
        await collect { _ = try await f.store.create(stored) }                                // duplicate
        await collect { _ = try await f.store.update(stored) }                                // conflict
        await collect {
            var m = stored
            m.name = marker + " "
            m.endDate = m.startDate.adding(days: -3)
            _ = try await f.store.update(m)
        }                                                                                       // validation
        await collect { var m = stored; m.genericName = " "; _ = try await f.store.create(m) } // validation
        let log = DoseLog(medicationID: stored.id, scheduledAt: MT.utc("2026-05-10T06:00:00Z"),
                          status: .skipped, skipReason: SkipReason(marker), notes: marker)
        _ = try await f.store.doseLogs.create(log)
        await collect { _ = try await f.store.doseLogs.create(log) }                                      // duplicate id
        await collect {
            _ = try await f.store.doseLogs.create(DoseLog(medicationID: log.medicationID, scheduledAt: log.scheduledAt,
                                              status: .missed, notes: marker))
        }                                                                                       // duplicate dose
        await collect { _ = try await f.store.doseLogs.create(DoseLog(medicationID: stored.id, scheduledAt: .now,
                                                          status: .taken, notes: marker)) }   // validation
        #expect(errors.count == 7)
        for error in errors {
            #expect(!String(describing: error).contains(marker))
            #expect(!error.reason.contains(marker))
            #expect(!(error.field ?? "").contains(marker))
        }
    }
}
