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

    /// The medication after a log changed from `old` to `new` (`nil`: no log): the
    /// difference of their consumptions comes off the inventory, never below zero
    /// (what the stock could not cover is the shortfall), and the version goes up.
    /// Without an inventory, or when the consumption is unchanged, the medication is
    /// returned as it is.
    package static func adjusting(
        _ medication: Medication, replacing old: DoseLog?, with new: DoseLog?, now: Date
    ) -> (medication: Medication, shortfall: MedicationQuantity) {
        let delta = consumption(of: new, of: medication) - consumption(of: old, of: medication)
        guard delta != .zero, var inventory = medication.inventory else { return (medication, .zero) }
        var changed = medication
        let remaining = saturatingSum(inventory.current, .zero - delta)
        let shortfall = remaining < .zero ? .zero - remaining : MedicationQuantity.zero
        inventory.current = max(remaining, .zero)
        changed.inventory = inventory
        changed.updatedAt = now
        changed.version += 1
        return (changed, shortfall)
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

    /// The medication after `refill`: its quantity added to the inventory (a
    /// medication without one starts tracking it, minimum zero), the refill's
    /// expiration date, if any, as the inventory's, version + 1.
    package static func refilled(_ medication: Medication, with refill: MedicationRefill, now: Date) -> Medication {
        var changed = medication
        var inventory = medication.inventory ?? MedicationInventory(current: .zero)
        inventory.current = saturatingSum(inventory.current, refill.quantity)
        if let expiration = refill.expirationDate { inventory.expirationDate = expiration }
        changed.inventory = inventory
        changed.updatedAt = now
        changed.version += 1
        return changed
    }
}
