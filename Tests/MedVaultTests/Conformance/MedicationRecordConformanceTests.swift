import Foundation
import MedVaultCore
import Testing

/// Records, versioning, lists, search and validation: the same expectations for
/// every medication backend.
@Suite("Medication conformance: records")
struct MedicationRecordConformanceTests {
    static let start = MT.utc("2026-05-10T10:00:00Z")

    func fixture(_ backend: MedicationBackend) async throws -> (MedicationFixture, MedicationTestClock) {
        let clock = MedicationTestClock(Self.start)
        return (try await backend.make(clock.recordClock), clock)
    }

    @Test(arguments: MedicationBackend.all)
    func createStampsVersionOneAndReadsBackEqual(_ backend: MedicationBackend) async throws {
        let (f, _) = try await fixture(backend)
        let patientID = try await f.registerPatient()
        let draft = MT.medication(
            patientID: patientID, genericName: "Ibuprofen",
            inventory: MedicationInventory(current: 20, minimum: 5, packageSize: 20, expirationDate: MT.day("2027-01-31"))
        )
        let stored = try await f.store.create(draft)
        #expect(stored.version == 1)
        #expect(stored.createdAt == Self.start)
        #expect(stored.updatedAt == Self.start)
        #expect(try await f.store.find(draft.id) == stored)
        #expect(try await f.store.find(UUID()) == nil)

        let duplicate = await MT.error { _ = try await f.store.create(draft) }
        #expect(duplicate?.code == .duplicate)
    }

    @Test(arguments: MedicationBackend.all)
    func unknownCategoricalValuesRoundTrip(_ backend: MedicationBackend) async throws {
        let (f, _) = try await fixture(backend)
        var draft = MT.medication(patientID: try await f.registerPatient())
        draft.form = MedicationForm("lozenge")
        draft.route = AdministrationRoute("transdermal")
        draft.dosage = Dosage(amount: 0.025, unit: DosageUnit("mcg-ish"))
        let stored = try await f.store.create(draft)
        let read = try #require(try await f.store.find(stored.id))
        #expect(read.form.rawValue == "lozenge")
        #expect(read.route.rawValue == "transdermal")
        #expect(read.dosage.unit.rawValue == "mcg-ish")
        #expect(read.dosage.amount == MedicationQuantity(thousandths: 25))
    }

    @Test(arguments: MedicationBackend.all)
    func updateBumpsVersionAndRefusesStaleVersion(_ backend: MedicationBackend) async throws {
        let (f, clock) = try await fixture(backend)
        let stored = try await f.store.create(MT.medication(patientID: try await f.registerPatient()))
        clock.now = Self.start.addingTimeInterval(60)
        var edited = stored
        edited.instructions = "Con comida"
        let updated = try await f.store.update(edited)
        #expect(updated.version == 2)
        #expect(updated.updatedAt == Self.start.addingTimeInterval(60))
        #expect(updated.createdAt == Self.start)

        var stale = stored
        stale.instructions = "Stale write"
        let conflict = await MT.error { _ = try await f.store.update(stale) }
        #expect(conflict?.code == .conflict)
        #expect(try await f.store.find(stored.id) == updated)

        let missing = await MT.error { _ = try await f.store.update(MT.medication(patientID: UUID())) }
        #expect(missing?.code == .notFound)
    }

    @Test(arguments: MedicationBackend.all)
    func listFiltersAndDeactivate(_ backend: MedicationBackend) async throws {
        let (f, _) = try await fixture(backend)
        let patientID = try await f.registerPatient()
        let other = try await f.registerPatient()
        let b = try await f.store.create(MT.medication(patientID: patientID, name: "Omeprazol"))
        let a = try await f.store.create(MT.medication(patientID: patientID, name: "Ácido fólico"))
        let c = try await f.store.create(MT.medication(patientID: patientID, name: "atorvastatina"))
        _ = try await f.store.create(MT.medication(patientID: other, name: "Paracetamol"))

        #expect(try await f.store.list(patientID: patientID, filter: .active).map(\.id) == [a.id, c.id, b.id])
        let deactivated = try await f.store.deactivate(c.id)
        #expect(deactivated.isActive == false)
        #expect(deactivated.version == 2)
        #expect(try await f.store.deactivate(c.id).version == 2)
        #expect(try await f.store.list(patientID: patientID, filter: .active).map(\.id) == [a.id, b.id])
        #expect(try await f.store.list(patientID: patientID, filter: .inactive).map(\.id) == [c.id])
        #expect(try await f.store.list(patientID: patientID, filter: .all).map(\.id) == [a.id, c.id, b.id])

        let missing = await MT.error { _ = try await f.store.deactivate(UUID()) }
        #expect(missing?.code == .notFound)
    }

