import Foundation
import MedVaultCore
import Testing

/// Dose-log corrections and voids (#19): the inventory follows, adherence follows, the
/// previous value is kept, and bad input changes nothing. Run against both stores.
@Suite("Medication conformance: dose-log corrections and voids")
struct MedicationCorrectionConformanceTests {
    // Monday 2026-05-11, 10:00 UTC (12:00 in Madrid): the 08:00 dose is past its grace window.
    static let now = MT.utc("2026-05-11T10:00:00Z")
    static let day = MT.day("2026-05-11")

    func setUp(_ backend: MedicationBackend, current: MedicationQuantity = 10)
        async throws -> (MedicationFixture, UUID, Medication, Date)
    {
        let f = try await backend.make(.fixed(Self.now))
        let (patientID, medication) = try await f.medicationWithSchedule(
            [TimeOfDay(hour: 8)], zone: MT.madrid,
            medication: { MT.medication(patientID: $0, inventory: MedicationInventory(current: current)) })
        return (f, patientID, medication, MT.local(Self.day, 8, 0, MT.madrid))
    }

    func adherence(_ f: MedicationFixture, _ id: UUID) async throws -> AdherenceStats {
        try await f.store.adherence(forMedication: id, from: Self.day, through: Self.day, in: MT.madrid)
    }

    @Test("A mistaken skipped corrected to taken takes the dose from the stock, reads as taken, keeps the old value",
          arguments: MedicationBackend.all)
    func skippedCorrectedToTaken(_ backend: MedicationBackend) async throws {
        let (f, _, medication, at) = try await setUp(backend)
        let logged = try await f.store.doseLogs.create(
            DoseLog(medicationID: medication.id, scheduledAt: at, status: .skipped, skipReason: .forgot))
        #expect(logged.medication.inventory?.current == 10)
        #expect(try await adherence(f, medication.id) == AdherenceStats(expected: 1, skipped: 1))

        let receipt = try await f.store.doseLogs.correct(
            logged.log.id, with: DoseLogCorrection(status: .taken, takenAt: at.addingTimeInterval(300),
                                                   reason: "pressed the wrong button"),
            expectedVersion: 1)
        #expect(receipt.log.status == .taken && receipt.log.version == 2 && receipt.log.amount == 1)
        #expect(receipt.log.skipReason == nil && receipt.log.scheduledAt == at)
        #expect(receipt.medication.inventory?.current == 9)
        // The stock is derived from the logs (MedicationStockLedger): a correction changes
        // the cached stock, not the medication record, whose version stays.
        #expect(receipt.medication.version == medication.version)
        #expect(try await f.store.get(medication.id) == receipt.medication)
        #expect(try await f.store.doseLogs.get(logged.log.id) == receipt.log)
        #expect(try await adherence(f, medication.id) == AdherenceStats(expected: 1, taken: 1, streakDays: 1))

        let history = try await f.store.doseLogs.history(of: logged.log.id)
        #expect(history.count == 1)
        #expect(history.first?.kind == .correction)
        #expect(history.first?.previous == logged.log)
        #expect(history.first?.reason == "pressed the wrong button")
        #expect(history.first?.recordedAt == Self.now)
        #expect(try await f.store.doseLogs.history(medicationID: medication.id) == history)

        // Back to skipped: the dose returns to the stock, and both previous values are kept.
        let back = try await f.store.doseLogs.correct(
            logged.log.id, with: DoseLogCorrection(status: .skipped, skipReason: .sideEffects), expectedVersion: 2)
        #expect(back.medication.inventory?.current == 10 && back.log.amount == nil)
        #expect(try await f.store.doseLogs.history(of: logged.log.id).map(\.previous) == [logged.log, receipt.log])
    }

