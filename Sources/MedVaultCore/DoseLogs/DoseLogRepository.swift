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
