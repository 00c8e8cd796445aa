import Foundation

/// Dose logs inside a unit of work (``TransactionalMedicationStore/doseLogs``): the
/// synchronous mirror of ``DoseLogRepository``, with the same rules, results and
/// errors, in the unit's transaction: a taken dose decrements the inventory in it.
/// Reads see the unit's own writes.
public protocol TransactionalDoseLogRepository {
    /// Stores a dose log, as ``DoseLogRepository/create(_:)-(DoseLog)``.
    @discardableResult
    func create(_ log: DoseLog) throws -> DoseLogReceipt

    /// Stores many dose logs, as ``DoseLogRepository/create(_:)-([DoseLog])``.
    @discardableResult
    func create(_ logs: [DoseLog]) throws -> [DoseLogReceipt]

    /// The dose log with `id`, as ``DoseLogRepository/get(_:)``.
    func get(_ id: UUID) throws -> DoseLog

    /// Corrects a log, as ``DoseLogRepository/correct(_:with:expectedVersion:)``.
    @discardableResult
    func correct(_ id: UUID, with correction: DoseLogCorrection, expectedVersion: Int64) throws -> DoseLogReceipt

    /// Voids a log, as ``DoseLogRepository/void(_:reason:expectedVersion:)``.
    @discardableResult
    func void(_ id: UUID, reason: String?, expectedVersion: Int64) throws -> DoseLogReceipt

    /// A log's previous values, as ``DoseLogRepository/history(of:)``.
    func history(of id: UUID) throws -> [DoseLogRevision]

    /// A medication's revisions, as ``DoseLogRepository/history(medicationID:)``.
    func history(medicationID: UUID) throws -> [DoseLogRevision]

    /// A medication's logs in `range`, as ``DoseLogRepository/list(medicationID:in:)``.
    func list(medicationID: UUID, in range: Range<Date>) throws -> [DoseLog]

    /// A patient's logs in `range`, as ``DoseLogRepository/list(patientID:in:)``.
    func list(patientID: UUID, in range: Range<Date>) throws -> [DoseLog]
}
