import Foundation

/// Stores what happened to doses.
///
/// Creating a log of a dose that consumes stock (taken or late) decrements the
/// medication's inventory by its dosage amount in the same transaction: either both
/// the log and the inventory change are written, or neither. The inventory never
/// goes below zero: see ``DoseLogReceipt`` for the shortfall policy.
///
/// For example:
///
/// ```swift
/// let receipt = try await doseLogs.create(
///     DoseLog(medicationID: id, scheduledAt: dose.scheduledAt, status: .taken, takenAt: now)
/// )
/// let week = try await doseLogs.list(medicationID: id, in: lastWeek)
/// ```
public protocol DoseLogRepository: Sendable {
    /// Stores a dose log and, for a taken dose, decrements the inventory, atomically.
    ///
    /// - Parameter log: The log; instants are truncated to milliseconds, record fields ignored.
    /// - Returns: The stored log, the medication after the write, and any shortfall.
    /// - Throws: ``MedVaultError/Code/notFound`` (field `medicationID`) for an unknown
    ///   medication, ``MedVaultError/Code/validation`` (see ``DoseLog/validated()``),
    ///   ``MedVaultError/Code/duplicate`` for a known identifier or a second log of
    ///   the same medication at the same scheduled instant.
    @discardableResult
    func create(_ log: DoseLog) async throws -> DoseLogReceipt

    /// Stores many logs in one transaction, in order, as if by ``create(_:)-(DoseLog)``
    /// each: all are written or none is. Meant for imports and benchmarks.
    ///
    /// - Returns: One receipt per log, in order.
    /// - Throws: The first failure; nothing is then written.
    @discardableResult
    func create(_ logs: [DoseLog]) async throws -> [DoseLogReceipt]

    /// The dose log with this identifier.
    ///
    /// - Throws: ``MedVaultError/Code/notFound``.
    func get(_ id: UUID) async throws -> DoseLog

    /// Corrects a stored log (status, taken time, amount, skip reason, notes) and
    /// adjusts the inventory by the difference, keeping the previous value in the
    /// log's ``history(of:)``, all in one transaction.
    ///
    /// A mistaken "skipped" corrected to "taken" subtracts the dose; "taken"
    /// corrected to "skipped" gives it back; a changed amount moves the stock by the
    /// difference. Adherence reads the corrected status.
    ///
    /// - Parameters:
    ///   - id: The log.
    ///   - correction: The new outcome and the reason.
    ///   - expectedVersion: The version the caller read.
    /// - Returns: The corrected log (version + 1), the medication after the write and
    ///   any shortfall.
    /// - Throws: ``MedVaultError/Code/notFound``, ``MedVaultError/Code/validation``
    ///   (the rules of ``DoseLog/validated()``), ``MedVaultError/Code/conflict`` for a
    ///   stale version. Nothing is written on error.
    @discardableResult
    func correct(_ id: UUID, with correction: DoseLogCorrection, expectedVersion: Int64) async throws -> DoseLogReceipt

    /// Withdraws a log logged by mistake: gives back what it took from the inventory,
    /// removes it from the logs (its dose reads as unlogged again and can be logged
    /// anew: the (medication, scheduled instant) key is free) and keeps it, with the
    /// reason, as the last entry of ``history(of:)``, in one transaction.
    ///
    /// - Returns: The log as it was when voided, and the medication after the write.
    /// - Throws: ``MedVaultError/Code/notFound`` (also for a log already voided),
    ///   ``MedVaultError/Code/validation`` for a reason with control characters,
    ///   ``MedVaultError/Code/conflict`` for a stale version.
    @discardableResult
    func void(_ id: UUID, reason: String?, expectedVersion: Int64) async throws -> DoseLogReceipt

    /// The previous values of a log, oldest first: one entry per correction, and a
    /// last ``DoseLogRevision/Kind/void`` entry if it was voided. Empty for a log
    /// never changed, or an unknown identifier.
    func history(of id: UUID) async throws -> [DoseLogRevision]

    /// Every revision of a medication's logs, voided logs included, oldest first
    /// (exports carry them): by instant, then log identifier, then the order written,
    /// so synced devices list them alike.
    func history(medicationID: UUID) async throws -> [DoseLogRevision]

    /// A medication's logs with `scheduledAt` in `range` (half-open), oldest first.
    func list(medicationID: UUID, in range: Range<Date>) async throws -> [DoseLog]

    /// The logs of all of a patient's medications with `scheduledAt` in `range`
    /// (half-open), sorted by instant, then medication.
    func list(patientID: UUID, in range: Range<Date>) async throws -> [DoseLog]
}

extension DoseLogRepository {
    /// The logs of a patient's medications scheduled on calendar day `day` in `timeZone`.
    ///
    /// For example:
    ///
    /// ```swift
    /// let today = CalendarDate(.now, in: .current)
    /// let logs = try await doseLogs.list(patientID: patientID, on: today, in: .current)
    /// ```
    public func list(patientID: UUID, on day: CalendarDate, in timeZone: TimeZone) async throws -> [DoseLog] {
        try await list(patientID: patientID, in: LocalTime.interval(from: day, through: day, in: timeZone))
    }
}