    @Test("Voiding a taken log gives the dose back, frees the dose for a new log and keeps the voided value",
          arguments: MedicationBackend.all)
    func voidTaken(_ backend: MedicationBackend) async throws {
        let (f, patientID, medication, at) = try await setUp(backend)
        let logged = try await f.store.doseLogs.create(
            DoseLog(medicationID: medication.id, scheduledAt: at, status: .taken, takenAt: at, amount: 2))
        #expect(logged.medication.inventory?.current == 8 && logged.log.amount == 2)

        let voided = try await f.store.doseLogs.void(logged.log.id, reason: "logged for the wrong day",
                                                     expectedVersion: 1)
        #expect(voided.log == logged.log)
        #expect(voided.medication.inventory?.current == 10)
        #expect(voided.medication.version == logged.medication.version)   // the stock is derived: same version
        #expect(await MT.error { _ = try await f.store.doseLogs.get(logged.log.id) }?.code == .notFound)
        #expect(try await f.store.doseLogs.list(patientID: patientID, in: at..<at.addingTimeInterval(1)).isEmpty)
        // Unlogged and past its grace window: missed again.
        #expect(try await adherence(f, medication.id) == AdherenceStats(expected: 1, missed: 1))
        let history = try await f.store.doseLogs.history(of: logged.log.id)
        #expect(history.map(\.kind) == [.void] && history.first?.previous == logged.log)
        #expect(history.first?.reason == "logged for the wrong day")

        // The (medication, instant) key is free: the dose can be logged again.
        let again = try await f.store.doseLogs.create(
            DoseLog(medicationID: medication.id, scheduledAt: at, status: .late, takenAt: at.addingTimeInterval(7200)))
        #expect(again.medication.inventory?.current == 9)
        #expect(try await adherence(f, medication.id) == AdherenceStats(expected: 1, late: 1, streakDays: 1))
        // A voided log cannot be voided or corrected again.
        #expect(await MT.error { _ = try await f.store.doseLogs.void(logged.log.id, reason: nil, expectedVersion: 1) }?
            .code == .notFound)
        #expect(await MT.error {
            _ = try await f.store.doseLogs.correct(logged.log.id, with: DoseLogCorrection(status: .missed), expectedVersion: 1)
        }?.code == .notFound)
    }

    @Test("A corrected amount moves the stock by the difference, never below zero", arguments: MedicationBackend.all)
    func amountCorrection(_ backend: MedicationBackend) async throws {
        let (f, _, medication, at) = try await setUp(backend, current: 3)
        let logged = try await f.store.doseLogs.create(
            DoseLog(medicationID: medication.id, scheduledAt: at, status: .taken, takenAt: at))
        #expect(logged.medication.inventory?.current == 2)
        let more = try await f.store.doseLogs.correct(
            logged.log.id, with: DoseLogCorrection(status: .taken, takenAt: at, amount: 4.5), expectedVersion: 1)
        #expect(more.medication.inventory?.current == .zero && more.shortfall == 1.5)
        let less = try await f.store.doseLogs.correct(
            logged.log.id, with: DoseLogCorrection(status: .taken, takenAt: at, amount: 0.5), expectedVersion: 2)
        // Clamped once, at the end (MedicationStockLedger): 3 − 0.5 = 2.5, the stock before
        // the log less its corrected amount. Clamping after each step gave 4 (0 + 4.5 − 0.5),
        // counting the 1.5 the stock never covered as if it had been there.
        #expect(less.medication.inventory?.current == 2.5)
        #expect(less.log.amount == 0.5 && less.log.version == 3)
    }

    @Test("Stale versions, invalid corrections and unknown logs throw and change nothing",
          arguments: MedicationBackend.all)
    func failuresChangeNothing(_ backend: MedicationBackend) async throws {
        let (f, _, medication, at) = try await setUp(backend)
        let logged = try await f.store.doseLogs.create(
            DoseLog(medicationID: medication.id, scheduledAt: at, status: .taken, takenAt: at))
        let before = try await f.store.get(medication.id)

        let stale = await MT.error {
            _ = try await f.store.doseLogs.correct(logged.log.id, with: DoseLogCorrection(status: .missed),
                                                   expectedVersion: 7)
        }
        #expect(stale?.code == .conflict)
        #expect(await MT.error { _ = try await f.store.doseLogs.void(logged.log.id, reason: nil, expectedVersion: 2) }?
            .code == .conflict)
        let noTime = await MT.error {
            _ = try await f.store.doseLogs.correct(logged.log.id, with: DoseLogCorrection(status: .taken),
                                                   expectedVersion: 1)
        }
        #expect(noTime?.code == .validation && noTime?.field == "takenAt")
        let skippedAmount = await MT.error {
            _ = try await f.store.doseLogs.correct(logged.log.id, with: DoseLogCorrection(status: .skipped, amount: 1),
                                                   expectedVersion: 1)
        }
        #expect(skippedAmount?.code == .validation && skippedAmount?.field == "amount")
        let hostile = await MT.error {
            _ = try await f.store.doseLogs.void(logged.log.id, reason: "secret\u{07}note", expectedVersion: 1)
        }
        #expect(hostile?.code == .validation && hostile?.field == "reason")
        #expect(hostile.map { !"\($0)".contains("secret") } == true)
        let zero = await MT.error {
            _ = try await f.store.doseLogs.create(
                DoseLog(medicationID: medication.id, scheduledAt: at.addingTimeInterval(60), status: .taken,
                        takenAt: at, amount: 0))
        }
        #expect(zero?.code == .validation && zero?.field == "amount")
        #expect(await MT.error { _ = try await f.store.doseLogs.void(UUID(), reason: nil, expectedVersion: 1) }?
            .code == .notFound)

        #expect(try await f.store.get(medication.id) == before)
        #expect(try await f.store.doseLogs.get(logged.log.id) == logged.log)
        #expect(try await f.store.doseLogs.history(of: logged.log.id).isEmpty)
    }
}