    @Test(arguments: MedicationBackend.all)
    func searchIgnoresCaseAndAccentsByTokenPrefix(_ backend: MedicationBackend) async throws {
        let (f, _) = try await fixture(backend)
        let patientID = try await f.registerPatient()
        let other = try await f.registerPatient()
        let aspirin = try await f.store.create(MT.medication(
            patientID: patientID, name: "Adiro", genericName: "Ácido acetilsalicílico"))
        let ibuprofen = try await f.store.create(MT.medication(patientID: patientID, name: "IBUPROFÉNO Cinfa"))
        let othersAspirin = try await f.store.create(MT.medication(
            patientID: other, name: "Aspirina", genericName: "acido acetilsalicilico"))

        #expect(try await f.store.search("acido", patientID: patientID).map(\.id) == [aspirin.id])
        #expect(try await f.store.search("ÁCIDO ACETIL", patientID: patientID).map(\.id) == [aspirin.id])
        #expect(try await f.store.search("ibuprofeno", patientID: patientID).map(\.id) == [ibuprofen.id])
        #expect(try await f.store.search("cinf", patientID: patientID).map(\.id) == [ibuprofen.id])
        #expect(try await f.store.search("salicilico", patientID: patientID).isEmpty)  // not a token prefix
        #expect(try await f.store.search("  ,. ", patientID: patientID).isEmpty)
        // A hostile query: thousands of repeated words reach the index as two.
        let repeated = Array(repeating: "acido acetil", count: 4_000).joined(separator: " ")
        #expect(try await f.store.search(repeated, patientID: patientID).map(\.id) == [aspirin.id])
        let longer = repeated + " " + (0..<40).map { "w\($0)" }.joined(separator: " ")
        #expect(try await f.store.search(longer, patientID: patientID).isEmpty, "w0…w29 count, and match nothing")
        #expect(Set(try await f.store.search("acetilsalicilico", patientID: nil).map(\.id)) == [aspirin.id, othersAspirin.id])
    }

    @Test(arguments: MedicationBackend.all)
    func schedulesCreateUpdateList(_ backend: MedicationBackend) async throws {
        let (f, clock) = try await fixture(backend)
        let patientID = try await f.registerPatient()
        let medication = try await f.store.create(MT.medication(patientID: patientID))
        let first = try await f.store.schedules.create(MedicationSchedule(
            medicationID: medication.id, times: [TimeOfDay(hour: 8, label: "Desayuno")],
            daysOfWeek: [.monday, .friday], timeZoneIdentifier: "Europe/Madrid"))
        clock.now = Self.start.addingTimeInterval(1)
        let second = try await f.store.schedules.create(MedicationSchedule(
            medicationID: medication.id, times: [TimeOfDay(hour: 21)], timeZoneIdentifier: "America/New_York"))
        #expect(first.version == 1)
        #expect(try await f.store.schedules.list(medicationID: medication.id) == [first, second])
        #expect(try await f.store.schedules.list(patientID: patientID) == [first, second])
        #expect(try await f.store.schedules.list(patientID: UUID()).isEmpty)

        var edited = first
        edited.times.append(TimeOfDay(hour: 14, minute: 30))
        let updated = try await f.store.schedules.update(edited)
        #expect(updated.version == 2)
        #expect(try await f.store.schedules.list(medicationID: medication.id).first == updated)

        let conflict = await MT.error { _ = try await f.store.schedules.update(edited) }
        #expect(conflict?.code == .conflict)
        let duplicate = await MT.error { _ = try await f.store.schedules.create(first) }
        #expect(duplicate?.code == .duplicate)
        let unknownMedication = await MT.error {
            _ = try await f.store.schedules.create(MedicationSchedule(
                medicationID: UUID(), times: [TimeOfDay(hour: 8)], timeZoneIdentifier: "Europe/Madrid"))
        }
        #expect(unknownMedication?.code == .notFound)
        let unknownSchedule = await MT.error {
            _ = try await f.store.schedules.update(MedicationSchedule(
                medicationID: medication.id, times: [TimeOfDay(hour: 8)], timeZoneIdentifier: "Europe/Madrid"))
        }
        #expect(unknownSchedule?.code == .notFound)
    }
}
