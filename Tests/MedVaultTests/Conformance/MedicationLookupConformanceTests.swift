import Foundation
import MedVaultCore
import Testing

/// The repository conventions medications share with the clinical records: `get`
/// throws `notFound`, `find` returns `nil`, parents missing are named, and every
/// backend throws the very same error values.
@Suite("Medication conformance: lookups and shared errors")
struct MedicationLookupConformanceTests {
    static let start = MT.utc("2026-05-10T10:00:00Z")
    static let notFound = MedVaultError(.notFound, reason: "no such record")

    @Test(arguments: MedicationBackend.all)
    func getReadsEveryRecordAndThrowsNotFoundForAnUnknownOne(_ backend: MedicationBackend) async throws {
        let f = try await backend.make(.fixed(Self.start))
        let patientID = try await f.registerPatient()
        let medication = try await f.store.create(MT.medication(patientID: patientID, inventory: MedicationInventory(current: 5)))
        let schedule = try await f.store.schedules.create(MedicationSchedule(
            medicationID: medication.id, times: [TimeOfDay(hour: 8)], timeZoneIdentifier: "Europe/Madrid"))
        let receipt = try await f.store.doseLogs.create(DoseLog(
            medicationID: medication.id, scheduledAt: Self.start, status: .taken, takenAt: Self.start))

        #expect(try await f.store.get(medication.id) == receipt.medication)
        #expect(try await f.store.schedules.get(schedule.id) == schedule)
        #expect(try await f.store.doseLogs.get(receipt.log.id) == receipt.log)

        #expect(await MT.error { _ = try await f.store.get(UUID()) } == Self.notFound)
        #expect(await MT.error { _ = try await f.store.schedules.get(UUID()) } == Self.notFound)
        #expect(await MT.error { _ = try await f.store.doseLogs.get(UUID()) } == Self.notFound)
        #expect(await MT.error { _ = try await f.store.deactivate(UUID()) } == Self.notFound)
        #expect(try await f.store.find(UUID()) == nil)
    }

    @Test(arguments: MedicationBackend.all)
    func aMissingMedicationIsNamedAsTheParent(_ backend: MedicationBackend) async throws {
        let f = try await backend.make(.fixed(Self.start))
        let unknown = UUID()
        let schedule = await MT.error {
            try await f.store.schedules.create(MedicationSchedule(
                medicationID: unknown, times: [TimeOfDay(hour: 8)], timeZoneIdentifier: "UTC"))
        }
        #expect(schedule == MedVaultError(.notFound, field: "medicationID", reason: "no such record"))
        let log = await MT.error {
            try await f.store.doseLogs.create(DoseLog(medicationID: unknown, scheduledAt: Self.start, status: .missed))
        }
        #expect(log == MedVaultError(.notFound, field: "medicationID", reason: "no such record"))
    }

    @Test(arguments: MedicationBackend.all)
    func duplicatesAndConflictsAreTheSharedErrors(_ backend: MedicationBackend) async throws {
        let f = try await backend.make(.fixed(Self.start))
        let medication = try await f.store.create(MT.medication(patientID: try await f.registerPatient()))
        let duplicate = MedVaultError(.duplicate, field: "id", reason: "a record with this id exists")
        #expect(await MT.error { try await f.store.create(medication) } == duplicate)
        let schedule = try await f.store.schedules.create(MedicationSchedule(
            medicationID: medication.id, times: [TimeOfDay(hour: 8)], timeZoneIdentifier: "UTC"))
        #expect(await MT.error { try await f.store.schedules.create(schedule) } == duplicate)
        let log = DoseLog(medicationID: medication.id, scheduledAt: Self.start, status: .missed)
        try await f.store.doseLogs.create(log)
        #expect(await MT.error { try await f.store.doseLogs.create(log) } == duplicate)
        let sameDose = DoseLog(medicationID: log.medicationID, scheduledAt: log.scheduledAt, status: .skipped)
        #expect(await MT.error { try await f.store.doseLogs.create(sameDose) }
                == MedVaultError(.duplicate, reason: "this dose is already logged"))

        let conflict = MedVaultError(.conflict, reason: "the record changed since it was read")
        try await f.store.update(medication)
        #expect(await MT.error { try await f.store.update(medication) } == conflict)
        try await f.store.schedules.update(schedule)
        #expect(await MT.error { try await f.store.schedules.update(schedule) } == conflict)
    }

    @Test(arguments: MedicationBackend.all)
    func deactivateTakesTheIdentifierAndCountsFollowTheFilter(_ backend: MedicationBackend) async throws {
        let f = try await backend.make(.fixed(Self.start))
        let patientID = try await f.registerPatient()
        let first = try await f.store.create(MT.medication(patientID: patientID, name: "A"))
        try await f.store.create(MT.medication(patientID: patientID, name: "B"))
        let inactive = try await f.store.deactivate(first.id)
        #expect(!inactive.isActive && inactive.version == 2)
        #expect(try await f.store.deactivate(first.id) == inactive)
        #expect(try await f.store.count(patientID: patientID) == 1)
        #expect(try await f.store.count(patientID: patientID, filter: .inactive) == 1)
        #expect(try await f.store.count(patientID: patientID, filter: .all) == 2)
        #expect(try await f.store.list(patientID: patientID).map(\.name) == ["B"])
    }
}
