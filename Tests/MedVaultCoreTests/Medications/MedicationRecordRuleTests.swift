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

    @Test func aConsumedDoseDecrementsTheInventoryAndBumpsTheVersion() throws {
        let stored = try medication()
        for status in [DoseStatus.taken, .late] {
            let receipt = MedicationRecordRule.applying(log(stored, status), to: stored, now: Self.now)
            #expect(receipt.medication.inventory?.current == 8.5)
            #expect(receipt.medication.version == 5 && receipt.medication.updatedAt == Self.now)
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
