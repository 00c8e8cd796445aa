import Foundation
import MedVaultCore
import Testing

/// Strength separate from the dose, refill events, and days of supply (#19), on both stores.
@Suite("Medication conformance: strength, refills and days of supply")
struct MedicationRefillConformanceTests {
    // Monday 2026-05-11, 10:00 UTC = 12:00 CEST in Madrid.
    static let now = MT.utc("2026-05-11T10:00:00Z")

    @Test("Strength is stored apart from the dose; the stock counts units of form", arguments: MedicationBackend.all)
    func strength(_ backend: MedicationBackend) async throws {
        let f = try await backend.make(.fixed(Self.now))
        var metformin = MT.medication(patientID: try await f.registerPatient(), amount: 2,
                                      inventory: MedicationInventory(current: 60))
        metformin.strength = MedicationStrength(amount: 850, unit: .mg)
        let stored = try await f.store.create(metformin)
        #expect(try await f.store.get(stored.id).strength == MedicationStrength(amount: 850, unit: .mg))
        #expect(stored.strengthPerDose == MedicationStrength(amount: 1700, unit: .mg))
        let at = MT.utc("2026-05-11T06:00:00Z")
        let receipt = try await f.store.doseLogs.create(
            DoseLog(medicationID: stored.id, scheduledAt: at, status: .taken, takenAt: at))
        #expect(receipt.medication.inventory?.current == 58)   // two tablets, not 1700

        var bad = metformin
        bad.strength = MedicationStrength(amount: 0, unit: .mg)
        let error = await MT.error { _ = try await f.store.create(MedicationStrengthCopy.withNewID(bad)) }
        #expect(error?.code == .validation && error?.field == "strength.amount")
        var cleared = try await f.store.get(stored.id)
        cleared.strength = nil
        #expect(try await f.store.update(cleared).strength == nil)
        #expect(try await f.store.get(stored.id).strength == nil)
    }

