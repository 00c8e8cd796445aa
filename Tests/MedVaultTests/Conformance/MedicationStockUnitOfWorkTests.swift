import Foundation
import MedVault
import MedVaultCore
import MedVaultTestSupport
import Testing

/// Corrections, voids and refills inside a unit of work (`vault.write { tx in … }`), on both vaults.
@Suite("Unit of work conformance: dose-log corrections, voids and refills")
struct MedicationStockUnitOfWorkTests {
    typealias F = ClinicalFixtures

    @Test("A correction, a void and a refill commit together and read their own writes", arguments: VaultBackend.all)
    func commitTogether(backend: VaultBackend) async throws {
        let repos = try await backend.make(SteppingClock().recordClock)
        let patient = try await repos.patients.create(F.patient())
        let medication = try await repos.medications.create(MT.medication(
            patientID: patient.id, inventory: MedicationInventory(current: 10)))
        let at = MT.local(MT.day("2026-03-10"), 8, 0, MT.madrid)
        let skipped = try await repos.medications.doseLogs.create(
            DoseLog(medicationID: medication.id, scheduledAt: at, status: .skipped))
        let taken = try await repos.medications.doseLogs.create(
            DoseLog(medicationID: medication.id, scheduledAt: at.addingTimeInterval(3600), status: .taken,
                    takenAt: at.addingTimeInterval(3600)))
        let result = try await repos.writer.write { tx in
            let corrected = try tx.medications.doseLogs.correct(
                skipped.log.id, with: DoseLogCorrection(status: .taken, takenAt: at), expectedVersion: 1)
            #expect(corrected.medication.inventory?.current == 8)
            let voided = try tx.medications.doseLogs.void(taken.log.id, reason: "duplicado", expectedVersion: 1)
            #expect(voided.medication.inventory?.current == 9)
            let refill = try tx.medications.refills.create(
                MedicationRefill(medicationID: medication.id, quantity: 5, date: MT.day("2026-03-10")))
            #expect(try tx.medications.refills.list(medicationID: medication.id) == [refill.refill])
            #expect(try tx.medications.doseLogs.history(of: skipped.log.id).map(\.previous) == [skipped.log])
            #expect(try tx.medications.doseLogs.history(medicationID: medication.id).map(\.kind) == [.correction, .void])
            #expect(try tx.medications.get(medication.id) == refill.medication)
            #expect(try tx.medications.refills.get(refill.refill.id) == refill.refill)
            return refill.medication
        }
        #expect(result.inventory?.current == 14)
        #expect(try await repos.medications.get(medication.id) == result)
        #expect(try await repos.medications.doseLogs.get(skipped.log.id).status == .taken)
        await repos.close()
    }

    @Test("A unit that fails after a correction, a void and a refill leaves none of them", arguments: VaultBackend.all)
    func failureRollsBackAll(backend: VaultBackend) async throws {
        let repos = try await backend.make(SteppingClock().recordClock)
        let patient = try await repos.patients.create(F.patient())
        let medication = try await repos.medications.create(MT.medication(
            patientID: patient.id, inventory: MedicationInventory(current: 10)))
        let at = MT.local(MT.day("2026-03-10"), 8, 0, MT.madrid)
        let logged = try await repos.medications.doseLogs.create(
            DoseLog(medicationID: medication.id, scheduledAt: at, status: .taken, takenAt: at))
        await expectMedVaultError(.conflict) {
            try await repos.writer.write { tx in
                try tx.medications.refills.create(
                    MedicationRefill(medicationID: medication.id, quantity: 5, date: MT.day("2026-03-10")))
                try tx.medications.doseLogs.correct(
                    logged.log.id, with: DoseLogCorrection(status: .skipped), expectedVersion: 1)
                try tx.medications.doseLogs.void(logged.log.id, reason: nil, expectedVersion: 1)  // stale: version 2
            }
        }
        #expect(try await repos.medications.get(medication.id) == logged.medication)
        #expect(try await repos.medications.doseLogs.get(logged.log.id) == logged.log)
        #expect(try await repos.medications.doseLogs.history(of: logged.log.id).isEmpty)
        #expect(try await repos.medications.refills.list(medicationID: medication.id).isEmpty)
        await repos.close()
    }
}
