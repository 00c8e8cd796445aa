import Foundation

/// The inventory arithmetic of dose logs, corrections, voids and refills: the only
/// ways the stock changes besides an explicit update (a recount).
extension MedicationRecordRule {
    /// What `log` took from the stock: its amount (the medication's dose when `nil`)
    /// for a taken or late dose, zero otherwise or without a log.
    package static func consumption(of log: DoseLog?, of medication: Medication) -> MedicationQuantity {
        guard let log, log.consumesDose else { return .zero }
        return log.amount ?? medication.dosage.amount
    }

    /// The medication after a log changed from `old` to `new` (`nil`: no log): its
    /// cached stock (`inventory.current`) after the difference of their consumptions
    /// (``MedicationStockLedger``). The version and `updatedAt` stay: the stock is
    /// derived from the logs, so a dose is not a change of the medication record and two
    /// devices logging doses never write concurrent versions of it.
    ///
    /// - Parameters:
    ///   - balanceAfter: The ledger's balance with the change written, when the caller
    ///     read it; `nil` computes the stock from the cache, which is exact for a
    ///     consumption (a cache above zero is the balance; at zero the balance is at or
    ///     below zero and stays so) but not for a give-back at zero.
    /// - Returns: The medication, and the shortfall: what the stock shown before could
    ///   not cover of the change.
    package static func adjusting(
        _ medication: Medication, replacing old: DoseLog?, with new: DoseLog?, balanceAfter: MedicationQuantity? = nil
    ) -> (medication: Medication, shortfall: MedicationQuantity) {
        let delta = consumption(of: new, of: medication) - consumption(of: old, of: medication)
        guard var inventory = medication.inventory else { return (medication, .zero) }
        let remaining = saturatingSum(inventory.current, .zero - delta)
        let shortfall = remaining < .zero ? .zero - remaining : MedicationQuantity.zero
        inventory.current = MedicationStockLedger.stock(balance: balanceAfter ?? remaining)
        var changed = medication
        changed.inventory = inventory
        return (changed, shortfall)
    }

    /// Whether a change of a log from `old` to `new` needs the ledger's balance to give
    /// the exact stock (see ``adjusting(_:replacing:with:balanceAfter:)``): it gives
    /// stock back to a medication whose cached stock is zero.
    package static func needsBalance(_ medication: Medication, replacing old: DoseLog?, with new: DoseLog?) -> Bool {
        guard let inventory = medication.inventory, inventory.current == .zero else { return false }
        return consumption(of: new, of: medication) < consumption(of: old, of: medication)
    }

    /// `a + b`, held at the largest quantity instead of overflowing: hostile input (a
    /// refill of 9 quadrillion units) must not trap the process. Both are counts far
    /// below the limit in any real use.
    static func saturatingSum(_ a: MedicationQuantity, _ b: MedicationQuantity) -> MedicationQuantity {
        let (sum, overflow) = a.thousandths.addingReportingOverflow(b.thousandths)
        guard overflow else { return MedicationQuantity(thousandths: sum) }
        return MedicationQuantity(thousandths: b.thousandths > 0 ? .max : .min)
    }

    /// The log to store when `current` is corrected with `correction`: validated,
    /// version + 1, updated now; the medication and scheduled instant are kept.
    ///
    /// - Throws: ``MedVaultError/Code/validation`` (as ``DoseLog/validated()``, and
    ///   `reason` with control characters), then ``MedVaultError/Code/conflict`` when
    ///   `expectedVersion` is not the stored one.
    package static func corrected(
        _ current: DoseLog, with correction: DoseLogCorrection, expectedVersion: Int64,
        of medication: Medication, now: Date
    ) throws -> DoseLog {
        var next = current
        next.status = correction.status
        next.takenAt = correction.takenAt
        next.amount = correction.amount
        next.skipReason = correction.skipReason
        next.notes = correction.notes
        next = try next.validated()
        try MedicationValidation.checkCharacters(correction.reason, field: "reason", multiline: true)
        guard current.version == expectedVersion else { throw MedVaultError.recordConflict }
        if next.consumesDose, next.amount == nil { next.amount = medication.dosage.amount }
        next.updatedAt = now
        next.version = current.version + 1
        return next
    }

    /// Checks a void of `current`.
    ///
    /// - Throws: ``MedVaultError/Code/validation`` for a reason with control
    ///   characters, then ``MedVaultError/Code/conflict`` for a stale version.
    package static func checkVoid(_ current: DoseLog, reason: String?, expectedVersion: Int64) throws {
        try MedicationValidation.checkCharacters(reason, field: "reason", multiline: true)
        guard current.version == expectedVersion else { throw MedVaultError.recordConflict }
    }

    /// The history entry that keeps `previous` when a correction or void replaces it.
    package static func revision(
        of previous: DoseLog, kind: DoseLogRevision.Kind, reason: String?, now: Date
    ) -> DoseLogRevision {
        DoseLogRevision(doseLogID: previous.id, kind: kind, previous: previous, reason: reason,
                        recordedAt: now.truncatedToMilliseconds)
    }

    /// The refill to store: validated, version 1, created now.
    ///
    /// - Throws: ``MedVaultError/Code/validation`` for a quantity not above zero or
    ///   notes with control characters.
    package static func created(_ refill: MedicationRefill, now: Date) throws -> MedicationRefill {
        if !refill.quantity.isPositive { throw MedVaultError.validation("quantity", "must be greater than zero") }
        try MedicationValidation.checkCharacters(refill.notes, field: "notes", multiline: true)
        var stored = refill
        stored.createdAt = now.truncatedToMilliseconds
        stored.version = 1
        return stored
    }

    /// The medication after `refill`, and the adjustment to record with it.
    ///
    /// The stock becomes the ledger's with the refill (`balanceBefore` + quantity). A
    /// medication without an inventory starts tracking one (minimum zero) at exactly the
    /// refill's quantity: the adjustment then cancels what the ledger held before (doses
    /// logged while nothing was tracked). Starting an inventory, or a refill's
    /// expiration date that differs from the inventory's, changes the medication record
    /// (`updatedAt`, version + 1, `versioned`); otherwise only the cached stock changes,
    /// so refills on two devices never write concurrent versions of the medication.
    package static func refilled(
        _ medication: Medication, with refill: MedicationRefill, balanceBefore: MedicationQuantity, now: Date
    ) -> (medication: Medication, adjustment: MedicationQuantity?, versioned: Bool) {
        var changed = medication
        var adjustment: MedicationQuantity?
        var versioned = false
        var inventory: MedicationInventory
        if let current = medication.inventory {
            inventory = current
            inventory.current = MedicationStockLedger.stock(balance: saturatingSum(balanceBefore, refill.quantity))
        } else {
            inventory = MedicationInventory(current: refill.quantity)
            adjustment = MedicationStockLedger.adjustment(setting: .zero, balance: balanceBefore)
            versioned = true
        }
        if let expiration = refill.expirationDate, expiration != inventory.expirationDate {
            inventory.expirationDate = expiration
            versioned = true
        }
        changed.inventory = inventory
        if versioned {
            changed.updatedAt = now
            changed.version += 1
        }
        return (changed, adjustment, versioned)
    }
}
