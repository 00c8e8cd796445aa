import Foundation

/// The pure state transitions of medications, schedules and dose logs, written once
/// and used by every backend: a backend reads the stored values, asks these rules
/// for the values to store, and writes them.
package enum MedicationRecordRule {
    /// The medication to store for a new one: validated, version 1, created and
    /// updated now.
    ///
    /// - Throws: ``MedVaultError/Code/validation`` (``Medication/validated()``).
    package static func created(_ medication: Medication, now: Date) throws -> Medication {
        var stored = try medication.validated().stampedAsNew(at: now)
        stored.deactivatedAt = stored.isActive ? nil : stored.deactivatedAt?.truncatedToMilliseconds
        return stored
    }

    /// The schedule to store for a new one: validated, version 1, created and updated now.
    ///
    /// - Throws: ``MedVaultError/Code/validation`` (``MedicationSchedule/validated()``).
    package static func created(_ schedule: MedicationSchedule, now: Date) throws -> MedicationSchedule {
        try schedule.validated().stampedAsNew(at: now)
    }

    /// The dose log to store for a new one of `medication`: validated, instants in
    /// whole milliseconds, a taken dose's amount resolved (the medication's dose when
    /// `nil`), version 1, created and updated now.
    ///
    /// - Throws: ``MedVaultError/Code/validation`` (``DoseLog/validated()``).
    package static func created(_ log: DoseLog, of medication: Medication, now: Date) throws -> DoseLog {
        var stored = try log.validated().stampedAsNew(at: now)
        if stored.consumesDose, stored.amount == nil { stored.amount = medication.dosage.amount }
        return stored
    }

    /// The medication to store when deactivating `current`, or `nil` when it is
    /// already inactive (nothing to write).
    package static func deactivated(_ current: Medication, now: Date) -> Medication? {
        guard current.isActive else { return nil }
        var stored = current
        stored.isActive = false
        stored.deactivatedAt = now.truncatedToMilliseconds
        stored.updatedAt = now
        stored.version += 1
        return stored
    }

    /// Applies a stored dose log to its medication's inventory.
    ///
    /// A dose that consumes stock (taken or late) decrements the cached stock by the
    /// dosage amount, never below zero: what the stock could not cover is the
    /// receipt's shortfall (see ``DoseLogReceipt``). The medication's version and
    /// `updatedAt` stay (the stock is derived from the logs, ``MedicationStockLedger``).
    /// Any other dose, or a medication without inventory, leaves the medication as it is.
    ///
    /// - Parameters:
    ///   - log: The log as stored (``created(_:now:)-(DoseLog,_)``).
    ///   - medication: The medication as stored before the log.
    ///   - now: The write's instant.
    /// - Returns: The receipt; its medication differs from `medication` exactly when
    ///   the cached stock changed and must be written.
    package static func applying(_ log: DoseLog, to medication: Medication, now: Date) -> DoseLogReceipt {
        let (changed, shortfall) = adjusting(medication, replacing: nil, with: log)
        return DoseLogReceipt(log: log, medication: changed, shortfall: shortfall)
    }
}

extension MedVaultError {
    /// The medication already has a log at this scheduled instant.
    package static let doseAlreadyLogged = MedVaultError(.duplicate, reason: "this dose is already logged")
}
