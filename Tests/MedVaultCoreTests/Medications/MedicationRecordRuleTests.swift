import Foundation
import MedVaultCore
import Testing

/// The pure state transitions both medication backends use: a failure here is a
/// failure of both.
@Suite struct MedicationRecordRuleTests {
    static let now = Date(timeIntervalSince1970: 1_780_000_000.123_456)

    func medication(amount: MedicationQuantity = 1.5, inventory: MedicationInventory? = MedicationInventory(current: 10))
        throws -> Medication
    {
        var stored = Medication(patientID: UUID(), name: "Ibuprofeno", dosage: Dosage(amount: amount, unit: .tablets),
                                frequency: .timesPerDay(2), startDate: try CalendarDate(iso8601: "2026-01-01"),
                                inventory: inventory)
        stored.version = 4
        return stored
    }

    func log(_ medication: Medication, _ status: DoseStatus) -> DoseLog {
        DoseLog(medicationID: medication.id, scheduledAt: Self.now, status: status,
                takenAt: status == .taken || status == .late ? Self.now : nil)
    }

    @Test func aConsumedDoseDecrementsTheInventoryAndKeepsTheVersion() throws {
        let stored = try medication()
        for status in [DoseStatus.taken, .late] {
            let receipt = MedicationRecordRule.applying(log(stored, status), to: stored, now: Self.now)
            #expect(receipt.medication.inventory?.current == 8.5)
            // The stock is derived from the logs (MedicationStockLedger): a dose is not a
            // new version of the medication record (it was version + 1 before the ledger).
            #expect(receipt.medication.version == stored.version && receipt.medication.updatedAt == stored.updatedAt)
            #expect(receipt.shortfall == .zero)
        }
    }

    @Test func aShortStockGoesToZeroAndReportsTheShortfall() throws {
        let stored = try medication(amount: 3, inventory: MedicationInventory(current: 1))
        let receipt = MedicationRecordRule.applying(log(stored, .taken), to: stored, now: Self.now)
        #expect(receipt.medication.inventory?.current == .zero)
        #expect(receipt.shortfall == 2)
        let again = MedicationRecordRule.applying(log(stored, .taken), to: receipt.medication, now: Self.now)
        #expect(again.medication.inventory?.current == .zero && again.shortfall == 3)
    }

    @Test func aDoseNotTakenOrAMedicationWithoutInventoryIsLeftAsItIs() throws {
        let stored = try medication()
        for status in [DoseStatus.skipped, .missed] {
            let receipt = MedicationRecordRule.applying(log(stored, status), to: stored, now: Self.now)
            #expect(receipt.medication == stored && receipt.shortfall == .zero)
        }
        let untracked = try medication(inventory: nil)
        let receipt = MedicationRecordRule.applying(log(untracked, .taken), to: untracked, now: Self.now)
        #expect(receipt.medication == untracked && receipt.shortfall == .zero)
    }

    @Test func createdValuesAreValidatedAndStamped() throws {
        let created = try MedicationRecordRule.created(try medication(), now: Self.now)
        #expect(created.version == 1 && created.createdAt == Self.now && created.updatedAt == Self.now)
        var blank = try medication()
        blank.name = " "
        #expect(throws: MedVaultError.validation("name", "must not be blank")) {
            try MedicationRecordRule.created(blank, now: Self.now)
        }
        let owner = try medication()
        let taken = log(owner, .taken)
        let stored = try MedicationRecordRule.created(taken, of: owner, now: Self.now)
        #expect(stored.scheduledAt == Self.now.truncatedToMilliseconds && stored.takenAt == stored.scheduledAt)
        #expect(stored.version == 1 && stored.createdAt == Self.now)
        // A taken dose without an amount stores the medication's dose; a skipped one none.
        #expect(stored.amount == owner.dosage.amount)
        #expect(try MedicationRecordRule.created(log(owner, .skipped), of: owner, now: Self.now).amount == nil)
    }

    @Test func deactivatingAnActiveMedicationBumpsItsVersionAndAnInactiveOneIsLeft() throws {
        let active = try medication()
        let inactive = try #require(MedicationRecordRule.deactivated(active, now: Self.now))
        #expect(!inactive.isActive && inactive.version == 5 && inactive.updatedAt == Self.now)
        #expect(MedicationRecordRule.deactivated(inactive, now: Self.now) == nil)
    }
}

/// The correction, void and refill arithmetic both backends use.
@Suite struct MedicationCorrectionRuleTests {
    static let now = Date(timeIntervalSince1970: 1_780_000_000)

    func medication(current: MedicationQuantity? = 10) throws -> Medication {
        var stored = Medication(patientID: UUID(), name: "Ibuprofeno", dosage: Dosage(amount: 1, unit: .tablets),
                                frequency: .timesPerDay(1), startDate: try CalendarDate(iso8601: "2026-01-01"),
                                inventory: current.map { MedicationInventory(current: $0) })
        stored.version = 3
        return stored
    }

