import Foundation

/// What a correction of a stored dose log sets: the outcome of the dose (status,
/// taken time, amount, skip reason, notes) and why it is corrected. The medication
/// and the scheduled instant never change: a log of the wrong dose is voided
/// (``DoseLogRepository/void(_:reason:expectedVersion:)``) and the right one logged.
///
/// For example, a dose logged "skipped" by mistake:
///
/// ```swift
/// let log = try await store.doseLogs.get(id)
/// let receipt = try await store.doseLogs.correct(
///     id, with: DoseLogCorrection(status: .taken, takenAt: takenAt, reason: "logged the wrong button"),
///     expectedVersion: log.version)
/// receipt.log.status          // .taken
/// receipt.medication.inventory // one dose less
/// ```
public struct DoseLogCorrection: Sendable, Hashable, Codable {
    /// The corrected status (taken, late, skipped or missed).
    public var status: DoseStatus
    /// When it was taken; required for taken and late, absent otherwise.
    public var takenAt: Date?
    /// How much was taken, in the dose's unit; `nil` for the medication's dose.
    public var amount: MedicationQuantity?
    /// Why it was skipped; only for skipped doses.
    public var skipReason: SkipReason?
    /// The log's notes after the correction.
    public var notes: String?
    /// Why the log is corrected, kept with the previous value in the log's history.
    public var reason: String?

    /// Creates a correction.
    public init(
        status: DoseStatus, takenAt: Date? = nil, amount: MedicationQuantity? = nil,
        skipReason: SkipReason? = nil, notes: String? = nil, reason: String? = nil
    ) {
        self.status = status
        self.takenAt = takenAt
        self.amount = amount
        self.skipReason = skipReason
        self.notes = notes
        self.reason = reason
    }
}