    @Test("A refill adds its quantity and expiration to the stock, is kept and listed", arguments: MedicationBackend.all)
    func refill(_ backend: MedicationBackend) async throws {
        let f = try await backend.make(.fixed(Self.now))
        let medication = try await f.store.create(MT.medication(
            patientID: try await f.registerPatient(), inventory: MedicationInventory(current: 3, minimum: 5)))
        let first = try await f.store.refills.create(MedicationRefill(
            medicationID: medication.id, quantity: 30, date: MT.day("2026-05-11"),
            expirationDate: MT.day("2027-06-30"), notes: "farmacia"))
        #expect(first.refill.version == 1 && first.refill.createdAt == Self.now)
        #expect(first.medication.inventory == MedicationInventory(current: 33, minimum: 5,
                                                                  expirationDate: MT.day("2027-06-30")))
        #expect(first.medication.version == medication.version + 1)
        #expect(try await f.store.get(medication.id) == first.medication)
        let earlier = try await f.store.refills.create(MedicationRefill(
            medicationID: medication.id, quantity: 0.5, date: MT.day("2026-05-01")))
        #expect(earlier.medication.inventory?.current == 33.5)
        #expect(earlier.medication.inventory?.expirationDate == MT.day("2027-06-30"))
        #expect(try await f.store.refills.list(medicationID: medication.id) == [earlier.refill, first.refill])
        #expect(try await f.store.refills.get(first.refill.id) == first.refill)
        #expect(try await f.store.lowInventory(forPatient: medication.patientID).isEmpty)
    }

    @Test("A refill of an untracked medication starts its inventory", arguments: MedicationBackend.all)
    func refillStartsTracking(_ backend: MedicationBackend) async throws {
        let f = try await backend.make(.fixed(Self.now))
        let medication = try await f.store.create(MT.medication(patientID: try await f.registerPatient()))
        let receipt = try await f.store.refills.create(
            MedicationRefill(medicationID: medication.id, quantity: 20, date: MT.day("2026-05-11")))
        #expect(receipt.medication.inventory == MedicationInventory(current: 20))
    }

    @Test("A hostile refill quantity saturates the stock instead of overflowing", arguments: MedicationBackend.all)
    func hugeRefill(_ backend: MedicationBackend) async throws {
        let f = try await backend.make(.fixed(Self.now))
        let medication = try await f.store.create(MT.medication(
            patientID: try await f.registerPatient(), inventory: MedicationInventory(current: 3)))
        let huge = MedicationQuantity(thousandths: .max)
        let receipt = try await f.store.refills.create(
            MedicationRefill(medicationID: medication.id, quantity: huge, date: MT.day("2026-05-11")))
        #expect(receipt.medication.inventory?.current == huge)
        #expect(try await f.store.get(medication.id).inventory?.current == huge)
        let again = try await f.store.refills.create(
            MedicationRefill(medicationID: medication.id, quantity: huge, date: MT.day("2026-05-11")))
        #expect(again.medication.inventory?.current == huge)
    }

    @Test("A bad refill throws and changes nothing", arguments: MedicationBackend.all)
    func badRefill(_ backend: MedicationBackend) async throws {
        let f = try await backend.make(.fixed(Self.now))
        let medication = try await f.store.create(MT.medication(
            patientID: try await f.registerPatient(), inventory: MedicationInventory(current: 3)))
        let zero = await MT.error {
            _ = try await f.store.refills.create(MedicationRefill(medicationID: medication.id, quantity: 0,
                                                                  date: MT.day("2026-05-11")))
        }
        #expect(zero?.code == .validation && zero?.field == "quantity")
        let unknown = await MT.error {
            _ = try await f.store.refills.create(MedicationRefill(medicationID: UUID(), quantity: 1,
                                                                  date: MT.day("2026-05-11")))
        }
        #expect(unknown?.code == .notFound && unknown?.field == "medicationID")
        let kept = try await f.store.refills.create(MedicationRefill(medicationID: medication.id, quantity: 1,
                                                                     date: MT.day("2026-05-11")))
        let duplicate = await MT.error { _ = try await f.store.refills.create(kept.refill) }
        #expect(duplicate?.code == .duplicate)
        #expect(try await f.store.get(medication.id) == kept.medication)
        #expect(try await f.store.refills.list(medicationID: medication.id) == [kept.refill])
        #expect(await MT.error { _ = try await f.store.refills.get(UUID()) }?.code == .notFound)
    }

    /// A mixed regimen: 08:00 and 20:00 every day, plus 14:00 on Mondays and Thursdays,
    /// in Madrid; one tablet a dose.
    ///
    /// Hand computation from Monday 12:00 CEST with 8 tablets after the 08:00 dose was
    /// taken, the 14:00 dose logged as skipped: Mon 20, Tue 08 20, Wed 08 20, Thu 08 14
    /// 20 are the 8 covered doses; Fri 08:00 is the first not covered. Run-out Friday
    /// 2026-05-15, 4 days of supply. A refill of 4 covers Fri 08 20, Sat 08 20: run-out
    /// Sunday 2026-05-17, 6 days.
    @Test("Days of supply and run-out date of a mixed regimen match the hand computation",
          arguments: MedicationBackend.all)
    func supply(_ backend: MedicationBackend) async throws {
        let f = try await backend.make(.fixed(Self.now))
        let monday = MT.day("2026-05-11")
        let (_, medication) = try await f.medicationWithSchedule(
            [TimeOfDay(hour: 8), TimeOfDay(hour: 20)], zone: MT.madrid,
            medication: { MT.medication(patientID: $0, inventory: MedicationInventory(current: 9)) })
        try await f.store.schedules.create(MedicationSchedule(
            medicationID: medication.id, times: [TimeOfDay(hour: 14)], daysOfWeek: [.monday, .thursday],
            timeZoneIdentifier: MT.madrid.identifier))
        let eight = MT.local(monday, 8, 0, MT.madrid), two = MT.local(monday, 14, 0, MT.madrid)
        try await f.store.doseLogs.create(DoseLog(medicationID: medication.id, scheduledAt: eight, status: .taken,
                                                  takenAt: eight))
        try await f.store.doseLogs.create(DoseLog(medicationID: medication.id, scheduledAt: two, status: .skipped))

        let supply = try #require(try await f.store.supply(forMedication: medication.id, in: MT.madrid))
        #expect(supply == MedicationSupply(medicationID: medication.id, stock: 8, coveredDoses: 8,
                                           daysOfSupply: 4, runOutDate: MT.day("2026-05-15")))
        try await f.store.refills.create(MedicationRefill(medicationID: medication.id, quantity: 4, date: monday))
        let refilled = try #require(try await f.store.supply(forMedication: medication.id, in: MT.madrid))
        #expect(refilled.runOutDate == MT.day("2026-05-17") && refilled.daysOfSupply == 6)
        #expect(refilled.coveredDoses == 12)

        // Beyond the horizon: no run-out date.
        let week = try #require(try await f.store.supply(forMedication: medication.id, in: MT.madrid, horizonDays: 3))
        #expect(week.runOutDate == nil && week.daysOfSupply == nil)
        #expect(await MT.error { _ = try await f.store.supply(forMedication: medication.id, in: MT.madrid,
                                                              horizonDays: 0) }?.code == .invalidArgument)
        #expect(await MT.error { _ = try await f.store.supply(forMedication: UUID(), in: MT.madrid) }?.code == .notFound)
    }

    @Test("Without an inventory there is no supply; as needed, the stock never runs out",
          arguments: MedicationBackend.all)
    func supplyWithoutPlan(_ backend: MedicationBackend) async throws {
        let f = try await backend.make(.fixed(Self.now))
        let patientID = try await f.registerPatient()
        let untracked = try await f.store.create(MT.medication(patientID: patientID))
        #expect(try await f.store.supply(forMedication: untracked.id, in: MT.madrid) == nil)
        let asNeeded = try await f.store.create(MT.medication(
            patientID: patientID, frequency: .asNeeded, inventory: MedicationInventory(current: 1)))
        let supply = try await f.store.supply(forMedication: asNeeded.id, in: MT.madrid)
        #expect(supply == MedicationSupply(medicationID: asNeeded.id, stock: 1, coveredDoses: 0,
                                           daysOfSupply: nil, runOutDate: nil))
    }
}

/// A copy of a medication under a new identifier.
enum MedicationStrengthCopy {
    static func withNewID(_ medication: Medication) -> Medication {
        Medication(patientID: medication.patientID, name: medication.name, dosage: medication.dosage,
                   strength: medication.strength, frequency: medication.frequency, startDate: medication.startDate,
                   inventory: medication.inventory)
    }
}
