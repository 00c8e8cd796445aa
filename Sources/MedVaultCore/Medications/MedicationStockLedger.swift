import Foundation

/// An explicit change of a medication's stock: the app gave a stock value (a new
/// medication with an inventory, a recount through an update, the first refill of an
/// untracked medication), recorded as the difference from the stock the writer's
/// ledger held. Append-only, like refills, so two devices' adjustments merge by union.
package struct MedicationStockAdjustment: Sendable, Hashable {
    /// The adjustment's identifier.
    package var id: UUID
    /// The medication whose stock it changes.
    package var medicationID: UUID
    /// What it adds to the ledger's balance (negative: it removes).
    package var delta: MedicationQuantity
    /// When it was recorded, in whole milliseconds.
    package var recordedAt: Date

    package init(id: UUID = UUID(), medicationID: UUID, delta: MedicationQuantity, recordedAt: Date) {
        self.id = id
        self.medicationID = medicationID
        self.delta = delta
        self.recordedAt = recordedAt
    }
}

/// The one definition of a medication's stock, used by every backend and by sync.
///
/// The stock is derived from records that merge without loss across devices:
///
///     balance = Σ adjustments + Σ refill quantities − Σ amounts of the doses currently taken
///     stock   = max(0, balance)
///
/// Every term commutes, so devices that hold the same records show the same stock
/// whatever order they learnt them in; no clock is needed. Clamping happens once, at
/// the end, not after each step: a dose the stock could not cover leaves the balance
/// negative, and a later refill or void fills that hole first (docs/medications.md,
/// "Inventory"). The medication row's `inventory.current` is a cache of the stock,
/// kept by each local write and recomputed after a sync applies remote records.
package enum MedicationStockLedger {
    /// The balance of the three sums, held at the largest or smallest quantity
    /// instead of overflowing (hostile quantities must not trap the process).
    package static func balance(
        adjustments: MedicationQuantity, refills: MedicationQuantity, consumed: MedicationQuantity
    ) -> MedicationQuantity {
        let added = MedicationRecordRule.saturatingSum(adjustments, refills)
        let negated = consumed.thousandths == .min ? Int64.max : -consumed.thousandths
        return MedicationRecordRule.saturatingSum(added, MedicationQuantity(thousandths: negated))
    }

    /// The balance of `medication` from its records (the in-memory backend's ledger
    /// read; SQL sums the same columns).
    package static func balance(
        of medication: Medication, adjustments: some Sequence<MedicationStockAdjustment>,
        refills: some Sequence<MedicationRefill>, logs: some Sequence<DoseLog>
    ) -> MedicationQuantity {
        var adjusted = MedicationQuantity.zero
        for adjustment in adjustments where adjustment.medicationID == medication.id {
            adjusted = MedicationRecordRule.saturatingSum(adjusted, adjustment.delta)
        }
        var refilled = MedicationQuantity.zero
        for refill in refills where refill.medicationID == medication.id {
            refilled = MedicationRecordRule.saturatingSum(refilled, refill.quantity)
        }
        var consumed = MedicationQuantity.zero
        for log in logs where log.medicationID == medication.id {
            consumed = MedicationRecordRule.saturatingSum(consumed, MedicationRecordRule.consumption(of: log, of: medication))
        }
        return balance(adjustments: adjusted, refills: refilled, consumed: consumed)
    }

    /// The stock a balance shows: never below zero.
    package static func stock(balance: MedicationQuantity) -> MedicationQuantity {
        max(balance, .zero)
    }

    /// A sum read by SQL's `TOTAL()` (a floating-point value) as a quantity, held in
    /// range. Sums below 2⁵³ thousandths (9 billion units) are exact.
    package static func quantity(total: Double) -> MedicationQuantity {
        guard total.isFinite else { return MedicationQuantity(thousandths: total > 0 ? .max : .min) }
        if total >= 9.2e18 { return MedicationQuantity(thousandths: .max) }
        if total <= -9.2e18 { return MedicationQuantity(thousandths: .min) }
        return MedicationQuantity(thousandths: Int64(total.rounded()))
    }

    /// The adjustment that makes `balance` equal `target`; `nil` when it already does.
    package static func adjustment(setting target: MedicationQuantity, balance: MedicationQuantity) -> MedicationQuantity? {
        let (delta, overflow) = target.thousandths.subtractingReportingOverflow(balance.thousandths)
        if overflow { return MedicationQuantity(thousandths: balance.thousandths < 0 ? .max : .min) }
        return delta == 0 ? nil : MedicationQuantity(thousandths: delta)
    }

    /// The stock an update of a medication asks to set, or `nil` for "no stock change".
    ///
    /// An update carries the whole inventory, usually as the app read it. Its
    /// `current` is an explicit stock value only when it differs both from the stock
    /// stored now and from the stock this version of the medication was written with
    /// (`declared`): an app that read the medication, then saw a dose logged elsewhere
    /// in the app, and saves its copy with the old stock must not undo that dose.
    ///
    /// - Parameters:
    ///   - new: The inventory of the update.
    ///   - stored: The inventory stored now (its `current` is the cached stock).
    ///   - declared: The stock the stored version was written with.
    package static func requestedStock(
        _ new: MedicationInventory?, stored: MedicationInventory?, declared: MedicationQuantity?
    ) -> MedicationQuantity? {
        guard let new else { return nil }
        guard let stored else { return new.current }
        if new.current == stored.current || new.current == declared { return nil }
        return new.current
    }
}

extension MedicationStockLedger {
    /// The medication to store for an update, and the adjustment to record with it
    /// (`nil`: none), given what ``MedicationUpdateRule`` stamped.
    ///
    /// When the update asks for a stock (``requestedStock(_:stored:declared:)``), the
    /// adjustment makes the ledger's balance equal it; otherwise the stored cached
    /// stock is kept, whatever the update's copy says.
    ///
    /// - Parameters:
    ///   - stamped: The update as ``MedicationUpdateRule/updated(_:replacing:now:)-(Medication,_,_)`` returns it.
    ///   - current: The medication stored now.
    ///   - declared: The stock the stored version was written with.
    ///   - balance: Reads the ledger's balance; called only when the stock changes.
    package static func updated(
        _ stamped: Medication, replacing current: Medication, declared: MedicationQuantity?,
        balance: () throws -> MedicationQuantity
    ) rethrows -> (medication: Medication, adjustment: MedicationQuantity?) {
        var stored = stamped
        guard var inventory = stored.inventory else { return (stored, nil) }
        guard let target = requestedStock(inventory, stored: current.inventory, declared: declared) else {
            inventory.current = current.inventory?.current ?? inventory.current
            stored.inventory = inventory
            return (stored, nil)
        }
        inventory.current = target
        stored.inventory = inventory
        return (stored, adjustment(setting: target, balance: try balance()))
    }
}