    @Test func adjustingMovesTheStockByTheDifference() throws {
        let stored = try medication()
        let taken = DoseLog(medicationID: stored.id, scheduledAt: Self.now, status: .taken, takenAt: Self.now, amount: 2)
        let skipped = DoseLog(medicationID: stored.id, scheduledAt: Self.now, status: .skipped)
        let back = MedicationRecordRule.adjusting(stored, replacing: taken, with: skipped)
        // The stock is derived from the logs (MedicationStockLedger): a dose changes the
        // cached stock, not the medication record, so the version stays (it was 4 before).
        #expect(back.medication.inventory?.current == 12 && back.medication.version == 3 && back.shortfall == .zero)
        let same = MedicationRecordRule.adjusting(stored, replacing: skipped, with: nil)
        #expect(same.medication == stored)   // nothing consumed either way: nothing written
        // A taken log without an amount (written before amounts existed) counts the dose.
        var old = taken
        old.amount = nil
        #expect(MedicationRecordRule.consumption(of: old, of: stored) == 1)
        let untracked = try medication(current: nil)
        #expect(MedicationRecordRule.adjusting(untracked, replacing: nil, with: taken).medication == untracked)
        // A give-back at zero needs the ledger's balance: the cache cannot tell how far below zero it is.
        let empty = try medication(current: 0)
        #expect(MedicationRecordRule.needsBalance(empty, replacing: taken, with: nil))
        #expect(!MedicationRecordRule.needsBalance(empty, replacing: nil, with: taken))
        #expect(!MedicationRecordRule.needsBalance(stored, replacing: taken, with: nil))
        let refilled = MedicationRecordRule.adjusting(empty, replacing: taken, with: nil, balanceAfter: -1)
        #expect(refilled.medication.inventory?.current == .zero)
        // Over the stock: the shortfall is what the stock shown could not cover.
        let over = MedicationRecordRule.adjusting(stored, replacing: nil, with: DoseLog(
            medicationID: stored.id, scheduledAt: Self.now, status: .taken, takenAt: Self.now, amount: 13))
        #expect(over.medication.inventory?.current == .zero && over.shortfall == 3)
    }

    @Test func correctedChecksValidationThenVersion() throws {
        let stored = try medication()
        var log = DoseLog(medicationID: stored.id, scheduledAt: Self.now, status: .skipped)
        log.version = 2
        let next = try MedicationRecordRule.corrected(
            log, with: DoseLogCorrection(status: .late, takenAt: Self.now), expectedVersion: 2, of: stored, now: Self.now)
        #expect(next.version == 3 && next.amount == 1 && next.status == .late && next.updatedAt == Self.now)
        #expect(throws: MedVaultError.validation("takenAt", "is required for a taken dose")) {
            try MedicationRecordRule.corrected(log, with: DoseLogCorrection(status: .taken), expectedVersion: 9,
                                               of: stored, now: Self.now)
        }
        #expect(throws: MedVaultError.self) {
            try MedicationRecordRule.corrected(log, with: DoseLogCorrection(status: .missed), expectedVersion: 1,
                                               of: stored, now: Self.now)
        }
    }

    @Test func refilledAddsStockAndExpiration() throws {
        let stored = try medication(current: nil)
        let refill = MedicationRefill(medicationID: stored.id, quantity: 30, date: try CalendarDate(iso8601: "2026-05-01"),
                                      expirationDate: try CalendarDate(iso8601: "2027-01-31"))
        // Two doses were logged while nothing was tracked: the ledger's balance is −2,
        // and starting an inventory at the refill's quantity records +2 with it.
        let (changed, adjustment, versioned) = MedicationRecordRule.refilled(stored, with: refill, balanceBefore: -2,
                                                                            now: Self.now)
        #expect(changed.inventory == MedicationInventory(current: 30, expirationDate: try CalendarDate(iso8601: "2027-01-31")))
        #expect(changed.version == 4 && changed.updatedAt == Self.now && versioned && adjustment == 2)
        // A tracked medication without a new expiration date: only the cached stock moves.
        let tracked = try medication(current: 5)
        var plain = refill
        plain.expirationDate = nil
        let more = MedicationRecordRule.refilled(tracked, with: plain, balanceBefore: -3, now: Self.now)
        #expect(more.medication.inventory?.current == 27 && !more.versioned && more.adjustment == nil)
        #expect(more.medication.version == 3)
        #expect(throws: MedVaultError.validation("quantity", "must be greater than zero")) {
            var empty = refill
            empty.quantity = .zero
            return try MedicationRecordRule.created(empty, now: Self.now)
        }
    }
}
